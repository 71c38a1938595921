//! What the session asks the caller to do.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::event::Event;
use crate::input::CallId;
use crate::protocol::HttpRequest;
use crate::protocol::Protocol;
use crate::stop::Stop;
use crate::wire::ChatRequest;

/// One output of [`crate::Session::handle`]. Perform them in order.
///
/// New variants may be added in a minor release: match with a wildcard arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Action {
    /// Send the request of `turn` (1-based) — [`Action::http_request`] gives it whole — and feed
    /// the response body back as `StreamLine`s, then `StreamEnd` or `TransportFailed`. At most
    /// one request is in flight.
    SendRequest {
        /// Which request of the session this is, from 1.
        turn: u32,
        /// The conversation and settings, in the session's neutral (Ollama) shape.
        body: ChatRequest,
        /// The protocol the server speaks; it decides the path, headers and body shape.
        #[serde(alias = "codec")]
        protocol: Protocol,
    },
    /// Something to show or record; needs no answer.
    Emit(Event),
    /// Run this validated call and answer with `ToolFinished` for `call_id`. At most one call
    /// is in flight.
    DispatchTool {
        /// Names this call in the answer.
        call_id: CallId,
        /// The tool to run: one of the offered tools.
        name: String,
        /// The model's arguments, already checked against the tool's schema.
        arguments: Map<String, Value>,
    },
    /// The session is over. Nothing follows; every later input yields no action.
    Stop(Stop),
}

impl Action {
    /// For a `SendRequest`, the whole HTTP request to send (method, path, headers, where the API
    /// key goes, body); `None` for every other action.
    pub fn http_request(&self) -> Option<HttpRequest> {
        match self {
            Action::SendRequest { body, protocol, .. } => Some(protocol.http_request(body)),
            _ => None,
        }
    }
}
