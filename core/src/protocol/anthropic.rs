//! Anthropic's Messages stream: SSE events `message_start`, `content_block_start/delta/stop`
//! (text, thinking, `tool_use` with `input_json_delta` fragments), `message_delta` with the stop
//! reason, `message_stop`, `ping` and `error`.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::http::Endpoint;
use super::sse::SseFramer;
use super::{
    call_arguments, error_message, DecodeError, Deltas, Done, LineDecoded, ModelCall, TurnMetrics,
};
use crate::wire::{ChatRequest, Role};

/// The Messages endpoint, at the API version whose stream format this file reads; the key goes
/// in `x-api-key` as it is.
pub(super) const ENDPOINT: Endpoint = Endpoint {
    path: "/v1/messages",
    headers: &[("anthropic-version", "2023-06-01")],
    api_key: Some(("x-api-key", "")),
};

// Serializing a request body cannot fail: every map has string keys and no type has a fallible
// `Serialize`; the empty fallback only satisfies the type.

/// Anthropic Messages: the system prompt apart, assistant turns as `text` and `tool_use` blocks,
/// every run of tool results as one user message of `tool_result` blocks. Thinking is not sent
/// back: Anthropic requires signatures mend does not keep.
pub(super) fn request_body(request: &ChatRequest) -> Vec<u8> {
    let mut system = String::new();
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::System => {
                // The system prompt, the project's instructions and the hint read as paragraphs.
                if !system.is_empty() {
                    system.push_str("\n\n");
                }
                system.push_str(&message.content);
            }
            Role::User => messages.push(json!({"role": "user", "content": message.content})),
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !message.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": message.content}));
                }
                for call in &message.tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.function.name,
                        "input": call.function.arguments,
                    }));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": ""}));
                }
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Role::Tool => {
                let block = json!({"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content});
                let joins_previous = messages.last().is_some_and(|last| {
                    last["role"] == "user" && last["content"].as_array().is_some()
                });
                match messages
                    .last_mut()
                    .and_then(|last| last["content"].as_array_mut())
                {
                    Some(blocks) if joins_previous => blocks.push(block),
                    _ => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| json!({"name": tool.function.name, "description": tool.function.description, "input_schema": tool.function.parameters}))
        .collect();
    let mut body = json!({
        "model": request.model,
        "system": system,
        "messages": messages,
        "tools": tools,
        "stream": true,
        "temperature": request.options.temperature,
        "max_tokens": request.options.num_predict,
    });
    // A level is a budget of thinking tokens; Anthropic takes no temperature beside it.
    if let Some(budget) = request.think.anthropic_budget(request.options.num_predict) {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        if let Some(object) = body.as_object_mut() {
            object.remove("temperature");
        }
    }
    serde_json::to_vec(&body).unwrap_or_default()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct State {
    framer: SseFramer,
    /// Tool-use blocks being built, by content-block index.
    tools: Vec<ToolBlock>,
    stop_reason: Option<String>,
    metrics: TurnMetrics,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ToolBlock {
    index: u64,
    id: String,
    name: String,
    /// `input` from the block's start, used when no fragment follows.
    start_input: Value,
    json: String,
}

impl State {
    pub(super) fn decode_line(&mut self, line: &[u8]) -> Result<LineDecoded, DecodeError> {
        let Some(event) = self.framer.push(line)? else {
            return Ok(LineDecoded::Blank);
        };
        let data: Value = event.json_object()?;
        let kind = data["type"]
            .as_str()
            .or(event.event.as_deref())
            .unwrap_or_default();
        let mut deltas = Deltas::default();
        match kind {
            "error" => {
                let message = error_message(&data["error"]).unwrap_or_else(|| event.data.clone());
                return Ok(LineDecoded::ServerError { message });
            }
            "message_start" => {
                // `input_tokens` leaves out what came from the cache: the prompt is all three.
                let usage = &data["message"]["usage"];
                let cached = usage["cache_read_input_tokens"].as_u64();
                let written = usage["cache_creation_input_tokens"].as_u64().unwrap_or(0);
                self.metrics.prompt_eval_count = usage["input_tokens"]
                    .as_u64()
                    .map(|tokens| tokens + written + cached.unwrap_or(0));
                self.metrics.prompt_eval_cached_count = cached;
            }
            "content_block_start" => self.block_start(&data, &mut deltas),
            "content_block_delta" => self.block_delta(&data, &mut deltas),
            "content_block_stop" => {
                let index = data["index"].as_u64().unwrap_or(0);
                if let Some(at) = self.tools.iter().rposition(|block| block.index == index) {
                    deltas.tool_calls.push(self.tools.remove(at).into_call());
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(tokens) = data["usage"]["output_tokens"].as_u64() {
                    self.metrics.eval_count = Some(tokens);
                }
            }
            "message_stop" => {
                // A block that never saw its stop is still a whole call once the message ends.
                deltas
                    .tool_calls
                    .extend(self.tools.drain(..).map(ToolBlock::into_call));
                deltas.done = Some(Done {
                    cut_off: self.stop_reason.as_deref() == Some("max_tokens"),
                    reason: self.stop_reason.clone(),
                    metrics: self.metrics.clone(),
                });
            }
            _ => {} // ping, and event types added later
        }
        Ok(LineDecoded::Chunk(deltas))
    }

    /// A content block opens: text and thinking may start in it; a tool call starts here.
    fn block_start(&mut self, data: &Value, deltas: &mut Deltas) {
        let block = &data["content_block"];
        match block["type"].as_str() {
            Some("text") => deltas.content = block["text"].as_str().unwrap_or_default().to_owned(),
            Some("thinking") => {
                deltas.thinking = block["thinking"].as_str().unwrap_or_default().to_owned()
            }
            Some("tool_use") => self.tools.push(ToolBlock {
                index: data["index"].as_u64().unwrap_or(0),
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                start_input: block["input"].clone(),
                json: String::new(),
            }),
            _ => {}
        }
    }

    /// A fragment of the open block: text, thinking, or a piece of a call's input JSON.
    fn block_delta(&mut self, data: &Value, deltas: &mut Deltas) {
        let delta = &data["delta"];
        match delta["type"].as_str() {
            Some("text_delta") => {
                deltas.content = delta["text"].as_str().unwrap_or_default().to_owned()
            }
            Some("thinking_delta") => {
                deltas.thinking = delta["thinking"].as_str().unwrap_or_default().to_owned()
            }
            Some("input_json_delta") => {
                let index = data["index"].as_u64().unwrap_or(0);
                if let Some(block) = self
                    .tools
                    .iter_mut()
                    .rev()
                    .find(|block| block.index == index)
                {
                    block
                        .json
                        .push_str(delta["partial_json"].as_str().unwrap_or_default());
                }
            }
            _ => {}
        }
    }
}

impl ToolBlock {
    fn into_call(self) -> ModelCall {
        let arguments = if self.json.trim().is_empty() {
            call_arguments(Some(self.start_input))
        } else {
            call_arguments(Some(Value::String(self.json)))
        };
        ModelCall {
            id: Some(self.id).filter(|id| !id.is_empty()),
            index: Some(self.index),
            name: self.name,
            arguments,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::CallArguments;

    #[test]
    fn reads_text_thinking_and_a_tool_use_in_fragments() {
        let events = [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 12}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "plan"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Reading."}}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": "}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "\"a.py\"}"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
            json!({"type": "message_stop"}),
        ];
        let mut state = State::default();
        let mut joined = Deltas::default();
        for event in events {
            let kind = event["type"].as_str().unwrap().to_owned();
            for line in [
                format!("event: {kind}"),
                format!("data: {event}"),
                String::new(),
            ] {
                if let LineDecoded::Chunk(deltas) = state.decode_line(line.as_bytes()).unwrap() {
                    joined.thinking.push_str(&deltas.thinking);
                    joined.content.push_str(&deltas.content);
                    joined.tool_calls.extend(deltas.tool_calls);
                    joined.done = deltas.done.or(joined.done);
                }
            }
        }
        let Value::Object(path) = json!({"path": "a.py"}) else {
            unreachable!()
        };
        assert_eq!(
            joined,
            Deltas {
                thinking: "plan".to_owned(),
                content: "Reading.".to_owned(),
                tool_calls: vec![ModelCall {
                    id: Some("toolu_1".to_owned()),
                    index: Some(2),
                    name: "read_file".to_owned(),
                    arguments: CallArguments::Object { value: path },
                }],
                done: Some(Done {
                    reason: Some("tool_use".to_owned()),
                    cut_off: false,
                    metrics: TurnMetrics {
                        prompt_eval_count: Some(12),
                        eval_count: Some(9),
                        ..TurnMetrics::default()
                    },
                }),
            }
        );
    }

    #[test]
    fn max_tokens_is_cut_off_and_an_error_event_is_an_error() {
        let mut state = State::default();
        for line in [
            r#"data: {"type":"message_delta","delta":{"stop_reason":"max_tokens"}}"#,
            "",
        ] {
            state.decode_line(line.as_bytes()).unwrap();
        }
        state
            .decode_line(br#"data: {"type":"message_stop"}"#)
            .unwrap();
        let LineDecoded::Chunk(deltas) = state.decode_line(b"").unwrap() else {
            panic!()
        };
        assert!(deltas.done.is_some_and(|done| done.cut_off));
        let mut state = State::default();
        state.decode_line(br#"data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#).unwrap();
        assert_eq!(
            state.decode_line(b"").unwrap(),
            LineDecoded::ServerError {
                message: "Overloaded".to_owned()
            }
        );
    }
}
