//! Where a run's trace goes: `--otel ENDPOINT`, else `[telemetry] otlp_endpoint` of the task
//! file; and whether it carries the conversation's content (`include_content`, off by default).

use crate::task::TelemetryTable;

/// A run's telemetry, when it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Telemetry {
    /// Where the trace is posted: the endpoint with `/v1/traces`.
    pub traces_url: String,
    /// `telemetry.include_content`: whether the prompts, messages and tool results go into the trace, not only their sizes.
    pub include_content: bool,
}

/// The telemetry `flag` and the task's table ask for, if any: the flag's endpoint wins.
pub(crate) fn chosen(flag: Option<&str>, table: &TelemetryTable) -> Option<Telemetry> {
    let endpoint = flag.or(table.otlp_endpoint.as_deref())?;
    let base = endpoint.trim_end_matches('/');
    let traces_url = if base.ends_with("/v1/traces") {
        base.to_owned()
    } else {
        format!("{base}/v1/traces")
    };
    Some(Telemetry {
        traces_url,
        include_content: table.include_content,
    })
}
