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

use crate::clock::millis;
use crate::error::MendError;
use crate::interrupt::{Cut, Watch, WATCH_TICK};
use crate::provider::source::{ModelSource, StreamItem};
use crate::record::TurnEnd;
use crate::session::handoff::{handoff, Reader, Taken};
use crate::session::recorder::{Recorder, Transcript};
use crate::tools::{self, ToolContext, ToolRun};
use crate::workspace::runner::TestRunner;

/// Receives every event, in order, as it happens.
pub trait Observer {
    fn event(&mut self, event: &Event);
}

pub struct Driver<'a> {
    pub source: &'a mut dyn ModelSource,
    /// The workspace copy the tools work on.
    pub root: &'a Utf8Path,
    pub task: &'a crate::task::Task,
    pub runner: &'a TestRunner,
    pub observer: &'a mut dyn Observer,
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
    /// Runs one session to its stop. An `Err` is a harness failure (a tool could not run at all);
    /// everything the model or the server does wrong ends in a `Stop` instead.
    pub fn run(&mut self, config: Config) -> Result<Transcript, MendError> {
        let (session, first) = Session::new(config)
            .map_err(|err| MendError::usage(format!("invalid configuration: {err}")))?;
        self.drive(session, first)
            .map(|(transcript, _stopped)| transcript)
    }

    /// Runs a started session (its first actions not yet carried out) to its stop, and returns
    /// the stopped session with the transcript, so that a conversation can go on from it.
    pub fn drive(
        &mut self,
        mut session: Session,
        first: Vec<Action>,
    ) -> Result<(Transcript, Session), MendError> {
        let clock = Instant::now();
        let now = || Millis(millis(clock.elapsed()));
        let mut queue: VecDeque<Action> = first.into();
        let mut recorder = Recorder::new(clock)?;
        let mut stream: Option<OpenStream> = None;
        let replays = self.source.replays();

        loop {
            // Ctrl-C and the deadline are looked at between any two steps.
            let watch = Watch {
                deadline: session
                    .next_deadline()
                    .filter(|_| !replays)
                    .map(|at| clock + Duration::from_millis(at.0)),
                on_interrupt: true,
            };
            // A recorded cut at the deadline happens at the deadline, however fast the replay.
            let cut_at = |session: &Session| match session.next_deadline() {
                Some(deadline) if replays => now().max(deadline),
                _ => now(),
            };
            if let Some(cut) = watch.check() {
                queue.extend(session.handle(now(), cut_input(cut)));
            }
            if let Some(action) = queue.pop_front() {
                match action {
                    Action::Emit(event) => {
                        recorder.event(&event);
                        self.observer.event(&event);
                    }
                    Action::SendRequest { turn, body, codec } => {
                        recorder.request_sent(turn, &body);
                        stream = Some(OpenStream::start(self.source.open(turn, &body, codec)));
                    }
                    Action::DispatchTool {
                        call_id,
                        name,
                        arguments,
                    } => {
                        if let Some(cut) = self.source.cut_before(&call_id) {
                            queue.extend(session.handle(cut_at(&session), cut_input(cut)));
                            continue;
                        }
                        let context = ToolContext {
                            root: self.root,
                            task: self.task,
                            runner: self.runner,
                            watch,
                        };
                        let started = Instant::now();
                        let run = tools::execute(&context, &name, &arguments)?;
                        let elapsed = millis(started.elapsed());
                        recorder.tool_finished(&call_id, &name, started, elapsed);
                        let input = match run {
                            ToolRun::Finished(outcome) => Input::ToolFinished { call_id, outcome },
                            ToolRun::Cut(cut) => cut_input(cut),
                        };
                        queue.extend(session.handle(now(), input));
                    }
                    Action::Stop(stop) => {
                        if let Some(open) = stream.take() {
                            recorder.stream_closed(millis(open.sent.elapsed()));
                        }
                        return Ok((recorder.stop(stop)?, session));
                    }
                    other => {
                        return Err(MendError::harness(format!(
                            "the core asked for an action this shell does not know: {other:?}"
                        )))
                    }
                }
                continue;
            }
            let Some(open) = stream.as_mut() else {
                return Err(MendError::harness(
                    "the session is waiting for nothing (no request out, no tool running); this is a bug in mend",
                ));
            };
            if !session.is_streaming() {
                recorder.stream_closed(millis(open.sent.elapsed()));
                stream = None;
                continue;
            }
            // An item that arrives is handled at once; the tick only bounds the reaction to a cut.
            let Some(item) = open.next(WATCH_TICK) else {
                continue;
            };
            let at = match item {
                Arrived::Cut(_) => cut_at(&session),
                _ => now(),
            };
            let input = match item {
                Arrived::Line { line, at_ms } => {
                    recorder.line_received(at_ms, &line)?;
                    Input::StreamLine { line }
                }
                Arrived::End => {
                    recorder.body_ended(TurnEnd::Eof);
                    Input::StreamEnd
                }
                Arrived::Failed(error) => {
                    recorder.body_ended(TurnEnd::TransportFailed {
                        error: error.clone(),
                    });
                    Input::TransportFailed { error }
                }
                Arrived::Cut(cut) => cut_input(cut),
            };
            queue.extend(session.handle(at, input));
            // The turn ends here, before its calls run: they are not the model's time.
            if !session.is_streaming() {
                if let Some(open) = stream.take() {
                    recorder.stream_closed(millis(open.sent.elapsed()));
                }
            }
        }
    }
}
