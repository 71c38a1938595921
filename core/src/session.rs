//! The transition function: one session of the coding-agent loop as a pure state machine.

use crate::prelude::*;

use alloc::collections::VecDeque;
use alloc::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::action::Action;
use crate::assemble::TurnAssembly;
use crate::codec::{Decoder, Deltas, Done, LineDecoded, ModelCall};
use crate::config::{Config, ConfigError};
use crate::context::{hint, todo_items, todo_result, TodoItem, ToolStats, TODO_TOOL};
use crate::event::{Event, ToolStatus};
use crate::input::{error_result, CallId, Input, Millis, ToolOutcome, TransportError};
use crate::repeat::{Repeat, RepeatGuard};
use crate::schema::ToolSpec;
use crate::stop::{Stop, StopCause, StopReason};
use crate::validate::validate_call;
use crate::window::{is_context_error, Budget, TrimReason, Trimmed};
use crate::wire::{ChatRequest, Message};

/// One coding-agent session: a conversation with a model that may call tools.
///
/// # Contract
///
/// - [`Session::new`] checks the config and returns the first actions: a `model_start` event and
///   the `SendRequest` for turn 1.
/// - The caller performs actions in order and reports what happened through
///   [`Session::handle`], one [`Input`] at a time: the lines of the current response body, then
///   its end or its failure; the outcome of each dispatched tool; a cancel; the deadline.
/// - Nothing runs concurrently: at most one request and at most one tool call are in flight, and
///   the session waits for each answer before it asks for the next thing.
/// - Time only comes from the caller, as the `now` of each call, and only moves forward.
///   [`Session::next_deadline`] says when the caller should send `DeadlinePassed`.
/// - The session ends with exactly one `Stop` action. After it, every input yields no action.
/// - An input that makes no sense in the current phase (a tool result nobody asked for, a line
///   while tools run) yields one `input_rejected` event and changes nothing else.
///
/// The session holds no I/O handle: it can be cloned, compared, serialized mid-turn and resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    config: Config,
    /// The streak of identical calls, across turns.
    repeats: RepeatGuard,
    /// Set when the guard has seen enough: the session stops once the turn's results are in.
    stop_for_repeating: Option<String>,
    /// Results so far per tool, for the per-turn context.
    stats: ToolStats,
    /// The model's TODO list, kept through the `todo` tool.
    todo: Vec<TodoItem>,
    /// Prompt + generated tokens of the finished turns, as the server counted them.
    #[serde(default)]
    tokens_used: u64,
    /// What the context window has cost so far (only used with [`Config::window`]).
    #[serde(default)]
    budget: Budget,
    conversation: Vec<Arc<Message>>,
    /// The offered tools, shared by every request.
    tools: Arc<[ToolSpec]>,
    phase: Phase,
}

/// Where the session is. The turn number counts requests sent, from 1. Private: callers ask the
/// session questions ([`Session::turn`], [`Session::is_streaming`], [`Session::stopped`]) instead,
/// so that the phases can change without breaking them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    /// A request is out; its lines are being assembled.
    Streaming {
        turn: u32,
        assembly: TurnAssembly,
        decoder: Decoder,
    },
    /// The turn completed with calls; they are answered one at a time in the model's order.
    RunningTools {
        turn: u32,
        waiting: VecDeque<CheckedCall>,
        in_flight: Option<CheckedCall>,
    },
    Stopped {
        turn: u32,
        stop: Stop,
    },
}

/// A model call after validation: either runnable arguments or the message explaining why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CheckedCall {
    index: u32,
    call_id: CallId,
    /// The server's id, echoed as `tool_call_id` in the result message when present.
    wire_id: Option<String>,
    name: String,
    verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
enum Verdict {
    Accepted { arguments: Map<String, Value> },
    Refused { message: String },
}

impl Session {
    /// Starts a session. Refuses a config it cannot honour (e.g. `max_turns` of 0).
    #[must_use = "the first actions hold the request of turn 1, which must be sent"]
    pub fn new(config: Config) -> Result<(Session, Vec<Action>), ConfigError> {
        config.check()?;
        let conversation = crate::instructions::opening(&config);
        let tools = config.tools.clone().into();
        let decoder = config.codec.decoder();
        let mut session = Session {
            config,
            repeats: RepeatGuard::default(),
            stop_for_repeating: None,
            stats: ToolStats::default(),
            todo: Vec::new(),
            tokens_used: 0,
            budget: Budget::default(),
            conversation,
            tools,
            phase: Phase::Streaming {
                turn: 1,
                assembly: TurnAssembly::default(),
                decoder,
            },
        };
        let mut actions = Vec::new();
        session.start_turn(1, &mut actions);
        Ok((session, actions))
    }

    /// A new session over `conversation` under `config` (checked by the caller), with this
    /// one's TODO list and tool statistics, a fresh turn budget and repetition guard; it starts
    /// by sending turn 1.
    pub(crate) fn continued(
        &self,
        conversation: Vec<Arc<Message>>,
        config: Config,
    ) -> (Session, Vec<Action>) {
        let mut session = Session {
            config,
            repeats: RepeatGuard::default(),
            stop_for_repeating: None,
            stats: self.stats.clone(),
            todo: self.todo.clone(),
            tokens_used: 0,
            budget: self.budget.continued(),
            conversation,
            tools: Arc::clone(&self.tools),
            phase: Phase::Streaming {
                turn: 1,
                assembly: TurnAssembly::default(),
                decoder: self.config.codec.decoder(),
            },
        };
        let mut actions = Vec::new();
        session.start_turn(1, &mut actions);
        (session, actions)
    }

    /// Feeds one input at time `now` and returns what to do next, in order.
    #[must_use = "the actions are the session's decisions; dropping them loses a request, a tool call or the stop"]
    pub fn handle(&mut self, now: Millis, input: Input) -> Vec<Action> {
        let mut actions = Vec::new();
        if matches!(self.phase, Phase::Stopped { .. }) {
            return actions;
        }
        let kind = input.kind();
        let outcome = match input {
            Input::StreamLine { line } => self.on_line(&line, &mut actions),
            Input::StreamEnd => self.on_stream_end(&mut actions),
            Input::TransportFailed { error } => self.on_stream_failure(error, &mut actions),
            Input::ToolFinished { call_id, outcome } => {
                self.on_tool_finished(&call_id, outcome, &mut actions)
            }
            Input::Cancel => {
                self.stop(StopReason::Cancelled, None, &mut actions);
                Ok(())
            }
            Input::DeadlinePassed => self.on_deadline(now, &mut actions),
        };
        if let Err(reason) = outcome {
            actions.push(Action::Emit(Event::InputRejected {
                input: kind,
                reason,
            }));
        }
        actions
    }

    /// When the caller must send `DeadlinePassed`, if the session has a deadline and is running.
    pub fn next_deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Stopped { .. } => None,
            _ => self.config.deadline,
        }
    }

    /// The conversation so far: system, user, then each complete turn and its tool results.
    pub fn conversation(&self) -> &[Arc<Message>] {
        &self.conversation
    }

    /// The config the session was started with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The turn in progress (1-based: how many requests have been sent), or the last one once
    /// the session has stopped.
    pub fn turn(&self) -> u32 {
        match self.phase {
            Phase::Streaming { turn, .. }
            | Phase::RunningTools { turn, .. }
            | Phase::Stopped { turn, .. } => turn,
        }
    }

    /// Prompt + generated tokens of the turns finished so far, as the server counted them in
    /// each `done` (what [`Config::token_budget`] is compared with).
    pub fn tokens_used(&self) -> u64 {
        self.tokens_used
    }

    /// True while the current response body is wanted: the shell stops reading once this is false.
    pub fn is_streaming(&self) -> bool {
        matches!(self.phase, Phase::Streaming { .. })
    }

    /// The stop, once the session has ended.
    pub fn stopped(&self) -> Option<&Stop> {
        match &self.phase {
            Phase::Stopped { stop, .. } => Some(stop),
            _ => None,
        }
    }

    fn on_line(&mut self, line: &[u8], actions: &mut Vec<Action>) -> Result<(), String> {
        let Phase::Streaming {
            turn,
            assembly,
            decoder,
        } = &mut self.phase
        else {
            return Err("a stream line arrived while no response was being read".to_owned());
        };
        let turn = *turn;
        let deltas = match decoder.decode_line(line) {
            Ok(LineDecoded::Blank) => return Ok(()),
            Ok(LineDecoded::Chunk(deltas)) => deltas,
            Ok(LineDecoded::ServerError { message }) => {
                let detail = format!("the server reported an error mid-stream: {message}");
                self.stop(StopReason::ModelError, Some(detail), actions);
                return Ok(());
            }
            Err(error) => {
                self.stop(StopReason::ModelError, Some(error.message), actions);
                return Ok(());
            }
        };
        // The fragments move into the events after the assembly has copied them.
        let Deltas {
            thinking,
            content,
            tool_calls,
            done,
        } = deltas;
        assembly.absorb(&thinking, &content, tool_calls);
        if !thinking.is_empty() {
            actions.push(Action::Emit(Event::ThinkingDelta {
                turn,
                text: thinking,
            }));
        }
        if !content.is_empty() {
            actions.push(Action::Emit(Event::TextDelta {
                turn,
                text: content,
            }));
        }
        if let Some(done) = done {
            self.finish_turn(turn, done, actions);
        }
        Ok(())
    }

    fn on_stream_end(&mut self, actions: &mut Vec<Action>) -> Result<(), String> {
        if !self.is_streaming() {
            return Err("the stream ended while no response was being read".to_owned());
        }
        let detail = "the stream ended without a `done` chunk".to_owned();
        self.stop(StopReason::IncompleteModelTurn, Some(detail), actions);
        Ok(())
    }

    fn on_stream_failure(
        &mut self,
        error: TransportError,
        actions: &mut Vec<Action>,
    ) -> Result<(), String> {
        let detail = error.describe();
        if !self.is_streaming() {
            return Err(format!(
                "a transport failure arrived while no request was out: {detail}"
            ));
        }
        let reason = match &error {
            TransportError::Http { body, .. }
                if is_context_error(&crate::input::server_message(body)) =>
            {
                StopReason::ContextExceeded
            }
            _ => StopReason::ModelError,
        };
        let cause = Some(StopCause::Transport(error));
        self.stop_because(reason, Some(detail), cause, actions);
        Ok(())
    }

    fn on_deadline(&mut self, now: Millis, actions: &mut Vec<Action>) -> Result<(), String> {
        match self.config.deadline {
            Some(deadline) if now >= deadline => {
                let detail = format!("the run passed its deadline at {} ms", deadline.0);
                self.stop(StopReason::DeadlineExceeded, Some(detail), actions);
                Ok(())
            }
            Some(deadline) => Err(format!(
                "the deadline is at {} ms, not yet reached at {} ms",
                deadline.0, now.0
            )),
            None => Err("this session has no deadline".to_owned()),
        }
    }

    /// The turn's `done` arrived: it is complete unless the output was cut off.
    fn finish_turn(&mut self, turn: u32, done: Done, actions: &mut Vec<Action>) {
        let Phase::Streaming { assembly, .. } = &mut self.phase else {
            return;
        };
        let assembly = core::mem::take(assembly);
        let turn_tokens = done
            .metrics
            .prompt_eval_count
            .unwrap_or(0)
            .saturating_add(done.metrics.eval_count.unwrap_or(0));
        self.tokens_used = self.tokens_used.saturating_add(turn_tokens);
        let counted = done.metrics.prompt_eval_count;
        actions.push(Action::Emit(Event::ModelDone {
            turn,
            done_reason: done.reason.clone(),
            tool_calls: count(assembly.calls.len()),
            metrics: done.metrics,
        }));
        // A prompt the server cut: the turn answered a conversation without its start.
        if let Some(window) = self.config.window {
            if let Err(detail) = self.budget.counted(&window, counted) {
                self.stop(StopReason::ContextExceeded, Some(detail), actions);
                return;
            }
        }
        if done.cut_off {
            let reason = done.reason.as_deref().unwrap_or("length");
            let mut detail = format!(
                "the model's output was cut off by the token limit (done_reason: {reason})"
            );
            if !assembly.calls.is_empty() {
                detail.push_str(&format!(
                    "; none of its {} tool call(s) ran",
                    assembly.calls.len()
                ));
            }
            let cause = Some(StopCause::TokenLimit);
            self.stop_because(
                StopReason::IncompleteModelTurn,
                Some(detail),
                cause,
                actions,
            );
            return;
        }
        let mut assembly = assembly;
        if self.config.text_tool_calls {
            if let Some(calls) = crate::text_calls::recover(turn, &mut assembly, &self.config.tools)
            {
                actions.push(Action::Emit(Event::RecoveredFromText { turn, calls }));
            }
        }
        let blank = assembly.content.trim().is_empty();
        let mut waiting = VecDeque::with_capacity(assembly.calls.len());
        for (index, call) in assembly.calls.iter().enumerate() {
            let mut checked = check_call(turn, count(index), call, &self.config);
            match self.repeats.observe(call, self.config.repeat_limits) {
                Repeat::Fresh => {}
                Repeat::Refuse { message } => checked.verdict = Verdict::Refused { message },
                Repeat::Stop { message } => {
                    self.stop_for_repeating = Some(message.clone());
                    checked.verdict = Verdict::Refused { message };
                }
            }
            waiting.push_back(checked);
        }
        self.conversation.push(Arc::new(assembly.into_message()));
        if waiting.is_empty() {
            let reason = if blank {
                StopReason::EmptyResponse
            } else {
                StopReason::AssistantFinished
            };
            self.stop(reason, None, actions);
            return;
        }
        self.phase = Phase::RunningTools {
            turn,
            waiting,
            in_flight: None,
        };
        self.advance_tools(actions);
    }

    fn on_tool_finished(
        &mut self,
        call_id: &CallId,
        outcome: ToolOutcome,
        actions: &mut Vec<Action>,
    ) -> Result<(), String> {
        let Phase::RunningTools {
            turn, in_flight, ..
        } = &mut self.phase
        else {
            return Err(format!(
                "a result for `{call_id}` arrived while no tool was running"
            ));
        };
        let turn = *turn;
        let call = match in_flight.take() {
            Some(call) if call.call_id == *call_id => call,
            other => {
                let reason = match &other {
                    Some(running) => format!(
                        "a result for `{call_id}` arrived while `{}` was running",
                        running.call_id
                    ),
                    None => format!("a result for `{call_id}` arrived while no tool was running"),
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
    /// the turn has its result, sends the next request or stops at the turn budget.
    fn advance_tools(&mut self, actions: &mut Vec<Action>) {
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
                    actions.push(Action::Emit(Event::ToolStart {
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
                    actions.push(Action::DispatchTool {
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
        if let Some(detail) = self.stop_for_repeating.take() {
            self.stop(StopReason::Repeating, Some(detail), actions);
        } else if turn >= self.config.max_turns {
            let detail = format!("the budget of {} turn(s) is spent", self.config.max_turns);
            self.stop(StopReason::MaxTurns, Some(detail), actions);
        } else if let Some(budget) = self.budget_spent() {
            let detail = format!(
                "the budget of {budget} token(s) is spent ({} used)",
                self.tokens_used
            );
            self.stop(StopReason::BudgetExceeded, Some(detail), actions);
        } else {
            self.start_turn(turn + 1, actions);
        }
    }

    /// The token budget, once the finished turns have gone past it.
    fn budget_spent(&self) -> Option<u64> {
        self.config
            .token_budget
            .filter(|budget| self.tokens_used > *budget)
    }

    fn record_result(
        &mut self,
        turn: u32,
        call: &CheckedCall,
        status: ToolStatus,
        mut result: Value,
        actions: &mut Vec<Action>,
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
            actions.push(trimmed_event(turn, TrimReason::Capped, trimmed));
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
        actions.push(Action::Emit(Event::ToolResult {
            turn,
            index: call.index,
            call_id: call.call_id.clone(),
            name: call.name.clone(),
            status,
            result,
        }));
    }

    fn start_turn(&mut self, turn: u32, actions: &mut Vec<Action>) {
        let mut body = self.request(turn);
        let mut estimate = None;
        if let Some(window) = self.config.window {
            let hint = &body.messages[self.conversation.len()..];
            let fitted = self.budget.fit(
                &window,
                self.config.options.num_predict,
                &mut self.conversation,
                hint,
                &self.tools,
            );
            match fitted {
                Ok(fit) => {
                    if !fit.trimmed.is_empty() {
                        body = self.request(turn);
                    }
                    for trimmed in fit.trimmed {
                        actions.push(trimmed_event(turn, TrimReason::Window, trimmed));
                    }
                    estimate = Some(Event::PromptEstimate {
                        turn,
                        tokens: fit.estimate,
                        window: window.tokens,
                    });
                }
                Err(detail) => {
                    self.stop(StopReason::ContextExceeded, Some(detail), actions);
                    return;
                }
            }
        }
        self.phase = Phase::Streaming {
            turn,
            assembly: TurnAssembly::default(),
            decoder: self.config.codec.decoder(),
        };
        actions.push(Action::Emit(Event::ModelStart { turn }));
        actions.extend(estimate.map(Action::Emit));
        actions.push(Action::SendRequest {
            turn,
            body,
            codec: self.config.codec,
        });
    }

    fn request(&self, turn: u32) -> ChatRequest {
        let mut messages = self.conversation.clone();
        if let Some(context) = &self.config.context {
            // After the conversation, never in it: each request gets the hint of its own turn.
            messages.push(Arc::new(hint(
                context,
                turn,
                self.config.max_turns,
                &self.stats,
                &self.todo,
            )));
        }
        ChatRequest {
            model: self.config.model.clone(),
            messages,
            tools: Arc::clone(&self.tools),
            stream: true,
            think: self.config.think,
            keep_alive: self.config.keep_alive,
            options: self.config.options.clone(),
        }
    }

    fn stop(&mut self, reason: StopReason, detail: Option<String>, actions: &mut Vec<Action>) {
        self.stop_because(reason, detail, None, actions);
    }

    fn stop_because(
        &mut self,
        reason: StopReason,
        detail: Option<String>,
        cause: Option<StopCause>,
        actions: &mut Vec<Action>,
    ) {
        let turn = self.turn();
        let stop = Stop {
            reason,
            detail,
            cause,
        };
        actions.push(Action::Emit(Event::Stopped(stop.clone())));
        actions.push(Action::Stop(stop.clone()));
        self.phase = Phase::Stopped { turn, stop };
    }
}

fn check_call(turn: u32, index: u32, call: &ModelCall, config: &Config) -> CheckedCall {
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

fn trimmed_event(turn: u32, reason: TrimReason, trimmed: Trimmed) -> Action {
    Action::Emit(Event::ContextTrimmed {
        turn,
        message: trimmed.message,
        name: trimmed.name,
        reason,
        bytes_before: trimmed.bytes_before,
        bytes_after: trimmed.bytes_after,
    })
}

/// Counts within one turn: a stream line is capped far below `u32::MAX` calls.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
