//! One message of a record's conversation — what the user said, the model turns and tool calls
//! it led to, and why its session stopped.

use serde::{Deserialize, Serialize};

use mend_core::Stop;

use crate::record::turn::{RecordedCall, RecordedTurn};

/// One session of the conversation: a run has one, a chat one per typed line, and `mend resume`
/// adds one to the conversation it continues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// What the user said (a run's task, a chat's line); absent for a session that went on from
    /// where the one before stopped (`mend resume` without `--message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The session's turn budget when it was not the record's `max_turns` (`mend resume
    /// --max-turns`); replay gives the session the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// The session's wall-clock budget in ms (`mend resume --deadline`); replay stops where the
    /// record says it landed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// The session's model turns, in order.
    pub turns: Vec<RecordedTurn>,
    /// The tool calls of those turns and what each gave.
    pub tool_calls: Vec<RecordedCall>,
    /// How the session ended, as the core said.
    pub stop: Stop,
    /// The Stop hooks run when the session finished, with their decisions; when one blocked, its
    /// reason is the next message's text. Absent when none ran, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_hooks: Vec<crate::record::hook_run::HookRun>,
}
