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

/// Anthropic Messages: the system prompt apart, assistant turns as their signed thinking blocks
/// (unchanged, first), then `text` and `tool_use` blocks, every run of tool results as one user
/// message of `tool_result` blocks. Unsigned thinking is not sent back: Anthropic refuses it.
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
                let mut blocks = message.signed_thinking.clone();
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
    /// The thinking block being read, by content-block index, whole as the server sends it: a
    /// signed one goes back unchanged in the next request, as Anthropic requires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thinking_block: Option<(u64, Value)>,
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
                self.end_thinking_block(Some(index), &mut deltas);
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
                // A block that never saw its stop is still whole once the message ends.
                deltas
                    .tool_calls
                    .extend(self.tools.drain(..).map(ToolBlock::into_call));
                self.end_thinking_block(None, &mut deltas);
                deltas.done = Some(Box::new(Done {
                    cut_off: self.stop_reason.as_deref() == Some("max_tokens"),
                    reason: self.stop_reason.clone(),
                    metrics: self.metrics.clone(),
                }));
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
                deltas.thinking = block["thinking"].as_str().unwrap_or_default().to_owned();
                self.thinking_block = Some((data["index"].as_u64().unwrap_or(0), block.clone()));
            }
            Some("redacted_thinking") => {
                self.thinking_block = Some((data["index"].as_u64().unwrap_or(0), block.clone()));
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
                deltas.thinking = delta["thinking"].as_str().unwrap_or_default().to_owned();
                self.extend_thinking_block("thinking", &deltas.thinking);
            }
            Some("signature_delta") => {
                self.extend_thinking_block("signature", delta["signature"].as_str().unwrap_or(""));
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

    /// Appends a fragment to a field of the open thinking block, as the server's whole block
    /// would hold it.
    fn extend_thinking_block(&mut self, field: &str, fragment: &str) {
        if let Some((_, Value::Object(block))) = &mut self.thinking_block {
            let mut joined = block
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            joined.push_str(fragment);
            block.insert(field.to_owned(), Value::String(joined));
        }
    }

    /// The thinking block `index` ended (`None`: the message did): it is kept to go back only
    /// when the server signed it; an unsigned one (a local server's) is read as thinking alone.
    fn end_thinking_block(&mut self, index: Option<u64>, deltas: &mut Deltas) {
        let Some((open, block)) = self.thinking_block.take() else {
            return;
        };
        if index.is_some_and(|index| index != open) {
            self.thinking_block = Some((open, block));
            return;
        }
        let signed = match block["type"].as_str() {
            Some("thinking") => block["signature"].as_str().is_some_and(|s| !s.is_empty()),
            Some("redacted_thinking") => block["data"].as_str().is_some_and(|d| !d.is_empty()),
            _ => false,
        };
        if signed {
            deltas.signed_thinking.push(block);
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
                // A thinking block without a signature (a local server's) is not sent back.
                signed_thinking: Vec::new(),
                done: Some(Box::new(Done {
                    reason: Some("tool_use".to_owned()),
                    cut_off: false,
                    metrics: TurnMetrics {
                        prompt_eval_count: Some(12),
                        eval_count: Some(9),
                        ..TurnMetrics::default()
                    },
                })),
            }
        );
    }

    #[test]
    fn signed_thinking_blocks_are_kept_whole_and_unsigned_ones_are_not() {
        let events = [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Read "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "a.py first."}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCkgIAR"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "ABGAIiQ=="}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "thinking", "thinking": "unsigned"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "content_block_start", "index": 3, "content_block": {"type": "thinking", "thinking": "cut"}}),
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "signature_delta", "signature": "SIG3"}}),
            json!({"type": "message_stop"}),
        ];
        let mut state = State::default();
        let mut signed = Vec::new();
        let mut thinking = String::new();
        for event in events {
            for line in [format!("data: {event}"), String::new()] {
                if let LineDecoded::Chunk(deltas) = state.decode_line(line.as_bytes()).unwrap() {
                    thinking.push_str(&deltas.thinking);
                    signed.extend(deltas.signed_thinking);
                }
            }
        }
        // The text is still thinking to show; the signed blocks, whole and in order, go back.
        assert_eq!(
            (thinking, signed),
            (
                "Read a.py first.unsignedcut".to_owned(),
                vec![
                    json!({"type": "thinking", "thinking": "Read a.py first.", "signature": "EqQBCkgIARABGAIiQ=="}),
                    json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}),
                    json!({"type": "thinking", "thinking": "cut", "signature": "SIG3"}),
                ]
            )
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
