//! A conversation that goes on after its session stopped: the user's next message in `mend
//! chat`. Each message is a new session with a fresh turn budget and repetition guard, so a
//! session still ends with exactly one stop; what the model learnt (the history, its TODO list,
//! the tool statistics) carries over.

use crate::prelude::*;

use alloc::sync::Arc;

use crate::config::ConfigError;
use crate::input::{error_result, Millis};
use crate::session::Session;
use crate::wire::{Message, Role};

/// What the model is told about a call whose turn was cut before it ran.
pub const NOT_RUN: &str = "not run: the user interrupted the turn before this call";

/// Why a follow-up was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FollowUpError {
    /// The session has not stopped: a request is out or tools are running.
    StillRunning,
    /// The limits given to [`Session::resume`] are ones no session can start with.
    Config(ConfigError),
}

impl core::fmt::Display for FollowUpError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FollowUpError::StillRunning => f.write_str("the session is still running"),
            FollowUpError::Config(err) => err.fmt(f),
        }
    }
}

impl Session {
    /// The session that continues this stopped one with the user's `text`, its first actions
    /// (`model_start`, the request of turn 1) queued as [`Session::new`] queues them. Calls of the last turn that never got a
    /// result are answered with an error first: every call in a history has its answer.
    pub fn follow_up(&self, text: &str) -> Result<Session, FollowUpError> {
        if self.stopped().is_none() {
            return Err(FollowUpError::StillRunning);
        }
        let mut conversation = self.conversation().to_vec();
        conversation.extend(unanswered_calls(&conversation));
        conversation.push(Arc::new(Message::user(text)));
        Ok(self.continued(conversation, self.config().clone()))
    }

    /// The session that goes on from this stopped one under limits of its own (`mend resume`):
    /// with the user's `text` when given, else from where it stopped — its request repeats the
    /// conversation as it stands, so a run cut by the turn budget, a deadline or Ctrl-C picks up
    /// where it was. Calls that never got a result are answered with an error first, as in
    /// [`Session::follow_up`]; its first actions are queued.
    pub fn resume(
        &self,
        text: Option<&str>,
        max_turns: u32,
        deadline: Option<Millis>,
    ) -> Result<Session, FollowUpError> {
        if self.stopped().is_none() {
            return Err(FollowUpError::StillRunning);
        }
        let config = crate::config::Config {
            max_turns,
            deadline,
            ..self.config().clone()
        };
        config.check().map_err(FollowUpError::Config)?;
        let mut conversation = self.conversation().to_vec();
        conversation.extend(unanswered_calls(&conversation));
        if let Some(text) = text {
            conversation.push(Arc::new(Message::user(text)));
        }
        Ok(self.continued(conversation, config))
    }
}

/// Error results for the calls of the last assistant message that have none yet.
fn unanswered_calls(conversation: &[Arc<Message>]) -> Vec<Arc<Message>> {
    let Some(last) = conversation
        .iter()
        .rposition(|message| message.role == Role::Assistant)
    else {
        return Vec::new();
    };
    let answered = conversation[last + 1..]
        .iter()
        .filter(|message| message.role == Role::Tool)
        .count();
    conversation[last]
        .tool_calls
        .iter()
        .skip(answered)
        .map(|call| {
            Arc::new(Message::tool_result(
                &call.function.name,
                call.id.as_deref(),
                error_result(NOT_RUN).to_string(),
            ))
        })
        .collect()
}
