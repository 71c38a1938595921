//! Why the session ignored an input: each case the contract rejects, by name.

use serde::{Deserialize, Serialize};

use crate::input::{CallId, Millis};

/// Why an input made no sense in the phase the session was in, in an `input_rejected` event.
/// The input changed nothing. A caller that performs the actions in order never causes one; each
/// points at a driver that answered something it was not asked.
///
/// In JSON the case is the event's `reason` (snake_case), and its fields sit beside it:
/// `{"type": "input_rejected", "input": "tool_finished", "reason": "other_tool_running",
/// "call_id": "call_b", "running": "call_a"}`. An input after the stop is not rejected: it
/// yields no action at all. New cases may be added in a minor release: match with a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rejection {
    /// A stream line, the end of a stream or a transport failure arrived while no response was
    /// being read: the turn had ended and its calls were running.
    NoResponseOpen,
    /// A tool's result arrived while no call was running: the model's response was being read.
    NoToolRunning {
        /// The call the result was for.
        call_id: CallId,
    },
    /// A result arrived for another call than the one running: calls run one at a time, in the
    /// model's order, and each result must name the call just dispatched.
    OtherToolRunning {
        /// The call the result was for.
        call_id: CallId,
        /// The call that was running, still waiting for its result.
        running: CallId,
    },
    /// `DeadlinePassed` arrived before the deadline ([`crate::Session::next_deadline`]).
    DeadlineNotReached {
        /// The session's deadline.
        deadline: Millis,
        /// The `now` the input came with.
        now: Millis,
    },
    /// `DeadlinePassed` arrived, but the session has no deadline.
    NoDeadline,
    /// A reason this version does not know, read from JSON: one a newer core named, or the
    /// sentence older cores wrote where today's name is. The session never rejects with it.
    #[serde(other)]
    Unknown,
}

impl core::fmt::Display for Rejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Rejection::NoResponseOpen => {
                f.write_str("no response was being read: the turn's tools were running")
            }
            Rejection::NoToolRunning { call_id } => {
                write!(
                    f,
                    "a result for `{call_id}` arrived while no tool was running"
                )
            }
            Rejection::OtherToolRunning { call_id, running } => write!(
                f,
                "a result for `{call_id}` arrived while `{running}` was running"
            ),
            Rejection::DeadlineNotReached { deadline, now } => write!(
                f,
                "the deadline is at {} ms, not yet reached at {} ms",
                deadline.0, now.0
            ),
            Rejection::NoDeadline => f.write_str("this session has no deadline"),
            Rejection::Unknown => f.write_str("a reason this version of mend does not know"),
        }
    }
}
