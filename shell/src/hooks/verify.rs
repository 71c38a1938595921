//! The hooks a verify runs. A verify is a test run, what the `run_tests` tool does, so the hooks
//! whose matchers take `run_tests` run around it: `PreToolUse` before the tests (a block stops
//! the verify, said as blocked), `PostToolUse` after them with the run as the tool's response (an
//! objection is a warning beside the verdict). Hooks about edits do not run (a `--patch` is the
//! user's change, not a model's call) and `Stop` hooks neither (no model finishes).

use serde_json::{json, Map, Value};

use crate::error::MendError;
use crate::exec::runner::TestRunner;
use crate::hooks::gate::{session_id, Gate};
use crate::hooks::input::Call;
use crate::hooks::spawn::Place;
use crate::interrupt::Watch;
use crate::task::hook_run::{outcome, HookEvent, HookRun, Outcome};
use crate::task::hooks::Hooks;
use crate::task::{Task, ToolName};

/// The call id the hooks are told a verify's test run has.
pub(crate) const VERIFY_CALL_ID: &str = "verify";

/// Where a verify's hooks run: the copy, as the tests.
pub(crate) struct VerifyHooks<'a> {
    pub task: &'a Task,
    pub runner: &'a TestRunner,
    pub root: &'a camino::Utf8Path,
}

impl VerifyHooks<'_> {
    /// What a verify says about the task's hooks before it runs them: which apply.
    pub(crate) fn which(&self) -> Option<String> {
        if self.task.hooks.is_empty() {
            return None;
        }
        let tool = ToolName::RunTests.name();
        let hooks = &self.task.hooks;
        let applying: Vec<String> = [
            ("PreToolUse", &hooks.pre_tool_use),
            ("PostToolUse", &hooks.post_tool_use),
        ]
        .into_iter()
        .flat_map(|(event, matchers)| {
            Hooks::for_tool(matchers, tool)
                .into_iter()
                .map(move |command| format!("{event} `{}`", command.command))
        })
        .collect();
        Some(match applying.as_slice() {
            [] => {
                "hooks: none of the task's applies to a verify (only those that match run_tests do)"
                    .to_owned()
            }
            applying => format!(
                "hooks: a verify runs those that match run_tests: {}",
                applying.join(", ")
            ),
        })
    }

    fn run(&self, event: HookEvent, response: Option<&Value>) -> Result<Vec<HookRun>, MendError> {
        let matchers = match event {
            HookEvent::PreToolUse => &self.task.hooks.pre_tool_use,
            _ => &self.task.hooks.post_tool_use,
        };
        let tool = ToolName::RunTests.name();
        let commands = Hooks::for_tool(matchers, tool);
        if commands.is_empty() {
            return Ok(Vec::new());
        }
        let session = session_id();
        let gate = Gate {
            place: Place {
                runner: self.runner,
                root: self.root,
                watch: Watch::NONE,
            },
            session_id: &session,
        };
        let input = Map::new();
        let call = Call {
            tool_use_id: VERIFY_CALL_ID,
            tool_name: tool,
            tool_input: &input,
            tool_response: response,
        };
        gate.tool_event(event, &commands, &call)
            .map_err(|_| MendError::interrupted("the verify's hooks were interrupted"))
    }

    /// The `PreToolUse` hooks: their runs, or the verify refused when one blocks.
    pub(crate) fn before(&self) -> Result<Vec<HookRun>, (Vec<HookRun>, String)> {
        let runs = self
            .run(HookEvent::PreToolUse, None)
            .map_err(|err| (Vec::new(), err.message))?;
        match outcome(&runs) {
            Outcome::Blocked { reason } => Err((runs, reason)),
            Outcome::Go { .. } => Ok(runs),
        }
    }

    /// The `PostToolUse` hooks, told of `run`: their runs, and an objection when one blocks.
    pub(crate) fn after(&self, run: &Value) -> Result<(Vec<HookRun>, Option<String>), MendError> {
        let response = json!(run);
        let runs = self.run(HookEvent::PostToolUse, Some(&response))?;
        let objection = match outcome(&runs) {
            Outcome::Blocked { reason } => Some(reason),
            Outcome::Go { .. } => None,
        };
        Ok((runs, objection))
    }
}
