//! What `mend run` and `mend resume` do with a finished session: write its record (and its
//! change beside it) under the name actually free, and tell the user what happened.

use camino::Utf8PathBuf;
use mend_core::internal::server_message;
use mend_core::{Stop, StopCause, TransportError};

use crate::error::{exit, MendError};
use crate::record::target::{RecordFile, RecordTarget};
use crate::record::Record;
use crate::session::render::{Render, RunEvent};
use crate::task::Task;

/// The files a finished session was written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub record: Utf8PathBuf,
    /// `RECORD.patch` beside the record, when the session changed something.
    pub patch: Option<Utf8PathBuf>,
}

/// Writes `record` to `target` and, when `diff` is not empty, the patch beside the file actually
/// written (a new record in `.mend/` may be `STAMP-2.json`, then its patch is `STAMP-2.patch`).
pub fn write_record(
    target: &RecordTarget,
    record: &Record,
    diff: &str,
) -> Result<Written, MendError> {
    let record = RecordFile::new(target.clone()).write_json(record)?;
    let patch = if diff.is_empty() {
        None
    } else {
        let patch = record.with_extension("patch");
        crate::record::patch::write_atomically(&patch, diff)?;
        Some(patch)
    };
    Ok(Written { record, patch })
}

/// What a live session left to say after its verdict (`mend run`, `mend resume`).
pub struct Outcome<'a> {
    pub written: &'a Written,
    pub test_files_changed: bool,
    pub task: &'a Task,
    pub diff: &'a str,
    pub print_diff: bool,
    pub stop: &'a Stop,
    pub model: &'a str,
    pub exit_code: u8,
}

/// Says where the record and the patch are, and explains a model failure.
pub fn report_outcome(outcome: &Outcome, render: &mut dyn Render) {
    let record = &outcome.written.record;
    eprintln!("mend: record written to {record} (replay it with `mend replay {record}`)");
    if outcome.test_files_changed {
        eprintln!(
            "mend: the run changed the task's test files ({}), so its final tests do not count as a pass",
            outcome.task.test.files.listed("and")
        );
    }
    if let Some(patch) = &outcome.written.patch {
        eprintln!("mend: the change is in {patch} (apply it with `mend apply {record}`)");
        if outcome.print_diff {
            render.run_event(&RunEvent::Diff {
                text: outcome.diff.to_owned(),
            });
        }
    }
    if outcome.exit_code == exit::MODEL {
        eprintln!("mend: error: {}", explain_stop(outcome.stop, outcome.model));
    }
}

/// A model stop in words, with the fix for the failures a user can do something about (a model not
/// pulled, a model without tool support). The hint rests on the stop's typed cause; only the
/// server's own message is read as text.
pub fn explain_stop(stop: &Stop, model: &str) -> String {
    let detail = stop
        .detail
        .as_deref()
        .unwrap_or("the model's turn did not complete");
    let server_said = match &stop.cause {
        Some(StopCause::Transport(TransportError::Http { status, body })) => {
            Some((*status, server_message(body)))
        }
        _ => None,
    };
    let hint = match (&stop.cause, &server_said) {
        (Some(StopCause::TokenLimit), _) => {
            return format!(
                "the model ran out of tokens: {detail} — the answer exceeded num_predict"
            )
        }
        (_, Some((404, message))) if message.contains("not found") => {
            format!(" — run `ollama pull {model}`")
        }
        (_, Some((_, message))) if message.contains("does not support tools") => {
            " — choose a model with tool support (see `ollama show MODEL`)".to_owned()
        }
        (_, Some((_, message))) if message.contains("does not support thinking") => {
            " — pass --no-think".to_owned()
        }
        _ => String::new(),
    };
    format!("the model server failed: {detail}{hint}")
}

#[cfg(test)]
mod tests {
    use mend_core::{Stop, StopCause, StopReason, TransportError};

    use super::explain_stop;

    fn stop(reason: StopReason, detail: &str, cause: Option<StopCause>) -> Stop {
        Stop {
            reason,
            detail: Some(detail.to_owned()),
            cause,
        }
    }

    #[test]
    fn the_hint_rests_on_the_typed_cause_not_on_the_words() {
        let http = |status: u16, body: &str| {
            Some(StopCause::Transport(TransportError::Http {
                status,
                body: body.to_owned(),
            }))
        };
        let stops = [
            stop(
                StopReason::ModelError,
                "HTTP 404: model 'm' not found",
                http(404, r#"{"error":"model 'm' not found"}"#),
            ),
            stop(
                StopReason::ModelError,
                "HTTP 400: m does not support tools",
                http(400, r#"{"error":"m does not support tools"}"#),
            ),
            // The words alone, without the typed cause (an error line mid-stream), give no hint.
            stop(
                StopReason::ModelError,
                "the server reported an error mid-stream: HTTP 404 model not found",
                None,
            ),
            stop(
                StopReason::IncompleteModelTurn,
                "the model's output was cut off by the token limit (done_reason: length)",
                Some(StopCause::TokenLimit),
            ),
        ];
        assert_eq!(
            stops.map(|stop| explain_stop(&stop, "m")),
            [
                "the model server failed: HTTP 404: model 'm' not found — run `ollama pull m`",
                "the model server failed: HTTP 400: m does not support tools — choose a model with tool support (see `ollama show MODEL`)",
                "the model server failed: the server reported an error mid-stream: HTTP 404 model not found",
                "the model ran out of tokens: the model's output was cut off by the token limit (done_reason: length) — the answer exceeded num_predict",
            ]
            .map(str::to_owned)
        );
    }
}
