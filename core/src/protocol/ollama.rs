//! Ollama's native NDJSON chunks: text, thinking and whole tool calls on any line, the turn
//! complete at `done: true`.
//!
//! Every line is parsed once, into borrowed fields where the text allows it. The top-level
//! `error` key is checked before anything else is read, because a server can answer HTTP 200 and
//! then report a failure inside the stream. Keys may come in any order and unknown keys are
//! ignored: the chunk shape has grown over many server generations.

use crate::prelude::*;

use alloc::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::schema::kind_of;

use super::http::Endpoint;
use super::{
    call_arguments, error_message, malformed, CallArguments, DecodeError, Deltas, Done,
    LineDecoded, ModelCall, TurnMetrics,
};
use crate::wire::ChatRequest;

/// Ollama's native chat endpoint; a local server needs no key.
pub(super) const ENDPOINT: Endpoint = Endpoint {
    path: "/api/chat",
    headers: &[],
    api_key: None,
};

// Serializing a request body cannot fail: every map has string keys and no type has a fallible
// `Serialize`; the empty fallback only satisfies the type.

/// Ollama's `/api/chat` body is the session's own request type.
pub(super) fn request_body(request: &ChatRequest) -> Vec<u8> {
    serde_json::to_vec(request).unwrap_or_default()
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct RawChunk<'a> {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default, borrow)]
    message: Option<RawMessage<'a>>,
    #[serde(default)]
    done: Option<bool>,
    #[serde(default, borrow)]
    done_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    total_duration: Option<u64>,
    #[serde(default)]
    load_duration: Option<u64>,
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    #[serde(default)]
    prompt_eval_cached_count: Option<u64>,
    #[serde(default)]
    prompt_eval_duration: Option<u64>,
    #[serde(default)]
    eval_count: Option<u64>,
    #[serde(default)]
    eval_duration: Option<u64>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct RawMessage<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    /// Read as loose values: one odd call becomes an error result for the model instead of
    /// failing the whole line.
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

pub(super) fn decode_line(line: &[u8]) -> Result<LineDecoded, DecodeError> {
    let Some(first) = line.iter().position(|byte| !byte.is_ascii_whitespace()) else {
        return Ok(LineDecoded::Blank);
    };
    // A derived struct would also accept a JSON array positionally; a chunk is always an object.
    if line[first] != b'{' {
        return Err(malformed(line, &"a chunk must be a JSON object"));
    }
    let chunk = parse_chunk(line).map_err(|err| malformed(line, &err))?;
    if let Some(message) = chunk.error.as_ref().and_then(error_message) {
        return Ok(LineDecoded::ServerError { message });
    }
    let message = chunk.message.unwrap_or(RawMessage {
        content: None,
        thinking: None,
        tool_calls: None,
    });
    let done = chunk.done.unwrap_or(false).then(|| {
        let reason = chunk.done_reason.filter(|reason| !reason.is_empty());
        Box::new(Done {
            // `length` is the only reason that means "cut off"; `stop`, absent, and unknown
            // values (cloud and proxy builds add their own) all complete the turn.
            cut_off: reason.as_deref() == Some("length"),
            reason: reason.map(Cow::into_owned),
            metrics: TurnMetrics {
                total_duration_ns: chunk.total_duration,
                load_duration_ns: chunk.load_duration,
                prompt_eval_count: chunk.prompt_eval_count,
                prompt_eval_cached_count: chunk.prompt_eval_cached_count,
                prompt_eval_duration_ns: chunk.prompt_eval_duration,
                eval_count: chunk.eval_count,
                eval_duration_ns: chunk.eval_duration,
                thinking_eval_count: None,
            },
        })
    });
    Ok(LineDecoded::Chunk(Deltas {
        thinking: message.thinking.map(Cow::into_owned).unwrap_or_default(),
        content: message.content.map(Cow::into_owned).unwrap_or_default(),
        // Most lines carry no calls: collecting an empty vector still cost ~100 instructions a
        // line (a tenth of what the core adds to the parse).
        tool_calls: match message.tool_calls {
            Some(calls) if !calls.is_empty() => calls.into_iter().map(model_call).collect(),
            _ => Vec::new(),
        },
        signed_thinking: Vec::new(),
        done,
    }))
}

/// Parses a line into its chunk. A line that is valid UTF-8 as a whole (every line a server
/// sends) is parsed as text: `from_slice` checks each string it borrows on its own, every key
/// and value, which cost about a tenth of the core's time a line (callgrind), while one check of
/// the whole line costs a few instructions a word. Any other line goes to `from_slice` as
/// before, so what it accepts and the error it reports are unchanged (a proptest compares both).
fn parse_chunk(line: &[u8]) -> Result<RawChunk<'_>, serde_json::Error> {
    match core::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(line),
    }
}

/// Reads one element of `message.tool_calls` (a whole call, its arguments an object) without ever
/// failing: whatever is missing or malformed is reported to the model through validation.
fn model_call(raw: Value) -> ModelCall {
    let Value::Object(mut call) = raw else {
        return ModelCall {
            id: None,
            index: None,
            name: String::new(),
            arguments: CallArguments::Unreadable {
                problem: format!("the tool call is {}, not an object", kind_of(&raw)),
            },
        };
    };
    let id = match call.remove("id") {
        Some(Value::String(id)) if !id.is_empty() => Some(id),
        _ => None,
    };
    let mut function = match call.remove("function") {
        Some(Value::Object(function)) => function,
        _ => Map::new(),
    };
    let name = match function.remove("name") {
        Some(Value::String(name)) => name,
        _ => String::new(),
    };
    ModelCall {
        id,
        index: function.get("index").and_then(Value::as_u64),
        name,
        arguments: call_arguments(function.remove("arguments")),
    }
}

#[cfg(test)]
#[path = "ollama_tests.rs"]
mod tests;
