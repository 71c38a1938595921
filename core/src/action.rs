//! What the session asks the shell to do.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::event::Event;
use crate::input::CallId;
use crate::stop::Stop;
use crate::wire::ChatRequest;

/// One output of [`crate::Session::handle`]. Perform them in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// POST `body` to `/api/chat` and feed the response back as `StreamLine`s, then
    /// `StreamEnd` or `TransportFailed`. At most one request is in flight.
    SendRequest { turn: u32, body: ChatRequest },
    /// Something to show or record; needs no answer.
    Emit(Event),
    /// Run this validated call and answer with `ToolFinished` for `call_id`. At most one call
    /// is in flight.
    DispatchTool {
        call_id: CallId,
        name: String,
        arguments: Map<String, Value>,
    },
    /// The session is over. Nothing follows; every later input yields no action.
    Stop(Stop),
}
