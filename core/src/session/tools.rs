//! Running a turn's calls: one at a time in the model's order, refused ones answered at once,
//! the TODO tool answered by the session itself, each result recorded in the conversation.

use crate::prelude::*;

use alloc::sync::Arc;

use serde_json::Value;

use crate::action::Action;
use crate::config::Config;
use crate::context::{todo_items, todo_result, TODO_TOOL};
use crate::event::{Event, ToolStatus};
use crate::input::{error_result, CallId, ToolOutcome};
use crate::protocol::ModelCall;
use crate::rejection::Rejection;
use crate::validate::validate_call;
use crate::window::{Budget, TrimReason, Trimmed};
use crate::wire::Message;

use super::{count, trimmed_event, CheckedCall, Phase, Queue, Session, Verdict};

impl Session {
    pub(super) fn on_tool_finished(
        &mut self,
        call_id: &CallId,
        outcome: ToolOutcome,
        actions: &mut Queue,
    ) -> Result<(), Rejection> {
        let Phase::RunningTools {
            turn, in_flight, ..
        } = &mut self.phase
        else {
            return Err(Rejection::NoToolRunning {
                call_id: call_id.clone(),
            });
        };
        let turn = *turn;
        let call = match in_flight.take() {
            Some(call) if call.call_id == *call_id => call,
            other => {
                let call_id = call_id.clone();
                let reason = match &other {
                    Some(running) => Rejection::OtherToolRunning {
                        call_id,
                        running: running.call_id.clone(),
                    },
                    None => Rejection::NoToolRunning { call_id },
                };
                *in_flight = other;
                return Err(reason);
            }
        };
        let status = match outcome {
            ToolOutcome::Success { .. } => ToolStatus::Ok,
            ToolOutcome::Failure { .. } => ToolStatus::Failed,
        };
        self.record_result(turn, &call, status, outcome.result_value(), actions);
        self.advance_tools(actions);
        Ok(())
    }

    /// Answers refused calls at once and dispatches the next accepted one; when every call of
    /// the turn has its result, the turn is over ([`Session::after_results`] decides what next).
    pub(super) fn advance_tools(&mut self, actions: &mut Queue) {
        loop {
            let Phase::RunningTools {
                turn,
                waiting,
                in_flight,
            } = &mut self.phase
            else {
                return;
            };
            let turn = *turn;
            let Some(call) = waiting.pop_front() else {
                break;
            };
            match &call.verdict {
                Verdict::Refused { message } => {
                    let result = error_result(message);
                    self.record_result(turn, &call, ToolStatus::Refused, result, actions);
                }
                Verdict::Accepted { arguments } => {
                    actions.push_back(Action::Emit(Event::ToolStart {
                        turn,
                        index: call.index,
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                        arguments: arguments.clone(),
                    }));
                    // The TODO list is session state: the core answers its tool itself.
                    if call.name == TODO_TOOL && self.config.context.is_some() {
                        let (status, result) = match todo_items(arguments) {
                            Ok(items) => {
                                let result = todo_result(&items);
                                self.todo = items;
                                (ToolStatus::Ok, result)
                            }
                            Err(message) => (ToolStatus::Failed, error_result(&message)),
                        };
                        self.record_result(turn, &call, status, result, actions);
                        continue;
                    }
                    actions.push_back(Action::DispatchTool {
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                        arguments: arguments.clone(),
                    });
                    *in_flight = Some(call);
                    return;
                }
            }
        }
        let Phase::RunningTools { turn, .. } = self.phase else {
            return;
        };
        self.after_results(turn, actions);
    }

    fn record_result(
        &mut self,
        turn: u32,
        call: &CheckedCall,
        status: ToolStatus,
        mut result: Value,
        actions: &mut Queue,
    ) {
        let mut content = result.to_string();
        if let Some((capped, text, before)) = self
            .config
            .window
            .and_then(|window| Budget::cap(&window, &result, &content))
        {
            let after = text.len() as u64;
            result = capped;
            content = text;
            let trimmed = Trimmed {
                message: count(self.conversation.len()),
                name: call.name.clone(),
                bytes_before: before,
                bytes_after: after,
            };
            actions.push_back(trimmed_event(turn, TrimReason::Capped, trimmed));
        }
        let counts = self.stats.per_tool.entry(call.name.clone()).or_default();
        match status {
            ToolStatus::Ok => counts.ok += 1,
            ToolStatus::Failed => counts.failed += 1,
            ToolStatus::Refused => counts.refused += 1,
        }
        self.conversation.push(Arc::new(Message::tool_result(
            &call.name,
            call.wire_id.as_deref(),
            content,
        )));
        actions.push_back(Action::Emit(Event::ToolResult {
            turn,
            index: call.index,
            call_id: call.call_id.clone(),
            name: call.name.clone(),
            status,
            result,
        }));
    }
}

pub(super) fn check_call(turn: u32, index: u32, call: &ModelCall, config: &Config) -> CheckedCall {
    let verdict = match validate_call(call, &config.tools) {
        Ok(arguments) => Verdict::Accepted {
            arguments: arguments.clone(),
        },
        Err(message) => Verdict::Refused { message },
    };
    CheckedCall {
        index,
        call_id: CallId(
            call.id
                .clone()
                .unwrap_or_else(|| format!("mend_{turn}_{index}")),
        ),
        wire_id: call.id.clone(),
        name: call.name.clone(),
        verdict,
    }
}
