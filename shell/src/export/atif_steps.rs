//! A record's conversation as ATIF steps: the system prompt (and the project's instructions) as
//! system steps, each message as a user step, each model turn as an agent step — its text,
//! reasoning, calls with their arguments, the calls' results as its observation, its token
//! counts and its times.

use mend_core::Protocol;
use serde_json::{json, Map, Value};

use crate::page::conversation::decode;
use crate::page::view::WENT_ON;
use crate::record::{Message, RecordedCall, RecordedTurn};

/// The token counts of every agent step, added up.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Totals {
    pub prompt: u64,
    pub completion: u64,
    pub cached: u64,
    pub steps: usize,
}

pub(crate) struct Steps<'a> {
    model: &'a str,
    protocol: Protocol,
    steps: Vec<Value>,
    totals: Totals,
}

impl<'a> Steps<'a> {
    pub(crate) fn new(model: &'a str, protocol: Protocol) -> Steps<'a> {
        Steps {
            model,
            protocol,
            steps: Vec::new(),
            totals: Totals::default(),
        }
    }

    /// Adds `step` with the next id (ATIF numbers steps from 1, with no gap).
    fn push(&mut self, fields: Value) {
        let mut step = Map::new();
        step.insert("step_id".to_owned(), json!(self.steps.len() + 1));
        if let Value::Object(fields) = fields {
            step.extend(fields.into_iter().filter(|(_, value)| !value.is_null()));
        }
        self.steps.push(Value::Object(step));
    }

    pub(crate) fn system(&mut self, text: &str) {
        self.push(json!({"source": "system", "message": text}));
    }

    /// A message of the conversation: what was asked, then each turn it led to; the last turn
    /// carries how the session stopped and what its Stop hooks decided.
    pub(crate) fn message(&mut self, message: &Message) {
        self.push(json!({
            "source": "user",
            "message": message.text.as_deref().unwrap_or(WENT_ON),
        }));
        for (index, turn) in message.turns.iter().enumerate() {
            let last = index + 1 == message.turns.len();
            let calls: Vec<&RecordedCall> = message
                .tool_calls
                .iter()
                .filter(|call| call.turn == turn.turn)
                .collect();
            let ending = last.then_some(message);
            self.agent(turn, &calls, ending);
        }
    }

    fn agent(&mut self, turn: &RecordedTurn, calls: &[&RecordedCall], ending: Option<&Message>) {
        let content = decode(self.protocol, turn);
        // Records made before the turns kept their usage still have the `done` chunk's counts.
        let usage = turn.usage.clone().or_else(|| {
            content
                .metrics
                .as_ref()
                .map(|metrics| crate::record::usage::TurnUsage::of(metrics, None))
        });
        let metrics = usage.as_ref().map(|usage| {
            json!({
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.output_tokens,
                "cached_tokens": usage.cached_tokens,
                "extra": usage,
            })
        });
        let usage = usage.unwrap_or_default();
        self.totals.prompt += usage.prompt_tokens.unwrap_or(0);
        self.totals.completion += usage.output_tokens.unwrap_or(0);
        self.totals.cached += usage.cached_tokens.unwrap_or(0);
        self.totals.steps += 1;
        let tool_calls: Vec<Value> = calls.iter().map(|call| tool_call(call)).collect();
        let results: Vec<Value> = calls.iter().map(|call| observation(call)).collect();
        let mut extra = json!({
            "turn": turn.turn,
            "started_ms": turn.started_ms,
            "duration_ms": turn.duration_ms,
            "end": turn.end,
            "request_sha256": turn.request_sha256,
            "done_reason": content.done_reason,
            "problem": content.problem,
        });
        if !turn.trimmed.is_empty() {
            extra["trimmed"] = json!(turn.trimmed);
        }
        if let Some(message) = ending {
            extra["stop"] = json!(message.stop);
            if !message.stop_hooks.is_empty() {
                extra["stop_hooks"] = json!(message.stop_hooks);
            }
        }
        self.push(json!({
            "source": "agent",
            "model_name": self.model,
            "message": content.text,
            "reasoning_content": (!content.thinking.is_empty()).then_some(&content.thinking),
            "tool_calls": (!tool_calls.is_empty()).then_some(tool_calls),
            "observation": (!results.is_empty()).then(|| json!({"results": results})),
            "metrics": metrics,
            "llm_call_count": 1,
            "extra": without_nulls(extra),
        }));
    }

    pub(crate) fn totals(&self) -> Totals {
        self.totals
    }

    pub(crate) fn finish(self) -> Vec<Value> {
        self.steps
    }
}

fn tool_call(call: &RecordedCall) -> Value {
    let mut extra = json!({"status": call.status});
    if let Some(recovered) = &call.recovered_from_text {
        extra["recovered_from_text"] = json!(recovered);
    }
    json!({
        "tool_call_id": call.call_id.0,
        "function_name": call.name,
        "arguments": call.arguments,
        "extra": extra,
    })
}

/// A call's result, as text: a result that is a string as it is, any other as its JSON.
fn observation(call: &RecordedCall) -> Value {
    let content = match &call.result {
        Value::Null => Value::Null,
        Value::String(text) => json!(text),
        other => json!(other.to_string()),
    };
    let mut extra = json!({
        "status": call.status,
        "duration_ms": call.duration_ms,
        "started_ms": call.started_ms,
    });
    if !call.hooks.is_empty() {
        extra["hooks"] = json!(call.hooks);
    }
    json!({
        "source_call_id": call.call_id.0,
        "content": content,
        "extra": without_nulls(extra),
    })
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, value)| !value.is_null())
                .collect(),
        ),
        other => other,
    }
}
