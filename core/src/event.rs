//! What happened, for people and for machines: the shell renders these as text or JSONL.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::codec::TurnMetrics;
use crate::input::{CallId, InputKind};
use crate::stop::Stop;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A request for `turn` (1-based) is about to be sent.
    ModelStart { turn: u32 },
    /// A fragment of the model's reasoning, as it arrived.
    ThinkingDelta { turn: u32, text: String },
    /// A fragment of the model's visible text, as it arrived.
    TextDelta { turn: u32, text: String },
    /// The turn's stream ended with `done`: the server's reason, how many calls it carried, and
    /// the token counts and durations of its final chunk.
    ModelDone {
        turn: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        done_reason: Option<String>,
        tool_calls: u32,
        metrics: TurnMetrics,
    },
    /// A validated call is being dispatched. `index` is its position in the turn.
    ToolStart {
        turn: u32,
        index: u32,
        call_id: CallId,
        name: String,
        arguments: Map<String, Value>,
    },
    /// A call's result went into the conversation: what the tool returned, or why the call was
    /// refused before it ran.
    ToolResult {
        turn: u32,
        index: u32,
        call_id: CallId,
        name: String,
        status: ToolStatus,
        result: Value,
    },
    /// An input that makes no sense in the current phase was ignored; nothing changed.
    InputRejected { input: InputKind, reason: String },
    /// The session ended; [`crate::Action::Stop`] follows.
    Stopped(Stop),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and reported an error.
    Failed,
    /// The call did not fit the offered tools and never ran.
    Refused,
}
