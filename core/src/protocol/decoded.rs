//! What one streamed line means once decoded, the same for every protocol: nothing (framing),
//! a server error, or the deltas of one chunk; and the helpers every decoder reads with.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema::kind_of;

/// Tool-call arguments as a server sent them: an object is the native form; a string holding an
/// object is what OpenAI-style servers send; a missing, null or empty value is a call without
/// parameters. Anything else is unreadable.
pub(crate) fn call_arguments(raw: Option<Value>) -> CallArguments {
    match raw {
        None | Some(Value::Null) => CallArguments::Object { value: Map::new() },
        Some(Value::Object(value)) => CallArguments::Object { value },
        Some(Value::String(text)) if text.trim().is_empty() => {
            CallArguments::Object { value: Map::new() }
        }
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(value)) => CallArguments::Object { value },
            Ok(other) => CallArguments::Unreadable {
                problem: format!(
                    "arguments must be a JSON object, got a string holding {}",
                    kind_of(&other)
                ),
            },
            Err(err) => CallArguments::Unreadable {
                problem: format!(
                    "arguments must be a JSON object, got a string that is not JSON ({err})"
                ),
            },
        },
        Some(other) => CallArguments::Unreadable {
            problem: format!("arguments must be a JSON object, got {}", kind_of(&other)),
        },
    }
}

/// The one reader of a server's error message, for stream lines and HTTP error bodies alike
/// ([`crate::input::server_message`]). The text of an `error` field, as the Go client reads it: a non-empty string, or the
/// `message` of an error object (OpenAI and Anthropic), or the value itself as JSON text.
pub(crate) fn error_message(error: &Value) -> Option<String> {
    match error {
        Value::Null | Value::Bool(false) => None,
        Value::String(text) if text.is_empty() => None,
        Value::String(text) => Some(text.clone()),
        Value::Object(object) => match object.get("message") {
            Some(Value::String(text)) => Some(text.clone()),
            _ => Some(error.to_string()),
        },
        other => Some(other.to_string()),
    }
}

/// A decode error that quotes the start of the offending line.
pub(crate) fn malformed(line: &[u8], why: &dyn core::fmt::Display) -> DecodeError {
    let end = line.len().min(ERROR_PREVIEW_BYTES);
    let preview = String::from_utf8_lossy(&line[..end]);
    let ellipsis = if line.len() > end { "…" } else { "" };
    DecodeError {
        message: format!("malformed stream line ({why}): {preview}{ellipsis}"),
    }
}

/// How much of an offending line a decode error quotes: enough to recognise it, never a flood.
const ERROR_PREVIEW_BYTES: usize = 120;

/// What one line of a stream meant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
// One value per line, moved into the session at once and never stored in bulk: boxing the chunk
// would cost an allocation a line for nothing.
#[allow(clippy::large_enum_variant)]
pub enum LineDecoded {
    /// A blank line: framing only, nothing to do.
    Blank,
    /// The server reported an error inside the stream, after its HTTP status said 200.
    ServerError {
        /// The server's message.
        message: String,
    },
    /// The content of one chunk.
    Chunk(Deltas),
}

/// The normalized content of one chunk, in the order it is applied: thinking, then text, then
/// tool calls, then the end of the turn if this chunk ends it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Deltas {
    /// A fragment of reasoning (may be empty).
    pub thinking: String,
    /// A fragment of visible text (may be empty).
    pub content: String,
    /// Whole tool calls this chunk completed.
    pub tool_calls: Vec<ModelCall>,
    /// Thinking blocks this chunk completed that the server signed (Anthropic's `thinking` with
    /// its `signature`, and `redacted_thinking`), each whole as it came: they go back unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signed_thinking: Vec<Value>,
    /// Set when this chunk ends the turn. Boxed: one chunk a turn has it, and every line's
    /// deltas are moved through the decoder and the session (a `Done` inline tripled their size).
    pub done: Option<Box<Done>>,
}

/// One whole tool call as the model made it, before validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCall {
    /// The server's id for the call (`call_xxxxxxxx` since Ollama v0.12.10), if it sent one.
    pub id: Option<String>,
    /// The server's `function.index`, kept for the record; never used to merge calls.
    pub index: Option<u64>,
    /// The tool the model asked for.
    pub name: String,
    /// Its arguments, or why they could not be read.
    pub arguments: CallArguments,
}

/// The arguments of a call: an object, or a reason why they could not be read as one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallArguments {
    /// The arguments object.
    Object {
        /// The object as the server sent it.
        value: Map<String, Value>,
    },
    /// Arguments that are not an object.
    Unreadable {
        /// Why, for the model.
        problem: String,
    },
}

/// The end of a turn, as the server reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Done {
    /// The server's own word for why it stopped (`stop`, `length`, ...), if it gave one.
    pub reason: Option<String>,
    /// True when the output was cut by a token limit: the turn is incomplete and none of its
    /// tool calls may run.
    pub cut_off: bool,
    /// Token counts and durations of the turn.
    pub metrics: TurnMetrics,
}

/// Token counts and durations from the final chunk. Every field is optional on the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnMetrics {
    /// Whole time of the request on the server, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_duration_ns: Option<u64>,
    /// Time spent loading the model, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_duration_ns: Option<u64>,
    /// Tokens of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_count: Option<u64>,
    /// Tokens of the prompt served from the server's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_cached_count: Option<u64>,
    /// Time spent reading the prompt, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_duration_ns: Option<u64>,
    /// Tokens generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_count: Option<u64>,
    /// Of the tokens generated, those of the model's reasoning, where the server says
    /// (`usage.completion_tokens_details.reasoning_tokens`); the answer's are the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_eval_count: Option<u64>,
    /// Time spent generating, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_duration_ns: Option<u64>,
}

/// A line that is not a chunk of the protocol: not UTF-8, not JSON, not an object, or an object
/// of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeError {
    /// What was wrong, quoting the start of the line.
    pub message: String,
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for DecodeError {}
