//! The record: everything needed to audit a run or a chat and to replay it without a model
//! server. One format for both ([`format`]) — a conversation of messages, each with its turns and
//! calls; a run is a conversation of one message. Older formats are read into it ([`legacy`]).
//! `fixtures/README.md` documents every field.

pub mod chat_command;
pub(crate) mod format;
pub mod harness_end;
pub(crate) mod hook_run;
pub mod hook_text;
pub(crate) mod legacy;
pub(crate) mod line;
pub(crate) mod message;
pub mod metrics;
pub(crate) mod patch;
pub(crate) mod settings;
pub(crate) mod spill;
pub(crate) mod stop;
pub(crate) mod target;
pub(crate) mod turn;
pub(crate) mod usage;

pub use chat_command::ChatCommand;
pub use format::{write_json_atomically, Record, RECORD_FORMAT};
pub use harness_end::{HarnessEnd, HarnessStage};
pub(crate) use hook_run::HookRun;
pub use line::{LineBytes, RecordedLine};
pub use message::Message;
pub use metrics::RunMetrics;
pub use settings::{Origin, ServerFacts, SessionSettings};
pub use turn::{RecordedCall, RecordedTurn, TurnEnd};

use std::fs;

use camino::Utf8Path;
use serde::Deserialize;

use crate::error::MendError;
use crate::record::legacy::{ChatRecord1, RunRecord1, CHAT_FORMAT_1, RUN_FORMAT_1};

impl Record {
    /// Reads a record of any format mend ever wrote, into today's shape.
    pub fn read(path: &Utf8Path) -> Result<Record, MendError> {
        let text = fs::read_to_string(path)
            .map_err(|err| MendError::refused(format!("cannot read the record {path}: {err}")))?;
        Record::parse(&text).map_err(|problem| MendError::refused(format!("{path} {problem}")))
    }

    /// A record from its JSON text, told apart by its `format`; the error completes a sentence
    /// that starts with the record's name.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        #[derive(Deserialize)]
        struct Format {
            format: String,
        }
        let not_a_record = RecordError::NotARecord;
        let format = serde_json::from_str::<Format>(text)
            .map_err(not_a_record)?
            .format;
        match format.as_str() {
            RECORD_FORMAT => serde_json::from_str(text).map_err(not_a_record),
            RUN_FORMAT_1 => serde_json::from_str::<RunRecord1>(text)
                .map(Record::from)
                .map_err(not_a_record),
            CHAT_FORMAT_1 => serde_json::from_str::<ChatRecord1>(text)
                .map(Record::from)
                .map_err(not_a_record),
            other => Err(RecordError::UnknownFormat(other.to_owned())),
        }
    }
}

/// Why a text is no record this mend reads; its `Display` completes a sentence that starts
/// with the record's name. Either way the record is refused (exit 4).
#[derive(Debug)]
pub enum RecordError {
    /// Not JSON, or not of any record's shape.
    NotARecord(serde_json::Error),
    /// A `format` this mend does not know (a newer mend's, or none of mend's).
    UnknownFormat(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::NotARecord(source) => write!(f, "is not a mend record: {source}"),
            RecordError::UnknownFormat(other) => write!(
                f,
                "has format `{other}`; this mend reads `{RECORD_FORMAT}`, `{RUN_FORMAT_1}` and `{CHAT_FORMAT_1}`"
            ),
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::NotARecord(source) => Some(source),
            RecordError::UnknownFormat(_) => None,
        }
    }
}
