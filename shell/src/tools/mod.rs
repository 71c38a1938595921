//! The tools the model may call, one file each; their schemas are in [`table`]. Each returns
//! `Result<Value, ToolError>`, as codex-rs's tools do: a tool's own failure (bad path, ambiguous
//! edit, a test run that timed out) is [`ToolError::RespondToModel`] and goes back to the model;
//! only a failure of the harness itself (Python cannot start) is [`ToolError::Fatal`] and ends
//! the run.

mod arguments;
mod grep;
mod list_files;
mod read_file;
mod replace_text;
mod run_tests;
mod shell;
pub mod table;
mod text;
mod write_file;

use camino::Utf8Path;
use mend_core::ToolOutcome;
use serde_json::{Map, Value};

use crate::error::MendError;
use crate::exec::runner::TestRunner;
use crate::interrupt::{Cut, Watch};
use crate::task::{Task, ToolName};

/// What a session's tools work on and obey — the one context an attempt hands them: the
/// workspace copy, the task's rules, the test runner, and when to give up (the driver sets
/// the watch of each call).
#[derive(Clone, Copy)]
pub struct ToolContext<'a> {
    /// The workspace copy the tools work on.
    pub root: &'a Utf8Path,
    /// What the tools may read and change, and their limits.
    pub task: &'a Task,
    /// Runs the test command for `run_tests` and the shell's commands, in the sandbox.
    pub runner: &'a TestRunner,
    /// When to give up on a call: Ctrl-C or the deadline.
    pub watch: Watch,
}

impl<'a> ToolContext<'a> {
    /// The tools on the copy at `root`, waiting on nothing until the driver says.
    pub fn new(root: &'a Utf8Path, task: &'a Task, runner: &'a TestRunner) -> Self {
        ToolContext {
            root,
            task,
            runner,
            watch: Watch::NONE,
        }
    }
}

/// How a tool execution ended: with an outcome for the model, or cut short by Ctrl-C or the
/// deadline (then the session hears about the cut, not about the tool).
#[derive(Debug, PartialEq)]
pub enum ToolRun {
    /// The tool ran; what it gave goes to the model.
    Finished(ToolOutcome),
    /// Ctrl-C or the deadline stopped it first.
    Cut(Cut),
}

/// Why a tool returned no value.
#[derive(Debug)]
pub enum ToolError {
    /// The model's to handle: it receives `{"error": message}` and the session goes on.
    RespondToModel(String),
    /// Ctrl-C or the deadline cut the tool short: the session hears about the cut, not the tool.
    Cut(Cut),
    /// The harness itself failed: the run ends with this error.
    Fatal(MendError),
}

impl From<MendError> for ToolError {
    fn from(error: MendError) -> Self {
        ToolError::Fatal(error)
    }
}

/// Runs one call the core has already validated against the tool schemas. A tool the task does
/// not offer is refused here too, so the policy never rests on the schemas alone.
pub fn execute(
    context: &ToolContext,
    name: &str,
    arguments: &Map<String, Value>,
) -> Result<ToolRun, MendError> {
    let result = match ToolName::named(name).filter(|tool| context.task.offers(*tool)) {
        None => Err(failure(format!("unknown tool `{name}`"))),
        Some(ToolName::ListFiles) => list_files::list_files(context, arguments),
        Some(ToolName::Grep) => grep::grep(context, arguments),
        Some(ToolName::ReadFile) => read_file::read_file(context, arguments),
        Some(ToolName::WriteFile) => write_file::write_file(context, arguments),
        Some(ToolName::ReplaceText) => replace_text::replace_text(context, arguments),
        Some(ToolName::RunTests) => run_tests::run_tests(context),
        Some(ToolName::Shell) => shell::shell(context, arguments),
    };
    match result {
        Ok(value) => Ok(ToolRun::Finished(ToolOutcome::Success { value })),
        Err(ToolError::RespondToModel(message)) => {
            Ok(ToolRun::Finished(ToolOutcome::Failure { message }))
        }
        Err(ToolError::Cut(cut)) => Ok(ToolRun::Cut(cut)),
        Err(ToolError::Fatal(error)) => Err(error),
    }
}

/// A failure the model is told of, in the words of its `Display`.
fn failure(message: impl std::fmt::Display) -> ToolError {
    ToolError::RespondToModel(message.to_string())
}

#[cfg(test)]
mod tests;
