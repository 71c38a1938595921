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
use crate::hooks::outcome::{outcome, Outcome};
use crate::hooks::spawn::Place;
use crate::interrupt::Watch;
use crate::record::hook_run::{HookEvent, HookRun};
use crate::task::hooks::Hooks;
use crate::task::{Task, ToolName};

/// The call id the hooks are told a verify's test run has.
pub(crate) const VERIFY_CALL_ID: &str = "verify";

/// Why a verify's tests do not run after its `PreToolUse` hooks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stopped {
    /// A hook blocked the test run: the verify is refused, the hooks' runs are shown.
    Blocked { runs: Vec<HookRun>, reason: String },
    /// The hooks were cut short. A verify's hooks watch neither Ctrl-C nor a deadline
    /// ([`Watch::NONE`]), so this is only the gate's promise kept.
    Interrupted,
}

impl Stopped {
    /// The hooks that ran before the stop.
    pub(crate) fn runs(&self) -> &[HookRun] {
        match self {
            Stopped::Blocked { runs, .. } => runs,
            Stopped::Interrupted => &[],
        }
    }
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Blocked { reason, .. } => write!(f, "the verify was {reason}"),
            Stopped::Interrupted => f.write_str("the verify's hooks were interrupted"),
        }
    }
}

impl std::error::Error for Stopped {}

/// A block is the task's own refusal (exit 4); a cut is Ctrl-C's (exit 130).
impl From<Stopped> for MendError {
    fn from(stopped: Stopped) -> MendError {
        match stopped {
            Stopped::Blocked { .. } => MendError::refused(stopped.to_string()),
            Stopped::Interrupted => MendError::interrupted(stopped.to_string()),
        }
    }
}

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

    fn run(&self, event: HookEvent, response: Option<&Value>) -> Result<Vec<HookRun>, Stopped> {
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
            .map_err(|_| Stopped::Interrupted)
    }

    /// The `PreToolUse` hooks: their runs, or why the tests do not run.
    pub(crate) fn before(&self) -> Result<Vec<HookRun>, Stopped> {
        let runs = self.run(HookEvent::PreToolUse, None)?;
        match outcome(&runs) {
            Outcome::Blocked { reason } => Err(Stopped::Blocked { runs, reason }),
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

#[cfg(test)]
mod tests {
    use super::Stopped;
    use crate::error::MendError;

    #[test]
    fn a_block_refuses_the_verify_and_a_cut_is_an_interrupt() {
        let blocked = Stopped::Blocked {
            runs: Vec::new(),
            reason: "blocked by the PreToolUse hook `gate`: no tests today".to_owned(),
        };
        assert_eq!(
            [
                MendError::from(blocked),
                MendError::from(Stopped::Interrupted)
            ],
            [
                MendError::refused(
                    "the verify was blocked by the PreToolUse hook `gate`: no tests today"
                ),
                MendError::interrupted("the verify's hooks were interrupted"),
            ]
        );
    }
}
