//! Why a session ended. Exactly one stop per session; nothing happens after it.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use crate::input::TransportError;
use crate::window::WindowError;

/// Why a session ended. The stop reason describes the loop, never the repair: the verdict comes
/// from the independent test run outside the loop.
///
/// New reasons may be added in a minor release: match with a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// A complete turn with no tool calls and non-blank text.
    AssistantFinished,
    /// A complete turn with no tool calls and blank text.
    EmptyResponse,
    /// The turn budget is spent: the last turn's calls ran, no further request was sent.
    MaxTurns,
    /// The stream ended without `done`, or was cut off by the token limit.
    IncompleteModelTurn,
    /// Transport failure, HTTP error, an error line, or a malformed chunk.
    ModelError,
    /// The model made the same call too many times in a row (the repetition guard).
    Repeating,
    /// The user interrupted the run.
    Cancelled,
    /// The run passed its wall-clock deadline.
    DeadlineExceeded,
    /// The token budget is spent: the turn that went past it had its calls run, no further
    /// request was sent.
    BudgetExceeded,
    /// The prompt did not fit the context window: the server said so, or counted clearly fewer
    /// tokens than were sent (it dropped the front), or nothing older was left to shorten.
    ContextExceeded,
}

impl StopReason {
    /// The reason's snake_case name, as events and records spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::AssistantFinished => "assistant_finished",
            StopReason::EmptyResponse => "empty_response",
            StopReason::MaxTurns => "max_turns",
            StopReason::IncompleteModelTurn => "incomplete_model_turn",
            StopReason::ModelError => "model_error",
            StopReason::Repeating => "repeating",
            StopReason::Cancelled => "cancelled",
            StopReason::DeadlineExceeded => "deadline_exceeded",
            StopReason::BudgetExceeded => "budget_exceeded",
            StopReason::ContextExceeded => "context_exceeded",
        }
    }
}

impl core::fmt::Display for StopReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stop with what a person needs to understand it (the server's message, the cut-off, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stop {
    /// Why the session ended.
    pub reason: StopReason,
    /// What a person needs to understand it, when there is more to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What caused the stop, typed, when a person can act on it: the shell's hints match on this,
    /// never on the words of `detail` (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<StopCause>,
}

/// The typed cause of a `model_error`, `incomplete_model_turn` or `context_exceeded` stop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopCause {
    /// The transport failed: the HTTP status and body, the timeout, the broken connection.
    Transport(TransportError),
    /// The server said the turn ended at its token limit (`done_reason`/`finish_reason`
    /// `length`): the model ran out of tokens, the server did not fail.
    TokenLimit,
    /// The conversation no longer fits the context window (`context_exceeded`).
    Window(WindowError),
}
