//! The `Stop` hooks of a run: when the model has finished, they may send it back to work, as
//! Claude Code's do — a block's reason becomes the next message of the conversation, a session
//! of its own in the record, which a replay plays as it plays any message. A run goes back at
//! most [`MAX_ROUNDS`] times, whatever the hooks say.

use mend_core::{Session, StopReason};

use crate::hooks::gate::Gate;
use crate::hooks::outcome::{self as decided, Outcome};
use crate::record::hook_run::HookRun;
use crate::task::hooks::Hooks;

/// How many times Stop hooks may send one run back to work.
pub(crate) const MAX_ROUNDS: usize = 3;

/// What the Stop hooks said of a stopped session: their runs, and the message the model goes
/// back to work with when one blocked.
#[derive(Default)]
pub(crate) struct AtStop {
    pub runs: Vec<HookRun>,
    pub go_on_with: Option<String>,
}

/// Runs the Stop hooks when `stopped` finished on its own (`assistant_finished`); `round` counts
/// the times the run already went back.
pub(crate) fn at_stop(hooks: &Hooks, gate: &Gate, stopped: &Session, round: usize) -> AtStop {
    let finished = stopped
        .stopped()
        .is_some_and(|stop| stop.reason == StopReason::AssistantFinished);
    let commands: Vec<_> = hooks
        .stop
        .iter()
        .flat_map(|matched| &matched.commands)
        .collect();
    if !finished || commands.is_empty() {
        return AtStop {
            runs: Vec::new(),
            go_on_with: None,
        };
    }
    let last = stopped
        .conversation()
        .last()
        .map(|message| message.content.as_str());
    // A cut (Ctrl-C, the deadline) while the hooks run ends the run as it stands.
    let runs = gate
        .stop_event(&commands, last, round > 0)
        .unwrap_or_default();
    let go_on_with = match decided::outcome(&runs) {
        Outcome::Blocked { reason } if round < MAX_ROUNDS => Some(reason),
        _ => None,
    };
    AtStop { runs, go_on_with }
}
