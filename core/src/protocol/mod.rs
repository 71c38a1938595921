//! The protocols a model server speaks: the conversation out in the server's own request shape,
//! and one raw line of its stream in, normalized deltas out.
//!
//! One file per protocol holds all of it — its endpoint (path, headers, where a key goes), its
//! request body and its decoding: `ollama` (NDJSON), `openai` (chat-completions SSE),
//! `anthropic` (Messages SSE). A fourth protocol is a fourth file and an arm in each `match`
//! below. What they share sits beside them: the decoded shape (`decoded`), SSE framing (`sse`),
//! the HTTP request (`http`).
//!
//! The session never looks at wire JSON. Each turn gets a fresh [`Decoder`] that turns each line
//! into a [`LineDecoded`]: nothing (framing), a server error, or the deltas of one chunk.

use crate::prelude::*;

mod anthropic;
mod decoded;
mod http;
mod ollama;
mod openai;
#[cfg(test)]
mod request_tests;
mod sse;

use serde::{Deserialize, Serialize};

use crate::wire::ChatRequest;

pub(crate) use decoded::{call_arguments, error_message, malformed};
pub use decoded::{CallArguments, DecodeError, Deltas, Done, LineDecoded, ModelCall, TurnMetrics};
use http::Endpoint;
pub use http::{ApiKeyHeader, HttpRequest};

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
    /// A fresh decoder for one turn's stream of this protocol, to read a recorded stream outside
    /// a session (see [`crate::decode`]); a session makes its own for each turn.
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
            Protocol::OllamaNdjson => ollama::request_body(request),
            Protocol::OpenaiSse => openai::request_body(request),
            Protocol::AnthropicSse => anthropic::request_body(request),
        }
    }

    /// The HTTP request that sends `body` to a server of this protocol.
    pub fn http_request(self, body: &ChatRequest) -> HttpRequest {
        self.endpoint().request(self.request_body(body))
    }

    fn endpoint(self) -> &'static Endpoint {
        match self {
            Protocol::OllamaNdjson => &ollama::ENDPOINT,
            Protocol::OpenaiSse => &openai::ENDPOINT,
            Protocol::AnthropicSse => &anthropic::ENDPOINT,
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
