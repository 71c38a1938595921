//! The only loop in mend: feeds the world into the session and carries out its actions.
//!
//! Actions are performed in the order the session returned them. Events are handed to the
//! observer at once, so text appears while the model streams. The response body is read only
//! while the session wants lines; once it leaves the streaming phase the rest is dropped.

use std::collections::VecDeque;
use std::thread;
use std::time::{Duration, Instant};

use camino::Utf8Path;
use mend_core::{Action, Config, Event, Input, Millis, Session, TransportError};

use crate::attempt::handoff::{handoff, Reader, Taken};
use crate::attempt::recorder::{Recorder, Transcript};
use crate::clock::millis;
use crate::error::MendError;
use crate::exec::runner::TestRunner;
use crate::interrupt::{Cut, Watch, WATCH_TICK};
use crate::provider::source::{ModelSource, StreamItem};
use crate::record::TurnEnd;
use crate::task::Task;
use crate::tools::{self, ToolContext, ToolRun};

/// Receives every event, in order, as it happens.
pub trait Observer {
    fn event(&mut self, event: &Event);
}

/// A session and its first actions, not yet carried out: what [`drive`] runs.
pub type Started = (Session, Vec<Action>);

/// A new session from `config`, not yet driven. A config the core refuses came from the user's
/// flags or task file.
pub fn start(config: Config) -> Result<Started, MendError> {
    Session::new(config).map_err(|err| MendError::usage(format!("invalid configuration: {err}")))
}

/// What a session's tools work on and obey: the workspace copy, the task, the test runner.
#[derive(Clone, Copy)]
pub struct Bench<'a> {
    /// The workspace copy the tools work on.
    pub root: &'a Utf8Path,
    pub task: &'a Task,
    pub runner: &'a TestRunner,
}

/// Runs a started session to its stop — the one way mend drives a session, live or replayed:
/// its requests go to `source`, its tools run on `bench`, and `observer` sees every event as it
/// happens. Returns the transcript, and the stopped session for a conversation to go on from.
/// An `Err` is a harness failure (a tool could not run at all); everything the model or the
/// server does wrong ends in a `Stop` instead.
pub fn drive(
    bench: Bench,
    source: &mut dyn ModelSource,
    observer: &mut dyn Observer,
    (session, first): Started,
) -> Result<(Transcript, Session), MendError> {
    let clock = Instant::now();
    let driver = Driver {
        replays: source.replays(),
        source,
        bench,
        observer,
        clock,
        recorder: Recorder::new(clock)?,
        stream: None,
        queue: first.into(),
    };
    driver.run(session)
}

/// The loop's state between two steps.
struct Driver<'a> {
    source: &'a mut dyn ModelSource,
    bench: Bench<'a>,
    observer: &'a mut dyn Observer,
    /// The origin of the session's `now`.
    clock: Instant,
    /// The turns are a record's: the record says where a deadline landed.
    replays: bool,
    recorder: Recorder,
    stream: Option<OpenStream>,
    /// Actions returned by the session, not yet performed.
    queue: VecDeque<Action>,
}

/// Stream items read ahead of the session; bounds memory when the session is slower.
const READ_AHEAD_ITEMS: usize = 256;

/// An item of the body as its reading thread hands it over: a line comes stamped with the time
/// it arrived, however long the loop takes to get to it.
enum Arrived {
    Line { line: Vec<u8>, at_ms: u64 },
    End,
    Failed(TransportError),
    Cut(Cut),
}

impl Arrived {
    fn stamp(item: StreamItem, sent: Instant) -> Arrived {
        match item {
            StreamItem::Line(line) => Arrived::Line {
                line,
                at_ms: millis(sent.elapsed()),
            },
            StreamItem::End => Arrived::End,
            StreamItem::Failed(error) => Arrived::Failed(error),
            StreamItem::Cut(cut) => Arrived::Cut(cut),
        }
    }
}

/// A response body being read on its own thread, so that a stalled server never blocks Ctrl-C.
struct OpenStream {
    items: Reader<Arrived>,
    /// Items taken from the queue in one batch, not yet given to the session.
    taken: VecDeque<Arrived>,
    sent: Instant,
}

impl OpenStream {
    fn start(body: Box<dyn Iterator<Item = StreamItem> + Send>) -> OpenStream {
        let (writer, items) = handoff(READ_AHEAD_ITEMS);
        let sent = Instant::now();
        thread::spawn(move || {
            for item in body {
                if writer.push(Arrived::stamp(item, sent)).is_err() {
                    // The session stopped wanting lines; the rest of the body is dropped.
                    return;
                }
            }
        });
        OpenStream {
            items,
            taken: VecDeque::new(),
            sent,
        }
    }

    /// The next item of the body; `None` when nothing arrived within `tick`.
    fn next(&mut self, tick: Duration) -> Option<Arrived> {
        if self.taken.is_empty() {
            match self.items.take_all(&mut self.taken, tick) {
                Taken::Items => {}
                Taken::TimedOut => return None,
                Taken::Closed => return Some(Arrived::End),
            }
        }
        self.taken.pop_front()
    }
}

fn cut_input(cut: Cut) -> Input {
    match cut {
        Cut::Interrupted => Input::Cancel,
        Cut::DeadlinePassed => Input::DeadlinePassed,
    }
}

impl Driver<'_> {
    fn now(&self) -> Millis {
        Millis(millis(self.clock.elapsed()))
    }

    /// When a cut lands: now, except that a recorded cut at the deadline happens at the
    /// deadline, however fast the replay.
    fn cut_at(&self, session: &Session) -> Millis {
        match session.next_deadline() {
            Some(deadline) if self.replays => self.now().max(deadline),
            _ => self.now(),
        }
    }

    /// Ctrl-C, and the deadline unless the record says where it landed.
    fn watch(&self, session: &Session) -> Watch {
        Watch {
            deadline: session
                .next_deadline()
                .filter(|_| !self.replays)
                .map(|at| self.clock + Duration::from_millis(at.0)),
            on_interrupt: true,
        }
    }

    fn run(mut self, mut session: Session) -> Result<(Transcript, Session), MendError> {
        loop {
            // Ctrl-C and the deadline are looked at between any two steps.
            let watch = self.watch(&session);
            if let Some(cut) = watch.check() {
                let now = self.now();
                self.queue.extend(session.handle(now, cut_input(cut)));
            }
            if let Some(action) = self.queue.pop_front() {
                if let Some(stop) = self.perform(action, &mut session, watch)? {
                    return Ok((self.recorder.stop(stop)?, session));
                }
                continue;
            }
            self.read_stream(&mut session)?;
        }
    }

    /// Carries out one action; the stop, when it is one.
    fn perform(
        &mut self,
        action: Action,
        session: &mut Session,
        watch: Watch,
    ) -> Result<Option<mend_core::Stop>, MendError> {
        match action {
            Action::Emit(event) => {
                self.recorder.event(&event);
                self.observer.event(&event);
            }
            Action::SendRequest {
                turn,
                body,
                protocol,
            } => {
                self.recorder.request_sent(turn, &body);
                self.stream = Some(OpenStream::start(self.source.open(turn, &body, protocol)));
            }
            Action::DispatchTool {
                call_id,
                name,
                arguments,
            } => {
                if let Some(cut) = self.source.cut_before(&call_id) {
                    let at = self.cut_at(session);
                    self.queue.extend(session.handle(at, cut_input(cut)));
                    return Ok(None);
                }
                let context = ToolContext {
                    root: self.bench.root,
                    task: self.bench.task,
                    runner: self.bench.runner,
                    watch,
                };
                let started = Instant::now();
                let run = tools::execute(&context, &name, &arguments)?;
                let elapsed = millis(started.elapsed());
                self.recorder
                    .tool_finished(&call_id, &name, started, elapsed);
                let input = match run {
                    ToolRun::Finished(outcome) => Input::ToolFinished { call_id, outcome },
                    ToolRun::Cut(cut) => cut_input(cut),
                };
                let now = self.now();
                self.queue.extend(session.handle(now, input));
            }
            Action::Stop(stop) => {
                self.close_stream();
                return Ok(Some(stop));
            }
            other => {
                return Err(MendError::harness(format!(
                    "the core asked for an action this shell does not know: {other:?}"
                )))
            }
        }
        Ok(None)
    }

    fn close_stream(&mut self) {
        if let Some(open) = self.stream.take() {
            self.recorder.stream_closed(millis(open.sent.elapsed()));
        }
    }

    /// Hands the session the next item of the response body, waiting at most a tick for it.
    fn read_stream(&mut self, session: &mut Session) -> Result<(), MendError> {
        let Some(open) = self.stream.as_mut() else {
            return Err(MendError::harness(
                "the session is waiting for nothing (no request out, no tool running); this is a bug in mend",
            ));
        };
        if !session.is_streaming() {
            self.close_stream();
            return Ok(());
        }
        // An item that arrives is handled at once; the tick only bounds the reaction to a cut.
        let Some(item) = open.next(WATCH_TICK) else {
            return Ok(());
        };
        let at = match item {
            Arrived::Cut(_) => self.cut_at(session),
            _ => self.now(),
        };
        let input = match item {
            Arrived::Line { line, at_ms } => {
                self.recorder.line_received(at_ms, &line)?;
                Input::StreamLine { line }
            }
            Arrived::End => {
                self.recorder.body_ended(TurnEnd::Eof);
                Input::StreamEnd
            }
            Arrived::Failed(error) => {
                self.recorder.body_ended(TurnEnd::TransportFailed {
                    error: error.clone(),
                });
                Input::TransportFailed { error }
            }
            Arrived::Cut(cut) => cut_input(cut),
        };
        self.queue.extend(session.handle(at, input));
        // The turn ends here, before its calls run: they are not the model's time.
        if !session.is_streaming() {
            self.close_stream();
        }
        Ok(())
    }
}
