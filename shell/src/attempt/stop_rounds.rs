//! The Stop hooks at the end of each message of `mend run`, `mend chat` and `mend resume`: each
//! time the model finishes they run, and while one blocks, the conversation goes on with its
//! reason as the next message (see [`crate::hooks::stop`]).

use mend_core::Session;

use crate::attempt::driver::drive;
use crate::attempt::recorder::Transcript;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::error::MendError;
use crate::hooks::gate::Gate;
use crate::hooks::spawn::Place;
use crate::hooks::stop::{self, AtStop};
use crate::interrupt::Watch;
use crate::provider::source::ModelSource;
use crate::record::{Message, RunMetrics};
use crate::tools::ToolContext;

/// Runs the Stop hooks once the session `first` drove has stopped and, while one blocks, goes on
/// with its reason as the next message. `text` is what the first message asked (`None`: it went
/// on from where a record stopped); `before` counts the conversation's messages before it. Returns the last transcript with the metrics of every
/// message summed, the messages to record, and the session the last one stopped with. A
/// replayed source never runs them: its record's messages already hold what they decided.
pub(crate) fn until_stop_hooks_agree(
    bench: ToolContext,
    source: &mut dyn ModelSource,
    render: &mut dyn Render,
    text: Option<String>,
    (mut transcript, mut stopped): (Transcript, Session),
    before: usize,
) -> Result<(Transcript, Vec<Message>, Session), MendError> {
    let session_id = crate::hooks::gate::session_id();
    let gate = Gate {
        place: Place {
            runner: bench.runner,
            root: bench.root,
            watch: Watch {
                deadline: None,
                on_interrupt: true,
            },
        },
        session_id: &session_id,
    };
    let mut messages = Vec::new();
    let mut text = text;
    let mut metrics = RunMetrics::default();
    for round in 0.. {
        let at_stop = if source.replays() {
            AtStop::default()
        } else {
            stop::at_stop(&bench.task.hooks, &gate, &stopped, round)
        };
        metrics.add(&transcript.metrics);
        metrics.hook_ms += crate::record::hook_run::total_ms(&at_stop.runs);
        messages.push(Message {
            text: text.take(),
            max_turns: None,
            deadline_ms: None,
            turns: transcript.turns.clone(),
            tool_calls: transcript.tool_calls.clone(),
            stop: transcript.stop.clone(),
            stop_hooks: at_stop.runs,
        });
        let Some(reason) = at_stop.go_on_with else {
            break;
        };
        render.run_event(&RunEvent::Message {
            number: before + messages.len() + 1,
            text: Some(reason.clone()),
            live: true,
        });
        let started = stopped
            .follow_up(&reason)
            .map_err(|err| MendError::harness(format!("cannot go on after a Stop hook: {err}")))?;
        (transcript, stopped) = drive(bench, source, render, started)?;
        text = Some(reason);
    }
    transcript.metrics = metrics;
    Ok((transcript, messages, stopped))
}
