//! The chat file: a whole `mend chat` conversation — every message with its model turns and
//! tool calls — written after each message, so that `mend replay` can run the conversation
//! again on a fresh copy and an interrupted chat loses nothing it finished.

use serde::{Deserialize, Serialize};

use mend_core::Stop;

use crate::record::settings::SessionSettings;
use crate::record::turn::{RecordedCall, RecordedTurn};
use crate::verdict::verify::TestRun;

/// Written into every chat record; `mend replay` tells the two kinds apart by it.
pub const CHAT_FORMAT: &str = "mend-chat/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRecord {
    pub format: String,
    #[serde(flatten)]
    pub settings: SessionSettings,
    /// Digests of the task's test files and editable files when the conversation started.
    pub test_file_sha256_before: String,
    pub source_sha256_before: String,
    /// In the order they were typed; each is one session, continuing the one before.
    pub messages: Vec<ChatMessage>,
    /// How the conversation ended; absent while it goes on (or when it was killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<ChatEnding>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub text: String,
    pub turns: Vec<RecordedTurn>,
    pub tool_calls: Vec<RecordedCall>,
    pub stop: Stop,
}

/// The independent check when the user ended the conversation, and what it had changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatEnding {
    pub tests_after: TestRun,
    pub test_file_sha256_after: String,
    pub source_sha256_after: String,
    pub diff: String,
}
