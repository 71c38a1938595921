//! Why a capture was not read as the server meant it. Each is one `FAIL` line of `mend
//! conformance`, which goes on with the other captures; they differ in whose fault it is: the
//! capture's own bytes (the independent reading cannot read them), the session's (it read them
//! otherwise), or mend's (the session could not be run at all).

use std::fmt;
use std::str::Utf8Error;

use crate::error::MendError;

#[derive(Debug)]
pub(super) enum CaptureError {
    /// An Ollama stream with a line that is not JSON.
    NotNdjson(serde_json::Error),
    /// An SSE stream that is not UTF-8 text.
    NotUtf8(Utf8Error),
    /// An SSE stream with an event whose data is not JSON.
    NotSseJson(serde_json::Error),
    /// An error body that is not JSON.
    ErrorBodyNotJson(serde_json::Error),
    /// An error body with neither Ollama's `error` string nor OpenAI's `error.message`.
    ErrorBodyWithoutText,
    /// The session refused the settings made for the capture (its calls' names, the window).
    Refused(mend_core::ConfigError),
    /// The driver could not run the session (a harness failure, not the capture's).
    Driver(MendError),
    /// The completed turn's message says other than what was streamed and dispatched; the
    /// message as the session assembled it, in debug form.
    Assembled(String),
    /// The session read the capture otherwise than it means: what it made of it (`summary`), and
    /// both readings in debug form.
    Differs {
        summary: String,
        got: String,
        meant: String,
    },
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::NotNdjson(err) => write!(f, "the capture itself is not NDJSON: {err}"),
            CaptureError::NotUtf8(err) => write!(f, "the capture is not UTF-8: {err}"),
            CaptureError::NotSseJson(err) => {
                write!(f, "the capture itself is not SSE of JSON: {err}")
            }
            CaptureError::ErrorBodyNotJson(err) => write!(f, "the error body is not JSON: {err}"),
            CaptureError::ErrorBodyWithoutText => f.write_str("the error body has no `error` text"),
            CaptureError::Refused(err) => err.fmt(f),
            CaptureError::Driver(err) => f.write_str(&err.message),
            CaptureError::Assembled(assistant) => {
                write!(
                    f,
                    "the assembled message {assistant} differs from the stream"
                )
            }
            CaptureError::Differs {
                summary,
                got,
                meant,
            } => write!(f, "{summary}\n     mend: {got}\n     meant: {meant}"),
        }
    }
}

impl std::error::Error for CaptureError {}

#[cfg(test)]
mod tests {
    use super::CaptureError;

    #[test]
    fn each_disagreement_reads_as_the_fail_line_said_it() {
        let not_json = || serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let lines: Vec<String> = [
            CaptureError::NotNdjson(not_json()),
            CaptureError::ErrorBodyWithoutText,
            CaptureError::Refused(mend_core::ConfigError::EmptyModel),
            CaptureError::Assembled("Message { content: \"a\" }".to_owned()),
            CaptureError::Differs {
                summary: "content 1 chars".to_owned(),
                got: "A".to_owned(),
                meant: "B".to_owned(),
            },
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            lines,
            [
                "the capture itself is not NDJSON: EOF while parsing an object at line 1 column 1",
                "the error body has no `error` text",
                "the model name is empty",
                "the assembled message Message { content: \"a\" } differs from the stream",
                "content 1 chars\n     mend: A\n     meant: B",
            ]
        );
    }
}
