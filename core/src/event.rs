//! What happened, for people and for machines: the shell renders these as text or JSONL.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::input::{CallId, InputKind};
use crate::protocol::TurnMetrics;
use crate::rejection::Rejection;
use crate::stop::Stop;
use crate::text_calls::TextCall;
use crate::window::TrimReason;

/// Something that happened in the session, in order. Serialized with a `type` tag; the shapes are
/// documented in `docs/events.md`. New variants may be added in a minor release: match with a
/// wildcard arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A request for `turn` (1-based) is about to be sent.
    ModelStart {
        /// The request's number, from 1.
        turn: u32,
    },
    /// A fragment of the model's reasoning, as it arrived.
    ThinkingDelta {
        /// The turn it belongs to.
        turn: u32,
        /// The fragment.
        text: String,
    },
    /// A fragment of the model's visible text, as it arrived.
    TextDelta {
        /// The turn it belongs to.
        turn: u32,
        /// The fragment.
        text: String,
    },
    /// The turn's stream ended with `done`: the server's reason, how many calls it carried, and
    /// the token counts and durations of its final chunk.
    ModelDone {
        /// The turn that ended.
        turn: u32,
        /// The server's own word for why it stopped (`stop`, `length`, ...), if it gave one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        done_reason: Option<String>,
        /// How many tool calls the turn carried.
        tool_calls: u32,
        /// Token counts and durations from the final chunk.
        metrics: TurnMetrics,
    },
    /// The turn had no native call, but its text held calls written out (a chat template the
    /// server did not parse): they become the turn's calls, in this order, and go through the
    /// same validation, repetition guard and ordering as native ones. The text stays in the
    /// conversation as the model wrote it.
    RecoveredFromText {
        /// The turn whose text it was.
        turn: u32,
        /// Each call with the raw text it was read from.
        calls: Vec<TextCall>,
    },
    /// The text of `broken_turn` looked like a call no reader accepts, so the call is asked for
    /// again in request `turn`, whose answer the server must keep to the offered tools' call
    /// schema: a repair, not a turn of the model's own. Its `model_start` follows; what it gives
    /// is either a `recovered_from_text` of format `repaired_by_grammar` or a `repair_unusable`.
    RepairRequested {
        /// The repair request's number, from 1 (it counts against the turn budget).
        turn: u32,
        /// The turn whose call is being repaired.
        broken_turn: u32,
    },
    /// The repair's answer held no usable call (cut off, not JSON, no offered tool): the text of
    /// `broken_turn` stands as its answer.
    RepairUnusable {
        /// The repair request's number.
        turn: u32,
        /// The turn whose call could not be repaired.
        broken_turn: u32,
    },
    /// A validated call is being dispatched. `index` is its position in the turn.
    ToolStart {
        /// The turn whose call this is.
        turn: u32,
        /// The call's position in the turn, from 0.
        index: u32,
        /// Names the call; the matching `DispatchTool` carries it too.
        call_id: CallId,
        /// The tool.
        name: String,
        /// The checked arguments.
        arguments: Map<String, Value>,
    },
    /// A call's result went into the conversation: what the tool returned, or why the call was
    /// refused before it ran.
    ToolResult {
        /// The turn whose call this is.
        turn: u32,
        /// The call's position in the turn, from 0.
        index: u32,
        /// Names the call.
        call_id: CallId,
        /// The tool.
        name: String,
        /// Whether it ran and succeeded, ran and failed, or was refused.
        status: ToolStatus,
        /// The result object the model receives.
        result: Value,
    },
    /// The request of `turn` is about to be sent: what its prompt costs by the session's
    /// estimate, and the window it must fit. Only when the config has a [`crate::Window`].
    PromptEstimate {
        /// The request's number, from 1.
        turn: u32,
        /// The estimated prompt tokens (conservative: calibrated on the last turn's count).
        tokens: u64,
        /// The context window, in tokens.
        window: u32,
    },
    /// The server counted fewer prompt tokens than the request held, yet the request fitted its
    /// window, so nothing was cut: the count is of the tokens it processed anew (a prompt-cache
    /// hit, or a server that leaves the cached ones out). Noted, never a stop; the count does not
    /// calibrate the estimate. Only when the config has a [`crate::Window`].
    PromptCountPartial {
        /// The turn whose request it was.
        turn: u32,
        /// The prompt tokens the server counted.
        tokens: u64,
        /// The tokens it said came from its cache (0 when it said none).
        cached: u64,
        /// What the request held at least, by its bytes.
        at_least: u64,
    },
    /// A tool result was shortened to fit the context window: its head and tail kept, a marker
    /// in the middle saying how much was cut and that the tool can be called again.
    ContextTrimmed {
        /// The turn whose request (`window`) or call (`capped`) it was.
        turn: u32,
        /// The result's position in the conversation, from 0.
        message: u32,
        /// The tool that produced it.
        name: String,
        /// Why: on arrival (`capped`), or before a request that would not fit (`window`).
        reason: TrimReason,
        /// Its size before, in bytes.
        bytes_before: u64,
        /// Its size after, in bytes.
        bytes_after: u64,
    },
    /// An input that makes no sense in the current phase was ignored; nothing changed.
    InputRejected {
        /// Which kind of input it was.
        input: InputKind,
        /// Why it made no sense now: the case's name as `reason`, its fields beside it.
        #[serde(flatten)]
        reason: Rejection,
    },
    /// The session ended; [`crate::Action::Stop`] follows.
    Stopped(Stop),
}

/// How a call ended, in a `tool_result` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolStatus {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and reported an error.
    Failed,
    /// The call did not fit the offered tools and never ran.
    Refused,
}
