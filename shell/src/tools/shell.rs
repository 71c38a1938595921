//! `shell`: one `sh -c` command in the copy, only when the task enables it, and only inside a
//! sandbox (the run refuses to start a task with `shell` unsandboxed), with the task's timeout
//! and output cap. Its writes cannot be checked before it runs, so the test files and test
//! configuration it changed are put back afterwards, and the model is told.

use serde_json::{json, Map, Value};

use super::arguments::text_argument;
use super::{failure, ToolContext, ToolError};
use crate::access::{Restored, Snapshot};
use crate::error::MendError;
use crate::exec::sandbox::Sandbox;
use crate::truncate::keep_tail;

pub(super) fn shell(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let command = text_argument(arguments, "command")?;
    // Checked again here so that no path to this tool runs without one.
    if context.runner.sandbox == Sandbox::Unsandboxed {
        return Err(failure(
            "the shell tool runs only inside a sandbox, and this run has none".to_owned(),
        ));
    }
    let limits = context.task.shell;
    let argv = ["/bin/sh", "-c", command].map(str::to_owned);
    let unprotected = |err: std::io::Error| {
        MendError::harness(format!(
            "cannot check the copy's test files and test configuration around the shell tool: {err}"
        ))
    };
    let before = Snapshot::take(context.task, context.root).map_err(unprotected)?;
    let finished = context
        .runner
        .run_argv(&argv, limits.timeout, context.root, context.watch)?;
    let restored = before
        .restore(context.task, context.root)
        .map_err(unprotected)?;
    if let Some(cut) = finished.cut {
        return Err(ToolError::Cut(cut));
    }
    // A command stopped at its limit still tells the model what it printed.
    let mut result = match finished.status {
        Some(status) => json!({
            "exit_code": status.code(),
            "output": keep_tail(&finished.output, limits.output_chars),
        }),
        None => json!({
            "exit_code": null,
            "error": format!(
                "the command did not finish within {} s and was stopped",
                limits.timeout.as_secs()
            ),
            "output": keep_tail(&finished.output, limits.output_chars),
        }),
    };
    if !restored.is_empty() {
        result["protected"] = Value::String(undone(&restored));
    }
    Ok(result)
}

/// What the model is told about the protected files its command changed and mend put back.
fn undone(restored: &[Restored]) -> String {
    let named: Vec<String> = restored
        .iter()
        .map(|file| format!("`{}`, {}", file.path, file.protected.describe()))
        .collect();
    format!(
        "the command changed {}. No tool may change these: mend put them back as they were; change the code under test instead",
        named.join("; ")
    )
}
