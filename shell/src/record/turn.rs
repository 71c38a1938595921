//! One recorded model turn (its raw lines and how its body ended) and one recorded tool call.

use mend_core::{CallId, TextCallFormat, ToolStatus, TransportError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::record::spill::LineList;
use crate::record::usage::{Trim, TurnUsage};

/// One model turn: the raw lines as they arrived and how the body ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTurn {
    /// The turn's number in its session, from 1.
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
    /// The body's lines, byte for byte, so a replay feeds the session what the server sent.
    pub lines: LineList,
    /// Where the body stopped, so a replay stops at the same place.
    pub end: TurnEnd,
    /// What the turn cost: the server's counts and speeds, mend's estimate; absent in older
    /// records and for a turn that never ended with `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
    /// Tool results shortened to fit the context window before this turn's request (or, for
    /// the last turn, after its calls).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trimmed: Vec<Trim>,
    /// Set when this request was no turn of the model's own but the repair of turn N's broken
    /// call under the tools' schema; absent otherwise, and in records made before repairs were
    /// marked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_of: Option<u32>,
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
    /// The connection failed before the session was done with the body.
    TransportFailed {
        /// What failed, as the session was told.
        error: TransportError,
    },
}

/// One tool call the session asked for and what running it gave, so a replay can check its own run against it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    /// The turn that asked for the call.
    pub turn: u32,
    /// The call's place among its turn's calls, from 0.
    pub index: u32,
    /// The id the model (or the session) gave the call, which its result answers.
    pub call_id: CallId,
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The call's arguments, as the model wrote them.
    pub arguments: Map<String, Value>,
    /// Whether the tool ran and how it went (ok, refused, failed).
    pub status: ToolStatus,
    /// What the tool gave back to the model.
    pub result: Value,
    /// How long the call took to run, in ms; 0 in older records.
    #[serde(default)]
    pub duration_ms: u64,
    /// When the call started running, in ms since the loop started; absent for a call that never
    /// ran and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
    /// Set when the model wrote this call into its text rather than as a call: how, and the raw
    /// text it was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered_from_text: Option<RecoveredText>,
    /// The hooks run for this call (before it, then after it), with their decisions: a replay
    /// reuses them. Absent when none ran, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::record::hook_run::HookRun>,
}

/// The text a call was recovered from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveredText {
    pub format: TextCallFormat,
    pub text: String,
}
