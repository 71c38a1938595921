//! The one record format (`mend-record/2`): a conversation of messages, each a session with
//! its turns and calls, between the checks before and after. A run is a conversation of one
//! message.

use std::collections::BTreeMap;

use camino::Utf8Path;
use mend_core::Stop;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::error::MendError;
use crate::record::chat_command::ChatCommand;
use crate::record::harness_end::HarnessEnd;
use crate::record::message::Message;
use crate::record::metrics::RunMetrics;
use crate::record::settings::SessionSettings;
use crate::verdict::check::TestRun;
use crate::verdict::grade::ending::Ending;

/// Written into every record; a reader also takes the older formats `record::legacy` names,
/// and refuses any other.
pub const RECORD_FORMAT: &str = "mend-record/2";

/// A run's or a chat's whole record: what it was started with, every byte the server sent, every
/// call and its result, and the checks around them, so it can be shown, replayed and resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The record's format ([`RECORD_FORMAT`] when written now), checked before the rest is read.
    pub format: String,
    /// What this record shows, in a sentence (fixtures say what they exercise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The model, the server and the prompts (fields inlined in the file).
    #[serde(flatten)]
    pub settings: SessionSettings,
    /// The conversation, in order: each message a session continuing the one before.
    pub messages: Vec<Message>,
    /// Digest of the task's test files when the conversation started, to tell a run that changed them.
    pub test_file_sha256_before: String,
    /// Digest of the editable files when the conversation started.
    pub source_sha256_before: String,
    /// The independent check before the first message; a chat has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_before: Option<TestRun>,
    /// The independent check at the end; absent while a chat goes on (or when it was killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// SHA-256 of each of the task's test files and editable files when the run started, so that
    /// `mend apply` can name the files that changed since (absent in older records).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub file_sha256_before: BTreeMap<String, String>,
    /// Figures of the live sessions that made this record; absent in authored fixtures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<RunMetrics>,
    /// The record this one continues (`mend resume`): its messages are this one's first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<String>,
    /// What the user asked mend itself between a chat's messages (`/verify`, `/save`), with the
    /// outcomes; absent when none was typed, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<ChatCommand>,
    /// Why a run ended as a harness error before its loop (then it has no message, no tests
    /// before and no ending); absent for every run that reached its loop, and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_error: Option<HarnessEnd>,
}

impl Record {
    /// `run` for a record with the tests before its first message (or a run that ended before
    /// them), else `chat`.
    pub fn kind(&self) -> &'static str {
        if self.tests_before.is_some() || self.harness_error.is_some() {
            "run"
        } else {
            "chat"
        }
    }

    /// How the last message's session stopped; `None` for a chat with no message yet.
    pub fn last_stop(&self) -> Option<&Stop> {
        self.messages.last().map(|message| &message.stop)
    }

    /// Refuses to `doing` (replay, resume, apply) a run that ended before its loop: there is no
    /// conversation and no change in it.
    pub fn refuse_if_ended_early(&self, path: &Utf8Path, doing: &str) -> Result<(), MendError> {
        match &self.harness_error {
            Some(end) => Err(MendError::refused(format!(
                "cannot {doing} {path}: {}. `mend show {path}` says why; start a new run once the cause is fixed",
                end.headline()
            ))),
            None => Ok(()),
        }
    }

    /// Whether the conversation changed the task's test files (then its tests prove nothing).
    pub fn test_files_changed(&self) -> bool {
        self.ending
            .as_ref()
            .is_some_and(|ending| ending.test_files_changed(&self.test_file_sha256_before))
    }
}

impl Record {
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
pub(crate) fn json_into(
    out: &mut dyn std::io::Write,
    value: &impl Serialize,
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
    out.write_all(
        b"
",
    )
}
