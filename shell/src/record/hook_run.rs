//! What one hook did, as the record keeps it: a replay reuses these decisions instead of running
//! the hooks again, so it sees exactly what the recorded run saw.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The events mend runs hooks for, named as Claude Code names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    Stop,
}

impl HookEvent {
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
        }
    }
}

/// What a hook decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// It said nothing against the call (exit 0, no decision).
    Pass,
    /// It allowed the call, perhaps with new arguments.
    Allow {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Map<String, Value>>,
    },
    /// It blocked the call (or failed, which blocks too); the reason goes to the model.
    Block { reason: String },
}

/// One hook's run: the command, its decision, anything it added for the model, and its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookRun {
    pub event: HookEvent,
    pub command: String,
    #[serde(flatten)]
    pub decision: Decision,
    /// `hookSpecificOutput.additionalContext`: told to the model with the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    pub duration_ms: u64,
}

/// The hooks' time, in milliseconds.
pub(crate) fn total_ms(runs: &[HookRun]) -> u64 {
    runs.iter().map(|run| run.duration_ms).sum()
}
