//! `run_tests`: the fixed pytest command in the workspace, with the tail of its output.

use mend_core::ToolOutcome;
use serde_json::json;

use super::ToolContext;
use crate::error::MendError;
use crate::pytest::{run_pytest, RUN_TESTS_TIMEOUT};
use crate::truncate::keep_tail;

/// SPEC §3: the end of pytest's output is where the failures and the summary are.
pub const TOOL_OUTPUT_TAIL_CHARS: usize = 4_000;

pub fn run_tests(context: &ToolContext) -> Result<ToolOutcome, MendError> {
    let finished = run_pytest(context.python, context.root).map_err(|err| {
        MendError::harness(format!(
            "cannot start Python at `{}`: {err}",
            context.python
        ))
    })?;
    let value = match finished.status {
        Some(status) => json!({
            "exit_code": status.code(),
            "output": keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS),
        }),
        None => json!({
            "exit_code": null,
            "error": format!(
                "the tests did not finish within {} s and were stopped",
                RUN_TESTS_TIMEOUT.as_secs()
            ),
        }),
    };
    Ok(ToolOutcome::Success { value })
}
