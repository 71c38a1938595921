//! One message of a record's conversation — what the user said, the model turns and tool calls
//! it led to, and why its session stopped — and what the whole conversation left behind.

use serde::{Deserialize, Serialize};

use mend_core::Stop;

use crate::record::turn::{RecordedCall, RecordedTurn};
use crate::verdict::contract::Contract;
use crate::verdict::verify::TestRun;

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
    pub turns: Vec<RecordedTurn>,
    pub tool_calls: Vec<RecordedCall>,
    pub stop: Stop,
}

/// The independent check after the conversation, and what it had changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ending {
    /// The verdict.
    pub tests_after: TestRun,
    pub test_file_sha256_after: String,
    pub source_sha256_after: String,
    /// The unified diff of the editable files, original against the copy at the end (empty when
    /// nothing changed).
    #[serde(default)]
    pub diff: String,
    /// The first run's tests by id and what became of each: `fail_to_pass`, `pass_to_pass`,
    /// `added` (absent without test ids, and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// Files that changed in the loop's copy but are not the tools' change (written while the
    /// tests ran): left out of the final tests and of the patch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_by_tests: Vec<String>,
}
