//! The codec boundary: one raw line of a server's stream in, normalized deltas out; and the
//! conversation out in the server's own request shape.
//!
//! The session never looks at wire JSON. Each turn gets a fresh [`Decoder`] that turns each line
//! into a [`LineDecoded`]: nothing (framing), a server error, or the deltas of one chunk. Three
//! protocols feed the same session: Ollama's NDJSON, OpenAI-compatible chat-completions SSE and
//! Anthropic's Messages SSE.

use crate::prelude::*;

mod anthropic;
mod ollama;
mod openai;
mod request;
mod sse;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema::kind_of;
use crate::wire::ChatRequest;

/// The wire protocol a model server speaks: how a request is sent and how its streamed lines
/// read. mend's one word for it, in the config, the actions, the task file, the command line and
/// the record. Its name ([`Protocol::name`]) is also its JSON; the names older cores wrote
/// (`ollama_ndjson`, `openai_sse`, `anthropic_sse`) still read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Protocol {
    /// `ollama`: Ollama's native `/api/chat`, one JSON object per line.
    #[default]
    #[serde(rename = "ollama", alias = "ollama_ndjson")]
    OllamaNdjson,
    /// `openai`: OpenAI-compatible `/v1/chat/completions` with `stream: true`, server-sent
    /// events; spoken by llama.cpp, vLLM and others as well as OpenAI.
    #[serde(rename = "openai", alias = "openai_sse")]
    OpenaiSse,
    /// `anthropic`: Anthropic's `/v1/messages` with `stream: true`, server-sent events.
    #[serde(rename = "anthropic", alias = "anthropic_sse")]
    AnthropicSse,
}

impl Protocol {
    /// A fresh decoder for one turn's stream. For fuzz targets: the session owns its decoders.
    #[doc(hidden)]
    pub fn decoder(self) -> Decoder {
        let state = match self {
            Protocol::OllamaNdjson => DecoderState::Ollama,
            Protocol::OpenaiSse => DecoderState::Openai(openai::State::default()),
            Protocol::AnthropicSse => DecoderState::Anthropic(anthropic::State::default()),
        };
        Decoder { state }
    }

    /// The request body in this protocol's shape, ready to send.
    pub fn request_body(self, request: &ChatRequest) -> Vec<u8> {
        match self {
            Protocol::OllamaNdjson => request::ollama(request),
            Protocol::OpenaiSse => request::openai(request),
            Protocol::AnthropicSse => request::anthropic(request),
        }
    }

    /// Every protocol this core speaks, the default first.
    pub const ALL: [Protocol; 3] = [
        Protocol::OllamaNdjson,
        Protocol::OpenaiSse,
        Protocol::AnthropicSse,
    ];

    /// The name users, task files and records know the protocol by.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::OllamaNdjson => "ollama",
            Protocol::OpenaiSse => "openai",
            Protocol::AnthropicSse => "anthropic",
        }
    }

    /// Parses the name users and records know a protocol by (`ollama`, `openai`, `anthropic`).
    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL
            .into_iter()
            .find(|protocol| protocol.name() == name)
    }
}

/// The decoding state of one turn: opaque, serializable like the session that holds it (its JSON
/// is the protocol's state, tagged `codec`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Decoder {
    state: DecoderState,
}

/// Each protocol's state between lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "codec", rename_all = "snake_case")]
enum DecoderState {
    /// Ollama's NDJSON needs no state between lines.
    Ollama,
    /// OpenAI's SSE: the event being framed and the calls being joined.
    Openai(openai::State),
    /// Anthropic's SSE: the event being framed and the content blocks being joined.
    Anthropic(anthropic::State),
}

impl Decoder {
    /// Decodes one line of the current turn. Never panics, whatever the bytes.
    pub fn decode_line(&mut self, line: &[u8]) -> Result<LineDecoded, DecodeError> {
        match &mut self.state {
            DecoderState::Ollama => ollama::decode_line(line),
            DecoderState::Openai(state) => state.decode_line(line),
            DecoderState::Anthropic(state) => state.decode_line(line),
        }
    }
}

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
    /// Set when this chunk ends the turn.
    pub done: Option<Done>,
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
