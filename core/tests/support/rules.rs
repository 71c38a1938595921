//! The rules of the core (docs/design.md, "Rules the tests state"), checked step by step over
//! a whole action log. Shared by the property tests and the bounded exhaustive check.

use std::sync::Arc;

use mend_core::{
    Action, CallId, ChatRequest, Event, Input, Message, Millis, Rejection, Role, Session, Stop,
    StopReason, TextCall, TextCallFormat,
};

use super::steps::{expected_recovery, CallTool, Fed, TextForm};

/// What the rules remember between steps. Cheap to clone: the exhaustive check clones it at
/// every node of its search tree.
#[derive(Debug, Clone)]
pub struct Checker {
    max_turns: u32,
    /// The session's token budget, and the tokens its `model_done` events reported so far.
    pub token_budget: Option<u64>,
    tokens: u64,
    requests: u32,
    stops: u32,
    /// The call dispatched and not yet answered.
    pub running: Option<CallId>,
    /// Names of the calls the current turn's lines carried, in order; at the end of a turn
    /// without any, the calls its text must give.
    turn_calls: Vec<&'static str>,
    /// Calls the current turn's lines wrote into the text, and whether there was other text.
    turn_written: Vec<(CallTool, TextForm)>,
    turn_prose: bool,
    /// The current turn's text calls must be recovered, and have not been yet.
    recovery_due: bool,
    /// A repair request is out: its answer is read as one call, not as text calls.
    repairing: bool,
    /// `repair_requested` was emitted and its request is not out yet.
    repair_announced: bool,
    /// Index of the last call of this turn that got a result event, if any.
    last_result: Option<u32>,
    /// How many messages the previous request carried.
    previous_messages: usize,
    pub dispatches: u32,
}

impl Checker {
    /// Checks the actions of `Session::new` and starts remembering.
    pub fn start(max_turns: u32, actions: &[Action]) -> Result<Checker, String> {
        Checker::start_with_budget(max_turns, None, actions)
    }

    /// [`Checker::start`] for a session with a token budget.
    pub fn start_with_budget(
        max_turns: u32,
        token_budget: Option<u64>,
        actions: &[Action],
    ) -> Result<Checker, String> {
        let mut checker = Checker {
            max_turns,
            token_budget,
            tokens: 0,
            requests: 0,
            stops: 0,
            running: None,
            turn_calls: Vec::new(),
            turn_written: Vec::new(),
            turn_prose: false,
            recovery_due: false,
            repairing: false,
            repair_announced: false,
            last_result: None,
            previous_messages: 0,
            dispatches: 0,
        };
        for action in actions {
            checker.action(action, false)?;
        }
        if checker.requests != 1 {
            return Err("a new session must send exactly one request".to_owned());
        }
        Ok(checker)
    }

    pub fn stops(&self) -> u32 {
        self.stops
    }

    pub fn requests(&self) -> u32 {
        self.requests
    }

    /// Checks one transition: `before` fed with `fed` at `now` gave `actions` and became `after`.
    pub fn step(
        &mut self,
        before: &Session,
        fed: &Fed,
        now: Millis,
        actions: &[Action],
        after: &Session,
    ) -> Result<(), String> {
        // Rule 3: after the stop, every input yields nothing and changes nothing.
        if self.stops > 0 {
            return if actions.is_empty() && before == after {
                Ok(())
            } else {
                Err(format!(
                    "input {:?} after the stop gave {actions:?}",
                    fed.input.kind()
                ))
            };
        }
        if let Some(verdict) = self.rejected(before, fed, now, actions, after) {
            return verdict;
        }
        let was_streaming = before.is_streaming();
        if was_streaming && matches!(fed.input, Input::StreamLine(_)) {
            self.line_read(before, fed);
        }
        self.dispatches(fed, was_streaming, actions)?;
        if self.recovery_due {
            return Err(format!(
                "the text calls {:?} were not recovered: {actions:?}",
                self.turn_calls
            ));
        }
        if was_streaming {
            self.turn_end(fed, actions, after)?;
        }
        Ok(())
    }

    /// Rule 8: an input that makes no sense now is rejected, for its reason, and changes
    /// nothing; any other input is not rejected. `None` when the rule has nothing more to say.
    fn rejected(
        &self,
        before: &Session,
        fed: &Fed,
        now: Millis,
        actions: &[Action],
        after: &Session,
    ) -> Option<Result<(), String>> {
        if let Some(reason) = self.rejection(before, &fed.input, now) {
            let expected = [Action::Emit(Event::InputRejected {
                input: fed.input.kind(),
                reason,
            })];
            return Some(if actions == expected && before == after {
                Ok(())
            } else {
                Err(format!(
                    "expected {expected:?} and no change, got {actions:?}"
                ))
            });
        }
        actions
            .iter()
            .find(|action| matches!(action, Action::Emit(Event::InputRejected { .. })))
            .map(|rejected| Err(format!("{rejected:?} for an input that fits its phase")))
    }

    /// A line of the turn: what it calls and writes, and, when it completes a turn without
    /// native calls, the text calls that must be recovered.
    fn line_read(&mut self, before: &Session, fed: &Fed) {
        self.turn_calls.extend(fed.calls.iter().copied());
        self.turn_written.extend(fed.written);
        self.turn_prose |= fed.prose;
        if fed.done == Some(false)
            && self.turn_calls.is_empty()
            && before.config().text_tool_calls
            && !self.repairing
        {
            self.turn_calls = expected_recovery(&self.turn_written, self.turn_prose);
            self.recovery_due = !self.turn_calls.is_empty();
        }
    }

    /// Rule 1: calls are dispatched only by a complete done chunk, or by the result of the
    /// previous call of the same turn; a result answers the running call. Then each action.
    fn dispatches(
        &mut self,
        fed: &Fed,
        was_streaming: bool,
        actions: &[Action],
    ) -> Result<(), String> {
        let may_dispatch = match (&fed.input, fed.done) {
            (Input::StreamLine(_), Some(false)) => was_streaming,
            (Input::ToolFinished { .. }, _) => !was_streaming,
            _ => false,
        };
        if let Input::ToolFinished { call_id, .. } = &fed.input {
            if self.running.as_ref() != Some(call_id) {
                return Err(format!(
                    "a result for {call_id} that was not running was accepted"
                ));
            }
            self.running = None;
        }
        for action in actions {
            if matches!(action, Action::DispatchTool { .. }) && !may_dispatch {
                return Err(format!(
                    "{:?} dispatched a tool: {actions:?}",
                    fed.input.kind()
                ));
            }
            self.action(action, was_streaming)?;
        }
        Ok(())
    }

    /// Rule 6, and a turn's end: broken lines and cut-off turns end the session with their
    /// reason.
    fn turn_end(&self, fed: &Fed, actions: &[Action], after: &Session) -> Result<(), String> {
        let expected = if fed.breaks_stream {
            Some(StopReason::ModelError)
        } else if fed.done == Some(true) && self.repairing {
            // A cut-off repair is no answer: the broken turn's text, never blank since it
            // holds the broken call, stays the final answer.
            Some(StopReason::AssistantFinished)
        } else if fed.done == Some(true) || matches!(fed.input, Input::StreamEnd) {
            Some(StopReason::IncompleteModelTurn)
        } else if let Input::TransportFailed { error } = &fed.input {
            // A server that says the prompt is over its window ends it with its own reason.
            Some(match error {
                mend_core::TransportError::Http { status: 400, .. } => StopReason::ContextExceeded,
                _ => StopReason::ModelError,
            })
        } else {
            None
        };
        match expected {
            Some(reason) if after.stopped().map(|stop| stop.reason) != Some(reason) => {
                Err(format!(
                    "expected stop {reason} after {:?}, got {actions:?}",
                    fed.input.kind()
                ))
            }
            _ => Ok(()),
        }
    }

    /// Why `input` makes no sense to `before`, a running session, if it does not.
    fn rejection(&self, before: &Session, input: &Input, now: Millis) -> Option<Rejection> {
        match input {
            Input::StreamLine(_) | Input::StreamEnd | Input::TransportFailed { .. } => {
                (!before.is_streaming()).then_some(Rejection::NoResponseOpen)
            }
            Input::ToolFinished { call_id, .. } => match &self.running {
                None => Some(Rejection::NoToolRunning {
                    call_id: call_id.clone(),
                }),
                Some(running) if running != call_id => Some(Rejection::OtherToolRunning {
                    call_id: call_id.clone(),
                    running: running.clone(),
                }),
                Some(_) => None,
            },
            Input::DeadlinePassed => match before.next_deadline() {
                None => Some(Rejection::NoDeadline),
                Some(deadline) if now < deadline => {
                    Some(Rejection::DeadlineNotReached { deadline, now })
                }
                Some(_) => None,
            },
            _ => None,
        }
    }

    fn action(&mut self, action: &Action, was_streaming: bool) -> Result<(), String> {
        if self.stops > 0 {
            return Err(format!("{action:?} came after the stop"));
        }
        match action {
            Action::SendRequest { body, .. } => self.request_sent(body)?,
            Action::DispatchTool { call_id, .. } => {
                // Rule 2: one at a time.
                if let Some(running) = &self.running {
                    return Err(format!("{call_id} dispatched while {running} runs"));
                }
                self.running = Some(call_id.clone());
                self.dispatches += 1;
            }
            Action::Emit(Event::ToolStart { index, name, .. }) => self.in_order(*index, name)?,
            Action::Emit(Event::ToolResult { index, name, .. }) => {
                self.in_order(*index, name)?;
                self.result_in_order(*index)?;
            }
            Action::Emit(Event::RepairRequested { .. }) => {
                if self.repairing || self.repair_announced {
                    return Err("a repair requested while one is out".to_owned());
                }
                self.repair_announced = true;
            }
            Action::Emit(Event::RepairUnusable { .. }) if !self.repairing => {
                return Err("repair_unusable with no repair out".to_owned());
            }
            Action::Emit(Event::RecoveredFromText { calls, .. }) => self.recovered(calls)?,
            Action::Emit(Event::TextDelta { .. } | Event::ThinkingDelta { .. })
                if !was_streaming =>
            {
                return Err("a delta outside a stream".to_owned());
            }
            Action::Stop(stop) => self.stopped(stop)?,
            Action::Emit(Event::ModelDone { metrics, .. }) => {
                self.tokens +=
                    metrics.prompt_eval_count.unwrap_or(0) + metrics.eval_count.unwrap_or(0);
            }
            Action::Emit(_) => {}
            other => return Err(format!("an action the rules do not know: {other:?}")),
        }
        Ok(())
    }

    /// Rules 2 and 4 and the token budget for a request; a repair's request apart.
    fn request_sent(&mut self, body: &ChatRequest) -> Result<(), String> {
        // Rule 2: the next request waits for the last result...
        if self.running.is_some() {
            return Err("a request was sent while a tool was running".to_owned());
        }
        self.requests += 1;
        // Rule 4.
        if self.requests > self.max_turns {
            return Err(format!(
                "request {} exceeds max_turns {}",
                self.requests, self.max_turns
            ));
        }
        // The token budget: no request once the finished turns went past it.
        if let Some(budget) = self.token_budget.filter(|budget| self.tokens > *budget) {
            return Err(format!(
                "request {} sent after {} tokens of a budget of {budget}",
                self.requests, self.tokens
            ));
        }
        // A repair is announced as one right before its request, and only then.
        if core::mem::take(&mut self.repair_announced) != body.format.is_some() {
            return Err(format!(
                "a request with format {:?} after repair_requested: {}",
                body.format.is_some(),
                body.format.is_none()
            ));
        }
        if body.format.is_some() {
            // A repair: the broken turn (no calls), then the ask; the next request's
            // return path is checked against the broken turn's request.
            let tail = &body.messages[self.previous_messages.min(body.messages.len())..];
            let broken = tail.first().is_some_and(|message| {
                message.role == Role::Assistant && message.tool_calls.is_empty()
            });
            if self.repairing || tail.len() != 2 || !broken {
                return Err(format!("a repair request that adds {tail:?}"));
            }
            self.repairing = true;
            self.new_turn();
            return Ok(());
        }
        if self.requests > 1 {
            self.check_return_path(&body.messages)?;
        }
        self.repairing = false;
        self.previous_messages = body.messages.len();
        self.new_turn();
        self.last_result = None;
        Ok(())
    }

    fn new_turn(&mut self) {
        self.turn_calls.clear();
        self.turn_written.clear();
        self.turn_prose = false;
    }

    /// Rule 2: a call's start and result come in the model's order.
    fn in_order(&self, index: u32, name: &str) -> Result<(), String> {
        if self.turn_calls.get(index as usize).copied() == Some(name) {
            return Ok(());
        }
        Err(format!(
            "call {index} is `{name}`, but the turn's calls are {:?}",
            self.turn_calls
        ))
    }

    /// Rule 2: results follow one another from the first call.
    fn result_in_order(&mut self, index: u32) -> Result<(), String> {
        if self.last_result.is_some_and(|last| index != last + 1)
            || (self.last_result.is_none() && index != 0)
        {
            return Err(format!(
                "result {index} out of order after {:?}",
                self.last_result
            ));
        }
        self.last_result = Some(index);
        Ok(())
    }

    /// Calls read from the text: a repair's answer is the broken turn's one call; other
    /// recovered calls are the ones the text was due to give.
    fn recovered(&mut self, calls: &[TextCall]) -> Result<(), String> {
        if calls
            .iter()
            .any(|call| call.format == TextCallFormat::RepairedByGrammar)
        {
            let [call] = calls else {
                return Err(format!("a repair gave {calls:?}"));
            };
            let name = ["read_file", "run_tests", "replace_text"]
                .into_iter()
                .find(|name| *name == call.name);
            return match name {
                Some(name) if self.repairing => {
                    self.turn_calls = vec![name];
                    Ok(())
                }
                _ => Err(format!("a repair's call {call:?} out of place")),
            };
        }
        let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
        if !self.recovery_due || names != self.turn_calls {
            return Err(format!(
                "recovered {names:?} where the text's calls were {:?} (due: {})",
                self.turn_calls, self.recovery_due
            ));
        }
        self.recovery_due = false;
        Ok(())
    }

    /// Rule 3: exactly one stop. Only the user or the clock may end a running tool.
    fn stopped(&mut self, stop: &Stop) -> Result<(), String> {
        self.stops += 1;
        let interrupts = matches!(
            stop.reason,
            StopReason::Cancelled | StopReason::DeadlineExceeded
        );
        let over_budget = self.token_budget.is_some_and(|budget| self.tokens > budget);
        if stop.reason == StopReason::BudgetExceeded && !over_budget {
            return Err(format!(
                "budget_exceeded after {} tokens of a budget of {:?}",
                self.tokens, self.token_budget
            ));
        }
        if self.running.is_some() && !interrupts {
            return Err(format!(
                "the session stopped ({}) with a tool still running",
                stop.reason
            ));
        }
        Ok(())
    }

    /// Rule 2: the new request holds the previous messages, then the assistant message with the
    /// turn's calls, then one tool message per call in the same order, refused ones included.
    fn check_return_path(&self, messages: &[Arc<Message>]) -> Result<(), String> {
        let tail = &messages[self.previous_messages.min(messages.len())..];
        let expected_len = 1 + self.turn_calls.len();
        if tail.len() != expected_len {
            return Err(format!(
                "the request added {} messages, expected {expected_len}",
                tail.len()
            ));
        }
        let assistant = &tail[0];
        let call_names: Vec<&str> = assistant
            .tool_calls
            .iter()
            .map(|call| call.function.name.as_str())
            .collect();
        if assistant.role != Role::Assistant || call_names != self.turn_calls {
            return Err(format!(
                "assistant message {assistant:?} does not carry the calls {:?}",
                self.turn_calls
            ));
        }
        for (message, name) in tail[1..].iter().zip(&self.turn_calls) {
            let answers_call =
                message.role == Role::Tool && message.tool_name.as_deref() == Some(*name);
            if !answers_call
                || serde_json::from_str::<serde_json::Value>(&message.content)
                    .map_or(true, |v| !v.is_object())
            {
                return Err(format!(
                    "tool message {message:?} does not answer `{name}` with a JSON object"
                ));
            }
        }
        Ok(())
    }
}
