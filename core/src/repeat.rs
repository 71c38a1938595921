//! The repetition guard: a model that makes the same call again and again is told so, and is
//! stopped if it goes on. A pure policy over the stream of calls, like validation.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use crate::protocol::{CallArguments, ModelCall};

/// When the guard speaks up and when it ends the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatLimits {
    /// From this many identical calls in a row, each further one is refused with an error result.
    pub warn_after: u32,
    /// At this many identical calls in a row, the session stops with `repeating`.
    pub stop_after: u32,
}

impl Default for RepeatLimits {
    /// Three identical calls are already one too many for a deterministic tool; five leave no
    /// doubt that the model is stuck.
    fn default() -> Self {
        RepeatLimits {
            warn_after: 3,
            stop_after: 5,
        }
    }
}

/// What the guard says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Repeat {
    Fresh,
    /// Refuse the call: `message` is for the model.
    Refuse {
        message: String,
    },
    /// Refuse the call and stop the session once the turn's results are in.
    Stop {
        message: String,
    },
}

/// The streak of identical calls so far, across turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RepeatGuard {
    last: Option<(String, String)>,
    streak: u32,
}

impl RepeatGuard {
    /// Records `call` and judges it. Calls are identical when their names and their arguments
    /// (as JSON text, key order included) are.
    pub(crate) fn observe(&mut self, call: &ModelCall, limits: RepeatLimits) -> Repeat {
        let arguments = match &call.arguments {
            CallArguments::Object { value } => serde_json::Value::Object(value.clone()).to_string(),
            CallArguments::Unreadable { problem } => problem.clone(),
        };
        let key = (call.name.clone(), arguments);
        if self.last.as_ref() == Some(&key) {
            self.streak = self.streak.saturating_add(1);
        } else {
            self.last = Some(key);
            self.streak = 1;
        }
        // The message is written only for a streak that needs it: most calls are fresh.
        let message = || {
            format!(
                "you have made this exact call (`{}` with the same arguments) {} times in a row and its result will not change; use the result you already have, or do something different",
                call.name, self.streak
            )
        };
        if self.streak >= limits.stop_after {
            Repeat::Stop { message: message() }
        } else if self.streak >= limits.warn_after {
            Repeat::Refuse { message: message() }
        } else {
            Repeat::Fresh
        }
    }
}
