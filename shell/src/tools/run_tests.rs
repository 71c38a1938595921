//! `run_tests`: the task's fixed test command in the workspace, with the tail of its output.

use mend_core::ToolOutcome;
use serde_json::json;

use super::{ToolContext, ToolRun};
use crate::error::MendError;
use crate::truncate::keep_tail;

/// SPEC §3: the end of pytest's output is where the failures and the summary are.
pub const TOOL_OUTPUT_TAIL_CHARS: usize = 4_000;

pub fn run_tests(context: &ToolContext) -> Result<ToolRun, MendError> {
    let test = &context.task.test;
    let finished = context.runner.run(test, context.root, context.watch)?;
    if let Some(cut) = finished.cut {
        return Ok(ToolRun::Cut(cut));
    }
    let value = match finished.status {
        Some(status) => json!({
            "exit_code": status.code(),
            "output": keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS),
        }),
        None => json!({
            "exit_code": null,
            "error": format!(
                "the tests did not finish within {} s and were stopped",
                test.timeout.as_secs()
            ),
            // What ran before the limit: the last test named is the one that hung.
            "output": keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS),
        }),
    };
    Ok(ToolRun::Finished(ToolOutcome::Success { value }))
}
