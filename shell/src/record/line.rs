//! One streamed line as recorded: when it arrived and its bytes, as text or hex.

use serde::{Deserialize, Serialize};

/// One line of a model's response body, with when it came, so a replay can feed it back as it
/// arrived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedLine {
    /// Milliseconds since the request was sent.
    pub at_ms: u64,
    /// The line's bytes, as text or hex.
    #[serde(flatten)]
    pub bytes: LineBytes,
}

/// A line as text when it is UTF-8, else as hex, so that any byte sequence survives a round trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LineBytes {
    /// A line that is valid UTF-8, kept readable.
    Text {
        /// The line.
        text: String,
    },
    /// A line that is not UTF-8, its bytes in lower-case hex.
    Hex {
        /// The bytes, two hex digits each.
        hex: String,
    },
}

/// A recorded line's `hex` that is not pairs of hex digits: the record was edited or cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadHex(pub(crate) String);

impl std::fmt::Display for BadHex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is not valid hex", self.0)
    }
}

impl std::error::Error for BadHex {}

impl LineBytes {
    pub(crate) fn from_bytes(bytes: &[u8]) -> LineBytes {
        match std::str::from_utf8(bytes) {
            Ok(text) => LineBytes::Text {
                text: text.to_owned(),
            },
            Err(_) => LineBytes::Hex {
                hex: bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
            },
        }
    }

    /// As [`LineBytes::from_bytes`], taking the bytes without copying a UTF-8 line.
    pub fn from_vec(bytes: Vec<u8>) -> LineBytes {
        match String::from_utf8(bytes) {
            Ok(text) => LineBytes::Text { text },
            Err(err) => LineBytes::from_bytes(err.as_bytes()),
        }
    }

    pub(crate) fn to_bytes(&self) -> Result<Vec<u8>, BadHex> {
        match self {
            LineBytes::Text { text } => Ok(text.as_bytes().to_vec()),
            LineBytes::Hex { hex } => (0..hex.len())
                .step_by(2)
                .map(|at| {
                    hex.get(at..at + 2)
                        .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                        .ok_or_else(|| BadHex(hex.clone()))
                })
                .collect(),
        }
    }
}
