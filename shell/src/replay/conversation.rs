//! The one replayer: a record's conversation played again on a workspace copy, message by
//! message, each session continuing the one before, with the tools run for real and every
//! outcome compared with the record. `mend replay` judges what it finds; `mend resume` goes on
//! live from the stopped session it leaves.

use camino::Utf8Path;
use mend_core::{Config, Millis, Session};
use serde_json::json;

use crate::attempt::driver::{drive, start};
use crate::attempt::recorder::Transcript;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::error::MendError;
use crate::record::metrics::RunMetrics;
use crate::record::{Message, Record};
use crate::replay::divergence::{
    first_call_divergence, first_repair_divergence, first_request_divergence, same_tests,
};
use crate::replay::source::ReplaySource;
use crate::setup::Setup;
use crate::tools::ToolContext;
use crate::verdict::check::{independent_check, TestRun};

/// What playing a record's conversation again gave.
pub(crate) struct Replayed {
    /// The stopped session of the last message played, for the conversation to go on from.
    pub session: Option<Session>,
    /// One per message played, in order.
    pub transcripts: Vec<Transcript>,
    /// The independent check before the first message, when the record has one.
    pub tests_before: Option<TestRun>,
    /// The first place where the replay differs from the record.
    pub divergence: Option<RunEvent>,
    /// The played sessions' figures added up, with the check before.
    pub metrics: RunMetrics,
}

/// Plays `record`'s messages on the copy at `root`. Stops after the first message that
/// diverges, unless `to_the_end` (blessing a record rewrites every message).
pub(crate) fn replay_conversation(
    record: &Record,
    setup: &Setup,
    root: &Utf8Path,
    render: &mut dyn Render,
    to_the_end: bool,
) -> Result<Replayed, MendError> {
    let mut replayed = Replayed {
        session: None,
        transcripts: Vec::new(),
        tests_before: None,
        divergence: None,
        metrics: RunMetrics::default(),
    };
    if let Some(recorded) = &record.tests_before {
        check_before(recorded, setup, root, render, &mut replayed)?;
    }
    let first_text = record
        .messages
        .first()
        .and_then(|message| message.text.as_deref())
        .unwrap_or_default();
    let config = record.settings.config(first_text, setup.task);
    recorded_commands(record, 0, render);
    for (number, message) in record.messages.iter().enumerate() {
        let place = if record.messages.len() > 1 {
            format!("message {}, ", number + 1)
        } else {
            String::new()
        };
        let started = message_session(replayed.session.as_ref(), &config, message)?;
        if record.messages.len() > 1 {
            render.run_event(&RunEvent::Message {
                number: number + 1,
                text: message.text.clone(),
                live: false,
            });
        }
        let mut source = ReplaySource::new(&message.turns, &message.tool_calls, &message.stop);
        let bench = ToolContext::new(root, setup.task, setup.runner);
        let (transcript, stopped) = drive(bench, &mut source, render, started)?;
        replayed.metrics.add(&transcript.metrics);
        let stop_differs =
            (transcript.stop.reason != message.stop.reason).then(|| RunEvent::Divergence {
                what: format!("{place}the stop reason"),
                expected: json!(message.stop.reason),
                got: json!(transcript.stop.reason),
            });
        let first_request = (number == 0)
            .then(|| first_request_divergence(&message.turns, &transcript.turns))
            .flatten();
        let divergence = source
            .missing_turn
            .take()
            .or(first_request)
            .or_else(|| first_call_divergence(&message.tool_calls, &transcript.tool_calls, &place))
            .or_else(|| first_repair_divergence(&message.turns, &transcript.turns, &place))
            .or(stop_differs);
        let diverged = divergence.is_some();
        replayed.divergence = replayed.divergence.take().or(divergence);
        replayed.transcripts.push(transcript);
        replayed.session = Some(stopped);
        recorded_commands(record, number + 1, render);
        if diverged && !to_the_end {
            break;
        }
    }
    Ok(replayed)
}

/// Runs the independent check before the first message again, and compares it with the
/// record's.
fn check_before(
    recorded: &TestRun,
    setup: &Setup,
    root: &Utf8Path,
    render: &mut dyn Render,
    replayed: &mut Replayed,
) -> Result<(), MendError> {
    let tests_before = independent_check(setup.runner, &setup.task.test, root)?;
    render.run_event(&RunEvent::TestsBefore {
        run: tests_before.clone(),
    });
    replayed.metrics.verify_ms += tests_before.duration_ms;
    if !same_tests(recorded, &tests_before) {
        replayed.divergence = Some(RunEvent::Divergence {
            what: "the starting tests".to_owned(),
            expected: json!(recorded),
            got: json!(tests_before),
        });
    }
    replayed.tests_before = Some(tests_before);
    Ok(())
}

/// Tells the chat commands the record has after `messages` messages, where they were typed.
fn recorded_commands(record: &Record, messages: usize, render: &mut dyn Render) {
    for command in &record.commands {
        if command.after_messages == messages {
            render.run_event(&RunEvent::ChatCommand(command.clone()));
        }
    }
}

/// The session of a recorded message: the first starts the conversation with `config` (its
/// task is the message), every later one continues the one before as it did when recorded.
fn message_session(
    previous: Option<&Session>,
    config: &Config,
    message: &Message,
) -> Result<Session, MendError> {
    let max_turns = message.max_turns.unwrap_or(config.max_turns);
    let deadline = message.deadline_ms.map(Millis);
    match previous {
        None => start(Config {
            task: message.text.clone().unwrap_or_default(),
            max_turns,
            deadline: deadline.or(config.deadline),
            ..config.clone()
        }),
        Some(previous) => previous
            .resume(message.text.as_deref(), max_turns, deadline)
            .map_err(|err| MendError::usage(format!("invalid configuration: {err}"))),
    }
}
