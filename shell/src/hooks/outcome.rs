//! What the hooks that ran for one call come to: go on (perhaps with new arguments) or blocked,
//! and what they added for the model. Read from the runs the record keeps, so a replay comes to
//! the same as the recorded run.

use serde_json::{Map, Value};

use crate::record::hook_run::{Decision, HookRun};

/// What a list of hook runs comes to for the call: blocked by the first that blocked, else the
/// arguments of the last that rewrote them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    Go {
        updated_input: Option<Map<String, Value>>,
    },
    Blocked {
        reason: String,
    },
}

pub(crate) fn outcome(runs: &[HookRun]) -> Outcome {
    let mut updated_input = None;
    for run in runs {
        match &run.decision {
            Decision::Block { reason } => {
                return Outcome::Blocked {
                    reason: format!(
                        "blocked by the {} hook `{}`: {reason}",
                        run.event.name(),
                        run.command
                    ),
                }
            }
            Decision::Allow {
                updated_input: Some(input),
            } => updated_input = Some(input.clone()),
            Decision::Allow {
                updated_input: None,
            }
            | Decision::Pass => {}
        }
    }
    Outcome::Go { updated_input }
}

/// What the hooks added for the model, joined.
pub(crate) fn context(runs: &[HookRun]) -> Option<String> {
    let notes: Vec<&str> = runs
        .iter()
        .filter_map(|run| run.additional_context.as_deref())
        .collect();
    (!notes.is_empty()).then(|| notes.join("\n"))
}
