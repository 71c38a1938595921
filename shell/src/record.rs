//! The run file: everything needed to audit a run and to replay it without a model server.
//! `fixtures/README.md` documents every field.

use std::collections::BTreeMap;
use std::fs;

use camino::Utf8Path;
use clap::ValueEnum;
use mend_core::{
    CallId, Codec, Config, ContextConfig, ModelOptions, Stop, ToolStatus, TransportError,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::atomic;
use crate::attempt::Checks;
use crate::driver::RunMetrics;
use crate::error::MendError;
use crate::sandbox::SandboxChoice;
use crate::spill::LineList;
use crate::task::Task;

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

/// What a run or a chat was started with, and where: everything but the user's words. A replay
/// rebuilds its sessions from these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSettings {
    pub provider: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// Where the tests ran: `bwrap`, `network-namespace` or `none` (absent in authored fixtures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The repository the run worked on, as an absolute path; replay and apply use it when no
    /// `--repo` is given. Older records hold it relative to where mend ran, and the sample's
    /// fixtures leave it out (read as `sample-repo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// The interpreter the tests ran with; replay reuses it unless `--python` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// The `--sandbox` the run was made with (`auto`, `bwrap`, `none`); replay reuses it unless
    /// `--sandbox` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_choice: Option<String>,
    pub max_turns: u32,
    pub think: bool,
    pub keep_alive: u64,
    pub options: ModelOptions,
    pub system_prompt: String,
    /// The per-turn context, when the run had it on (`--context`): replay rebuilds the same
    /// hints and offers the same `todo` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextConfig>,
}

impl SessionSettings {
    /// The settings of a session about to start.
    pub fn of(config: &Config, server: &ServerFacts, origin: &Origin) -> SessionSettings {
        SessionSettings {
            provider: config.codec.provider().to_owned(),
            model: config.model.clone(),
            model_digest: server.model_digest.clone(),
            server_version: server.server_version.clone(),
            sandbox: Some(server.sandbox.to_owned()),
            repo: Some(origin.absolute_repo()),
            python: Some(origin.python.to_string()),
            sandbox_choice: origin
                .sandbox_choice
                .to_possible_value()
                .map(|value| value.get_name().to_owned()),
            max_turns: config.max_turns,
            think: config.think,
            keep_alive: config.keep_alive,
            options: config.options.clone(),
            system_prompt: config.system_prompt.clone(),
            context: config.context.clone(),
        }
    }

    /// The session config these settings describe, for `task` with the task file's tools.
    pub fn config(&self, task: &str, tools: &Task) -> Result<Config, MendError> {
        let codec = Codec::from_provider(&self.provider).ok_or_else(|| {
            MendError::refused(format!(
                "the record's provider `{}` is not one mend knows (ollama, openai, anthropic)",
                self.provider
            ))
        })?;
        Ok(Config {
            codec,
            context: self.context.clone(),
            max_turns: self.max_turns,
            think: self.think,
            keep_alive: self.keep_alive,
            options: self.options.clone(),
            ..Config::new(
                &self.model,
                &self.system_prompt,
                task,
                tools.offered_tools(self.context.is_some()),
            )
        })
    }
}

/// Where a run or chat is made: kept in its record, so that replay and apply work from any folder
/// with the same interpreter and sandbox.
pub struct Origin<'a> {
    pub repo: &'a Utf8Path,
    pub python: &'a Utf8Path,
    pub sandbox_choice: SandboxChoice,
}

impl Origin<'_> {
    /// The repository as an absolute path with links resolved; as given when that fails.
    fn absolute_repo(&self) -> String {
        self.repo
            .canonicalize_utf8()
            .map(|path| path.to_string())
            .unwrap_or_else(|_| self.repo.to_string())
    }
}

/// What the server and the machine said about a live run.
pub struct ServerFacts {
    pub model_digest: Option<String>,
    pub server_version: Option<String>,
    pub sandbox: &'static str,
}

/// One model turn: the raw lines as they arrived and how the body ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTurn {
    pub turn: u32,
    /// SHA-256 of the request body that produced this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_sha256: Option<String>,
    /// When the request was sent, in ms since the loop started; absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
    /// From sending the request to the end of its stream; absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    pub lines: LineList,
    pub end: TurnEnd,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedLine {
    /// Milliseconds since the request was sent.
    pub at_ms: u64,
    #[serde(flatten)]
    pub bytes: LineBytes,
}

/// A line as text when it is UTF-8, else as hex, so that any byte sequence survives a round trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LineBytes {
    Text { text: String },
    Hex { hex: String },
}

/// How a turn's body ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnEnd {
    /// The session completed the turn (a `done` chunk, an error line or a malformed line); the
    /// rest of the body was not read.
    SessionEnded,
    /// The body ended (EOF) while the session still wanted lines.
    Eof,
    TransportFailed {
        error: TransportError,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    pub turn: u32,
    pub index: u32,
    pub call_id: CallId,
    pub name: String,
    pub arguments: Map<String, Value>,
    pub status: ToolStatus,
    pub result: Value,
    #[serde(default)]
    pub duration_ms: u64,
    /// When the call started running, in ms since the loop started; absent for a call that never
    /// ran and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
}

impl LineBytes {
    pub fn from_bytes(bytes: &[u8]) -> LineBytes {
        match std::str::from_utf8(bytes) {
            Ok(text) => LineBytes::Text {
                text: text.to_owned(),
            },
            Err(_) => LineBytes::Hex {
                hex: bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
            },
        }
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            LineBytes::Text { text } => Ok(text.as_bytes().to_vec()),
            LineBytes::Hex { hex } => (0..hex.len())
                .step_by(2)
                .map(|at| {
                    hex.get(at..at + 2)
                        .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                        .ok_or_else(|| format!("`{hex}` is not valid hex"))
                })
                .collect(),
        }
    }
}

/// Any file `mend replay` reads: a run, or a whole chat.
#[derive(Debug)]
pub enum AnyRecord {
    Run(Box<Record>),
    Chat(Box<crate::chat_record::ChatRecord>),
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
            crate::chat_record::CHAT_FORMAT => serde_json::from_str(&text)
                .map(|chat| AnyRecord::Chat(Box::new(chat)))
                .map_err(not_a_record),
            other => Err(MendError::refused(format!(
                "{path} has format `{other}`; this mend reads `{RECORD_FORMAT}` and `{}`",
                crate::chat_record::CHAT_FORMAT
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
    // Serialized straight into the file: spilled lines are never gathered in memory.
    atomic::write_file(path, |out| {
        serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(|err| MendError::harness(format!("cannot write the record {path}: {err}")))
}
