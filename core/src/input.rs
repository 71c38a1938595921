//! What the shell feeds the session: the world, one happening at a time.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A point on the shell's monotonic clock, in milliseconds. The core never reads a clock.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Millis(pub u64);

/// One raw line of the current turn's response body, as the caller's reader took it off the
/// wire: the one value a line is from that reader to the session, so whoever records or times
/// the stream reads the same line the session decodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamLine {
    /// The line's bytes as received, without its `\n`.
    #[serde(rename = "line")]
    pub bytes: Vec<u8>,
    /// When the reader took the line, on the clock of `now`. It can be earlier than the `now`
    /// the line is handled at, when the caller reads ahead of the session; the session decides
    /// nothing on it (it keeps no clock), a caller's record and its time to first byte do.
    /// Inputs written without it read as 0.
    #[serde(default, rename = "at_ms")]
    pub arrived: Millis,
}

impl StreamLine {
    /// The line `bytes`, taken off the wire at `arrived`.
    pub fn new(bytes: Vec<u8>, arrived: Millis) -> StreamLine {
        StreamLine { bytes, arrived }
    }
}

/// Names one dispatched tool call, so that its result can be matched to it. The server's own id
/// when it sent one, else `mend_<turn>_<index>`: stable across replays of the same stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub String);

impl core::fmt::Display for CallId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One input to [`crate::Session::handle`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// One raw line of the current turn's response body. Sent while the session streams; the
    /// shell stops reading once the session leaves that phase. Its JSON is
    /// `{"type": "stream_line", "line": [bytes], "at_ms": 12}`.
    StreamLine(StreamLine),
    /// The response body ended (EOF) before the session saw the end of the turn.
    StreamEnd,
    /// The request or the stream failed below the protocol.
    TransportFailed {
        /// What went wrong.
        error: TransportError,
    },
    /// The answer to a [`crate::Action::DispatchTool`].
    ToolFinished {
        /// The `call_id` of the dispatch this answers.
        call_id: CallId,
        /// What the tool returned, or why it failed.
        outcome: ToolOutcome,
    },
    /// The user interrupted the run.
    Cancel,
    /// The shell's timer for [`crate::Session::next_deadline`] fired.
    DeadlinePassed,
}

/// Which kind an input was, for events that talk about inputs without repeating them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InputKind {
    /// [`Input::StreamLine`].
    StreamLine,
    /// [`Input::StreamEnd`].
    StreamEnd,
    /// [`Input::TransportFailed`].
    TransportFailed,
    /// [`Input::ToolFinished`].
    ToolFinished,
    /// [`Input::Cancel`].
    Cancel,
    /// [`Input::DeadlinePassed`].
    DeadlinePassed,
}

impl Input {
    /// Which kind of input this is.
    pub fn kind(&self) -> InputKind {
        match self {
            Input::StreamLine(_) => InputKind::StreamLine,
            Input::StreamEnd => InputKind::StreamEnd,
            Input::TransportFailed { .. } => InputKind::TransportFailed,
            Input::ToolFinished { .. } => InputKind::ToolFinished,
            Input::Cancel => InputKind::Cancel,
            Input::DeadlinePassed => InputKind::DeadlinePassed,
        }
    }
}

/// What went wrong below the protocol. Every variant ends the session with `model_error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TransportError {
    /// No connection could be made (refused, unresolvable host, TLS).
    Connect {
        /// The client's own explanation.
        message: String,
    },
    /// The server answered with a status of 400 or more; `body` is what it said.
    Http {
        /// The HTTP status code.
        status: u16,
        /// The response body (or its start), which usually holds the server's error message.
        body: String,
    },
    /// Nothing arrived for `after_ms`.
    ReadTimeout {
        /// How long the caller waited, in milliseconds.
        after_ms: u64,
    },
    /// The connection broke while the body was being read.
    Read {
        /// The client's own explanation.
        message: String,
    },
    /// A single line exceeded the cap; it was not read into memory.
    LineTooLong {
        /// The caller's cap on one line, in bytes.
        limit_bytes: u64,
    },
}

impl TransportError {
    /// One sentence that says what happened, with the server's own `{"error": ...}` message when
    /// the body carries one.
    pub fn describe(&self) -> String {
        match self {
            TransportError::Connect { message } => format!("could not connect: {message}"),
            TransportError::Http { status, body } => {
                format!("HTTP {status}: {}", server_message(body))
            }
            TransportError::ReadTimeout { after_ms } => {
                format!("no data from the server for {after_ms} ms (read timeout)")
            }
            TransportError::Read { message } => {
                format!("the connection broke mid-stream: {message}")
            }
            TransportError::LineTooLong { limit_bytes } => {
                format!("a stream line exceeded {limit_bytes} bytes")
            }
        }
    }
}

/// The `error` field of a JSON error body (a string, or OpenAI's `{"message": ...}` object), else
/// the raw body trimmed.
pub fn server_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|value| value.get("error"));
    match error.and_then(crate::protocol::error_message) {
        Some(message) => message,
        None if body.trim().is_empty() => "(empty body)".to_owned(),
        None => body.trim().to_owned(),
    }
}

/// The result of one tool execution, as the model will see it. A failure here is the model's to
/// handle (a bad path, an ambiguous edit, failing tests); failures of the harness itself never
/// reach the session as an outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool ran; `value` is its result object.
    Success {
        /// The tool's result object.
        value: Value,
    },
    /// The tool refused or failed; `message` says what went wrong and what to do.
    Failure {
        /// What went wrong and what to do, for the model.
        message: String,
    },
}

impl ToolOutcome {
    /// The result object the model receives: the tool's value, or `{"error": message}`.
    pub fn result_value(&self) -> Value {
        match self {
            ToolOutcome::Success { value } => value.clone(),
            ToolOutcome::Failure { message } => error_result(message),
        }
    }
}

pub(crate) fn error_result(message: &str) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("error".to_owned(), Value::String(message.to_owned()));
    Value::Object(object)
}
