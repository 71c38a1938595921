//! The run file: everything needed to audit a run and to replay it without a model server.
//! `fixtures/README.md` documents every field.

pub mod chat;
pub mod line;
pub mod metrics;
pub mod patch;
pub mod settings;
pub mod spill;
pub mod target;
pub mod turn;

pub use line::{LineBytes, RecordedLine};
pub use metrics::RunMetrics;
pub use settings::{Origin, ServerFacts, SessionSettings};
pub use turn::{RecordedCall, RecordedTurn, TurnEnd};

use std::collections::BTreeMap;
use std::fs;

use camino::Utf8Path;
use mend_core::Stop;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::error::MendError;
use crate::verdict::checks::Checks;

/// Written into every record; a reader refuses any other value.
pub const RECORD_FORMAT: &str = "mend-record/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub format: String,
    /// What this run shows, in a sentence (fixtures say what they exercise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The model, the server and the prompts (fields inlined in the file).
    #[serde(flatten)]
    pub settings: SessionSettings,
    pub task: String,
    pub turns: Vec<RecordedTurn>,
    pub tool_calls: Vec<RecordedCall>,
    pub stop: Stop,
    /// The independent check around the loop (fields inlined in the file).
    #[serde(flatten)]
    pub checks: Checks,
    /// SHA-256 of each of the task's test files and editable files when the run started, so that
    /// `mend apply` can name the files that changed since (absent in older records).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub file_sha256_before: BTreeMap<String, String>,
    /// Figures of the live run that made this record; absent in authored fixtures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<RunMetrics>,
}

/// Any file `mend replay` reads: a run, or a whole chat.
#[derive(Debug)]
pub enum AnyRecord {
    Run(Box<Record>),
    Chat(Box<crate::record::chat::ChatRecord>),
}

impl AnyRecord {
    /// Reads a record of either kind, told apart by its `format`.
    pub fn read(path: &Utf8Path) -> Result<AnyRecord, MendError> {
        #[derive(Deserialize)]
        struct Format {
            format: String,
        }
        let text = fs::read_to_string(path)
            .map_err(|err| MendError::refused(format!("cannot read the record {path}: {err}")))?;
        let not_a_record = |err: serde_json::Error| {
            MendError::refused(format!("{path} is not a mend record: {err}"))
        };
        let format = serde_json::from_str::<Format>(&text)
            .map_err(not_a_record)?
            .format;
        match format.as_str() {
            RECORD_FORMAT => serde_json::from_str(&text)
                .map(|record| AnyRecord::Run(Box::new(record)))
                .map_err(not_a_record),
            crate::record::chat::CHAT_FORMAT => serde_json::from_str(&text)
                .map(|chat| AnyRecord::Chat(Box::new(chat)))
                .map_err(not_a_record),
            other => Err(MendError::refused(format!(
                "{path} has format `{other}`; this mend reads `{RECORD_FORMAT}` and `{}`",
                crate::record::chat::CHAT_FORMAT
            ))),
        }
    }

    pub fn settings(&self) -> &SessionSettings {
        match self {
            AnyRecord::Run(record) => &record.settings,
            AnyRecord::Chat(chat) => &chat.settings,
        }
    }
}

impl Record {
    /// Reads a run record; a chat record is refused with the command that takes it.
    pub fn read(path: &Utf8Path) -> Result<Record, MendError> {
        match AnyRecord::read(path)? {
            AnyRecord::Run(record) => Ok(*record),
            AnyRecord::Chat(_) => Err(MendError::refused(format!(
                "{path} records a chat, not a run; replay it with `mend replay {path}` and save its change with /save"
            ))),
        }
    }

    /// Writes the record so that `path` holds either the old file or the whole new one, never a
    /// torn mix: a temporary file in the same directory, flushed to disk, then renamed over.
    pub fn write_atomically(&self, path: &Utf8Path) -> Result<(), MendError> {
        write_json_atomically(path, self)
    }
}

/// Writes `value` as pretty JSON, all or nothing (see [`atomic::write_file`]).
pub fn write_json_atomically(path: &Utf8Path, value: &impl Serialize) -> Result<(), MendError> {
    atomic::write_file(path, |out| json_into(out, value))
        .map_err(|err| MendError::harness(format!("cannot write the record {path}: {err}")))
}

/// `value` as pretty JSON and a newline, serialized straight into `out`: spilled lines are
/// never gathered in memory.
fn json_into(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}
