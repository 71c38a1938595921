//! OpenAI-compatible chat-completions streams: SSE events of `chat.completion.chunk`
//! objects, tool-call arguments in string fragments joined per call, the turn complete only at
//! `data: [DONE]`.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::http::Endpoint;
use super::sse::{SseEvent, SseFramer};
use super::{
    call_arguments, error_message, DecodeError, Deltas, Done, LineDecoded, ModelCall, TurnMetrics,
};
use crate::think::Think;
use crate::wire::{ChatRequest, Message, Role, SchemaField};

/// Chat completions; the key goes as a bearer token.
pub(super) const ENDPOINT: Endpoint = Endpoint {
    path: "/v1/chat/completions",
    headers: &[],
    api_key: Some(("authorization", "Bearer ")),
};

// Serializing a request body cannot fail: every map has string keys and no type has a fallible
// `Serialize`; the empty fallback only satisfies the type.

/// OpenAI chat completions: assistant `tool_calls` with `type: "function"` and string arguments,
/// tool results with `tool_call_id`, reasoning sent back as `reasoning` (what Ollama's /v1 reads).
pub(super) fn request_body(request: &ChatRequest) -> Vec<u8> {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| openai_message(message))
        .collect();
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| json!({"type": "function", "function": tool.function}))
        .collect();
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "tools": tools,
        "stream": true,
        "stream_options": {"include_usage": true},
        "temperature": request.options.temperature,
        "seed": request.options.seed,
        "max_tokens": request.options.num_predict,
    });
    openai_think(&mut body, request.think);
    if let Some(schema) = &request.format {
        // The server enforces the schema as a grammar; the call is the answer itself.
        match request.schema_field {
            SchemaField::StructuredOutputs => {
                body["structured_outputs"] = json!({"json": schema});
            }
            SchemaField::ResponseFormat => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "tool_call", "strict": true, "schema": schema},
                });
            }
        }
        if let Some(object) = body.as_object_mut() {
            object.remove("tools");
        }
    }
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Thinking as OpenAI-compatible servers take it: a level as `reasoning_effort` (OpenAI, vLLM,
/// Ollama's /v1) and in `chat_template_kwargs` (llama-server hands those to the template, as
/// gpt-oss's reads it); off as the template's `enable_thinking: false` (Qwen3's templates, on
/// llama-server and vLLM). `on` leaves the server's default.
fn openai_think(body: &mut Value, think: Think) {
    match (think, think.level()) {
        (_, Some(level)) => {
            body["reasoning_effort"] = json!(level);
            body["chat_template_kwargs"] =
                json!({"enable_thinking": true, "reasoning_effort": level});
        }
        (Think::Off, None) => body["chat_template_kwargs"] = json!({"enable_thinking": false}),
        _ => {}
    }
}

fn openai_message(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".to_owned(), json!(role_name(message.role)));
    out.insert("content".to_owned(), json!(message.content));
    if let Some(thinking) = &message.thinking {
        out.insert("reasoning".to_owned(), json!(thinking));
    }
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.function.name,
                        "arguments": Value::Object(call.function.arguments.clone()).to_string(),
                    },
                })
            })
            .collect();
        out.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    if let Some(id) = &message.tool_call_id {
        out.insert("tool_call_id".to_owned(), json!(id));
    }
    if let Some(name) = &message.tool_name {
        out.insert("name".to_owned(), json!(name));
    }
    Value::Object(out)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// One turn's decoding state: the event being framed and the calls being built.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct State {
    framer: SseFramer,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    metrics: TurnMetrics,
}

/// A call whose argument fragments are still arriving.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

impl State {
    pub(super) fn decode_line(&mut self, line: &[u8]) -> Result<LineDecoded, DecodeError> {
        match self.framer.push(line)? {
            None => Ok(LineDecoded::Blank),
            Some(event) => self.event(event),
        }
    }

    fn event(&mut self, event: SseEvent) -> Result<LineDecoded, DecodeError> {
        if event.data.trim() == "[DONE]" {
            return Ok(LineDecoded::Chunk(self.finish()));
        }
        let chunk: Value = event.json_object()?;
        // openai-python raises on any event whose data has a truthy `error`.
        if let Some(message) = chunk.get("error").and_then(error_message) {
            return Ok(LineDecoded::ServerError { message });
        }
        if event.event.as_deref() == Some("error") {
            return Ok(LineDecoded::ServerError {
                message: event.data,
            });
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            let prompt = usage.get("prompt_tokens").and_then(Value::as_u64);
            raise(&mut self.metrics.prompt_eval_count, prompt);
            self.metrics.eval_count = usage.get("completion_tokens").and_then(Value::as_u64);
            self.metrics.prompt_eval_cached_count = usage
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64);
            self.metrics.thinking_eval_count = usage
                .pointer("/completion_tokens_details/reasoning_tokens")
                .and_then(Value::as_u64);
        }
        // llama.cpp's server adds its own timings to the last chunk: the only durations an
        // OpenAI-style stream carries.
        if let Some(timings) = chunk.get("timings").filter(|timings| timings.is_object()) {
            let nanos = |key: &str| {
                timings
                    .get(key)
                    .and_then(Value::as_f64)
                    .filter(|ms| ms.is_finite() && *ms >= 0.0)
                    .map(|ms| (ms * 1e6) as u64)
            };
            self.metrics.prompt_eval_duration_ns = nanos("prompt_ms");
            self.metrics.eval_duration_ns = nanos("predicted_ms");
            let cached = timings.get("cache_n").and_then(Value::as_u64);
            if cached.is_some() {
                self.metrics.prompt_eval_cached_count = cached;
            }
            // `prompt_n` is only what was processed anew: the prompt is both.
            let processed = timings.get("prompt_n").and_then(Value::as_u64);
            if let Some(processed) = processed {
                let whole = processed.saturating_add(cached.unwrap_or(0));
                raise(&mut self.metrics.prompt_eval_count, Some(whole));
            }
        }
        let mut deltas = Deltas::default();
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
        else {
            return Ok(LineDecoded::Chunk(deltas));
        };
        let delta = &choice["delta"];
        deltas.content = delta["content"].as_str().unwrap_or_default().to_owned();
        // Ollama's /v1 sends `reasoning`; other servers `reasoning_content`.
        let reasoning = delta["reasoning"]
            .as_str()
            .or_else(|| delta["reasoning_content"].as_str());
        deltas.thinking = reasoning.unwrap_or_default().to_owned();
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            self.absorb_call_fragment(fragment);
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(LineDecoded::Chunk(deltas))
    }

    /// Appends a fragment to the call it continues. Calls are keyed by `index`, except that a
    /// different `id` at an index already in use starts a new call: Ollama's /v1 reports index 0
    /// for every call of some parsers.
    fn absorb_call_fragment(&mut self, fragment: &Value) {
        let index = fragment["index"].as_u64().unwrap_or(0);
        let id = fragment["id"]
            .as_str()
            .filter(|id| !id.is_empty())
            .map(str::to_owned);
        let function = &fragment["function"];
        let continues = self
            .calls
            .iter()
            .rposition(|call| call.index == index)
            .filter(|at| {
                let held = &self.calls[*at].id;
                id.is_none() || held.is_none() || *held == id
            });
        let call = match continues {
            Some(at) => &mut self.calls[at],
            None => {
                self.calls.push(PartialCall {
                    index,
                    id: None,
                    name: String::new(),
                    arguments: String::new(),
                });
                let last = self.calls.len() - 1;
                &mut self.calls[last]
            }
        };
        if call.id.is_none() {
            call.id = id;
        }
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        if let Some(arguments) = function["arguments"].as_str() {
            call.arguments.push_str(arguments);
        }
    }

    /// `[DONE]`: the calls are whole now; `length` means the output was cut off.
    fn finish(&mut self) -> Deltas {
        let calls = core::mem::take(&mut self.calls);
        Deltas {
            tool_calls: calls
                .into_iter()
                .enumerate()
                .map(|(position, call)| ModelCall {
                    // History in OpenAI's shape needs an id to answer; a server that sent none
                    // gets a stable one.
                    id: Some(call.id.unwrap_or_else(|| format!("call_{position}"))),
                    index: Some(call.index),
                    name: call.name,
                    arguments: call_arguments(Some(Value::String(call.arguments))),
                })
                .collect(),
            done: Some(Box::new(Done {
                cut_off: self.finish_reason.as_deref() == Some("length"),
                reason: self.finish_reason.clone(),
                metrics: self.metrics.clone(),
            })),
            ..Deltas::default()
        }
    }
}

/// Keeps the larger of two readings of the same count: `usage` and llama.cpp's `timings` may
/// both give the prompt's size, and either may leave out the cached tokens.
fn raise(slot: &mut Option<u64>, reading: Option<u64>) {
    if let Some(reading) = reading {
        *slot = Some(slot.map_or(reading, |held| held.max(reading)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::CallArguments;

    fn decode(lines: &[&str]) -> (Deltas, Vec<String>) {
        let mut state = State::default();
        let mut joined = Deltas::default();
        let mut errors = Vec::new();
        for line in lines {
            match state.decode_line(line.as_bytes()) {
                Ok(LineDecoded::Chunk(deltas)) => {
                    joined.content.push_str(&deltas.content);
                    joined.thinking.push_str(&deltas.thinking);
                    joined.tool_calls.extend(deltas.tool_calls);
                    joined.done = deltas.done.or(joined.done);
                }
                Ok(LineDecoded::ServerError { message }) => errors.push(message),
                Ok(LineDecoded::Blank) => {}
                Err(err) => errors.push(err.message),
            }
        }
        (joined, errors)
    }

    fn object(value: Value) -> CallArguments {
        match value {
            Value::Object(value) => CallArguments::Object { value },
            _ => unreachable!(),
        }
    }

    #[test]
    fn joins_argument_fragments_and_splits_calls_by_id() {
        let (deltas, errors) = decode(&[
            r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning":"hm"}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"a\"}"}}]}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"run_tests","arguments":"{}"}}]}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "",
            r#"data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}}"#,
            "",
            "data: [DONE]",
            "",
        ]);
        assert_eq!(errors, Vec::<String>::new());
        assert_eq!(
            deltas,
            Deltas {
                thinking: "hm".to_owned(),
                content: String::new(),
                tool_calls: vec![
                    ModelCall {
                        id: Some("call_a".to_owned()),
                        index: Some(0),
                        name: "read_file".to_owned(),
                        arguments: object(serde_json::json!({"path": "a"})),
                    },
                    ModelCall {
                        id: Some("call_b".to_owned()),
                        index: Some(0),
                        name: "run_tests".to_owned(),
                        arguments: object(serde_json::json!({})),
                    },
                ],
                signed_thinking: Vec::new(),
                done: Some(Box::new(Done {
                    reason: Some("tool_calls".to_owned()),
                    cut_off: false,
                    metrics: TurnMetrics {
                        prompt_eval_count: Some(10),
                        eval_count: Some(4),
                        ..TurnMetrics::default()
                    },
                })),
            }
        );
    }

    #[test]
    fn cached_tokens_and_llama_cpp_timings_are_read() {
        let (deltas, _) = decode(&[
            r#"data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#,
            "",
            r#"data: {"choices":[],"usage":{"prompt_tokens":3000,"completion_tokens":40,"prompt_tokens_details":{"cached_tokens":2800}},"timings":{"cache_n":2800,"prompt_n":200,"prompt_ms":250.5,"predicted_n":40,"predicted_ms":1000.0}}"#,
            "",
            "data: [DONE]",
            "",
        ]);
        assert_eq!(
            deltas.done.map(|done| done.metrics),
            Some(TurnMetrics {
                prompt_eval_count: Some(3000),
                prompt_eval_cached_count: Some(2800),
                prompt_eval_duration_ns: Some(250_500_000),
                eval_count: Some(40),
                eval_duration_ns: Some(1_000_000_000),
                ..TurnMetrics::default()
            })
        );
    }

    #[test]
    fn length_is_cut_off_and_errors_are_reported() {
        let (deltas, _) = decode(&[
            r#"data: {"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}"#,
            "",
            "data: [DONE]",
            "",
        ]);
        assert!(deltas.done.is_some_and(|done| done.cut_off));
        let (_, errors) = decode(&[
            r#"data: {"error":{"message":"boom","type":"api_error"}}"#,
            "",
        ]);
        assert_eq!(errors, vec!["boom".to_owned()]);
    }
}
