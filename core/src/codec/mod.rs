//! The codec boundary: one raw line of a server's stream in, normalized deltas out.
//!
//! The session never looks at wire JSON. A codec turns each line into a [`LineDecoded`]: nothing
//! (an empty line), a server error, or the deltas of one chunk. Ollama's NDJSON is the first codec;
//! OpenAI-compatible SSE and Anthropic's Messages stream plug in here as further variants of
//! [`Codec`] and feed the same session.

mod ollama;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which wire protocol the session's streamed lines speak.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Codec {
    /// Ollama's native `/api/chat`: one JSON object per line (WIRE.md §1, §3).
    #[default]
    OllamaNdjson,
}

impl Codec {
    /// Decodes one line of the current turn. Never panics, whatever the bytes.
    pub fn decode_line(self, line: &[u8]) -> Result<LineDecoded, DecodeError> {
        match self {
            Codec::OllamaNdjson => ollama::decode_line(line),
        }
    }
}

/// What one line of a stream meant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LineDecoded {
    /// A blank line: framing only, nothing to do.
    Blank,
    /// The server reported an error inside the stream (WIRE.md §4, "Mid-stream").
    ServerError {
        message: String,
    },
    Chunk(Deltas),
}

/// The normalized content of one chunk, in the order it is applied: thinking, then text, then
/// tool calls, then the end of the turn if this chunk ends it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Deltas {
    pub thinking: String,
    pub content: String,
    pub tool_calls: Vec<ModelCall>,
    pub done: Option<Done>,
}

/// One whole tool call as the model made it, before validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCall {
    /// The server's id for the call (`call_xxxxxxxx` since Ollama v0.12.10), if it sent one.
    pub id: Option<String>,
    /// The server's `function.index`, kept for the record; never used to merge calls.
    pub index: Option<u64>,
    pub name: String,
    pub arguments: CallArguments,
}

/// The arguments of a call: an object, or a reason why they could not be read as one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallArguments {
    Object { value: Map<String, Value> },
    Unreadable { problem: String },
}

/// The end of a turn, as the server reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Done {
    /// The server's own word for why it stopped (`stop`, `length`, ...), if it gave one.
    pub reason: Option<String>,
    /// True when the output was cut by a token limit: the turn is incomplete and none of its
    /// tool calls may run.
    pub cut_off: bool,
    pub metrics: TurnMetrics,
}

/// Token counts and durations from the final chunk. Every field is optional on the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnMetrics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_duration_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_duration_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_cached_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_duration_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_duration_ns: Option<u64>,
}

/// A line that is not a chunk of the protocol: not UTF-8, not JSON, not an object, or an object
/// of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeError {
    pub message: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}
