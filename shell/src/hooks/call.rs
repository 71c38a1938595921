//! One call with its hooks around it: the `PreToolUse` hooks may block it (the model gets the
//! reason as the call's error) or rewrite its arguments; the `PostToolUse` hooks see its result
//! and may object to it (the model gets the objection with the result). A replay passes the
//! recorded runs, and no hook runs again: the decisions are the record's.

use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use crate::error::MendError;
use crate::hooks::gate::Gate;
use crate::hooks::input::Call;
use crate::hooks::outcome::{self as decided, Outcome};
use crate::interrupt::Cut;
use crate::record::hook_run::{HookEvent, HookRun};
use crate::task::claude_code;
use crate::task::hooks::Hooks;
use crate::tools::ToolRun;

/// A call about to run, as the hooks are told of it.
pub(crate) struct Pending<'a> {
    pub call_id: &'a str,
    pub name: &'a str,
    pub arguments: &'a Map<String, Value>,
}

/// Where the decisions come from: hooks run now, or the record's.
pub(crate) enum Deciders<'a> {
    Live { hooks: &'a Hooks, gate: Gate<'a> },
    Recorded(&'a [HookRun]),
}

impl Deciders<'_> {
    /// The copy the hooks run in, which Claude Code's absolute `file_path` lies under (none in
    /// a replay: a recorded path is taken as it was written).
    fn cwd(&self) -> &str {
        match self {
            Deciders::Live { gate, .. } => gate.place.root.as_str(),
            Deciders::Recorded(_) => "",
        }
    }

    fn decide(&self, event: HookEvent, call: &Call) -> Result<Vec<HookRun>, Cut> {
        match self {
            Deciders::Recorded(runs) => Ok(runs
                .iter()
                .filter(|run| run.event == event)
                .cloned()
                .collect()),
            Deciders::Live { hooks, gate } => {
                let matchers = match event {
                    HookEvent::PreToolUse => &hooks.pre_tool_use,
                    HookEvent::PostToolUse => &hooks.post_tool_use,
                    HookEvent::Stop => &hooks.stop,
                };
                let commands = Hooks::for_tool(matchers, call.tool_name);
                if commands.is_empty() {
                    return Ok(Vec::new());
                }
                gate.tool_event(event, &commands, call)
            }
        }
    }
}

/// Runs `execute` for `pending` between its hooks; returns how it ended and every hook's run.
pub(crate) fn around(
    deciders: &Deciders,
    pending: &Pending,
    execute: impl FnOnce(&Map<String, Value>) -> Result<ToolRun, MendError>,
) -> Result<(ToolRun, Vec<HookRun>), MendError> {
    let call = |arguments, response| Call {
        tool_use_id: pending.call_id,
        tool_name: pending.name,
        tool_input: arguments,
        tool_response: response,
    };
    let mut runs = match deciders.decide(HookEvent::PreToolUse, &call(pending.arguments, None)) {
        Ok(runs) => runs,
        Err(cut) => return Ok((ToolRun::Cut(cut), Vec::new())),
    };
    let updated = match decided::outcome(&runs) {
        Outcome::Blocked { reason } => {
            let outcome = ToolOutcome::Failure { message: reason };
            return Ok((ToolRun::Finished(outcome), runs));
        }
        Outcome::Go { updated_input } => updated_input
            .map(|input| claude_code::to_mend_fields(pending.name, &input, deciders.cwd())),
    };
    let arguments = updated.as_ref().unwrap_or(pending.arguments);
    let outcome = match execute(arguments)? {
        ToolRun::Finished(outcome) => outcome,
        cut @ ToolRun::Cut(_) => return Ok((cut, runs)),
    };
    let response = match &outcome {
        ToolOutcome::Success { value } => value.clone(),
        ToolOutcome::Failure { message } => json!({ "error": message }),
    };
    let after = match deciders.decide(HookEvent::PostToolUse, &call(arguments, Some(&response))) {
        Ok(after) => after,
        Err(cut) => return Ok((ToolRun::Cut(cut), runs)),
    };
    let objection = match decided::outcome(&after) {
        Outcome::Blocked { reason } => Some(reason),
        Outcome::Go { .. } => None,
    };
    runs.extend(after);
    let told = told_with(outcome, objection, decided::context(&runs));
    Ok((ToolRun::Finished(told), runs))
}

/// The tool's outcome with what the hooks want the model to read beside it.
fn told_with(
    outcome: ToolOutcome,
    objection: Option<String>,
    context: Option<String>,
) -> ToolOutcome {
    if objection.is_none() && context.is_none() {
        return outcome;
    }
    match outcome {
        ToolOutcome::Success { value } => {
            let mut object = match value {
                Value::Object(object) => object,
                other => Map::from_iter([("result".to_owned(), other)]),
            };
            if let Some(objection) = objection {
                object.insert("hook_objection".to_owned(), json!(objection));
            }
            if let Some(context) = context {
                object.insert("hook_context".to_owned(), json!(context));
            }
            ToolOutcome::Success {
                value: Value::Object(object),
            }
        }
        ToolOutcome::Failure { message } => ToolOutcome::Failure {
            message: [Some(message), objection, context]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("\n"),
        },
    }
}
