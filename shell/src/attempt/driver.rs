//! The only loop in mend: feeds the world into the session and carries out its actions.
//!
//! Actions are taken from the session's queue and performed in order, the first ones of a new
//! session like every later one. Events are handed to the observer at once, so text appears
//! while the model streams. The response body is read only while the session wants lines; once
//! it leaves the streaming phase the rest is dropped.

use std::collections::VecDeque;
use std::thread;
use std::time::{Duration, Instant};

use mend_core::{Action, CallId, Config, Event, Input, Millis, Session, StreamLine};
use serde_json::{Map, Value};

use crate::attempt::handoff::{handoff, Reader, Taken};
use crate::attempt::recorder::{Recorder, Transcript};
use crate::clock::{millis, SessionClock};
use crate::error::MendError;
use crate::hooks::call::{around, Deciders, Pending};
use crate::hooks::gate::Gate;
use crate::hooks::spawn::Place;
use crate::interrupt::{Cut, Watch, WATCH_TICK};
use crate::provider::source::{ModelSource, StreamItem};
use crate::record::HookRun;
use crate::record::TurnEnd;
use crate::tools::{self, ToolContext, ToolRun};

/// Receives every event, in order, as it happens.
pub trait Observer {
    /// Called for each event as the session emits it, before the next is made.
    fn event(&mut self, event: &Event);

    /// The hooks run about a call (or, in a replay, the record's), each with its decision.
    fn hooks_ran(&mut self, _call_id: &str, _tool: &str, _runs: &[crate::record::HookRun]) {}
}

/// A new session from `config`, its first actions queued, not yet driven. A config the core
/// refuses came from the user's flags or task file.
pub fn start(config: Config) -> Result<Session, MendError> {
    Session::new(config).map_err(|err| MendError::usage(format!("invalid configuration: {err}")))
}

/// Runs a session to its stop, starting with the actions it has queued — the one way mend drives a session, live or replayed:
/// its requests go to `source`, its tools run on `bench`, and `observer` sees every event as it
/// happens. Returns the transcript, and the stopped session for a conversation to go on from.
/// An `Err` is a harness failure (a tool could not run at all); everything the model or the
/// server does wrong ends in a `Stop` instead.
pub fn drive(
    bench: ToolContext,
    source: &mut dyn ModelSource,
    observer: &mut dyn Observer,
    session: Session,
) -> Result<(Transcript, Session), MendError> {
    let clock = SessionClock::start();
    let driver = Driver {
        replays: source.replays(),
        source,
        bench,
        observer,
        clock,
        recorder: Recorder::new(clock.origin())?,
        session_id: crate::hooks::gate::session_id(),
        stream: None,
    };
    driver.run(session)
}

/// The loop's state between two steps.
struct Driver<'a> {
    source: &'a mut dyn ModelSource,
    bench: ToolContext<'a>,
    observer: &'a mut dyn Observer,
    /// The session's `now`, and what the body's lines are stamped on.
    clock: SessionClock,
    /// The turns are a record's: the record says where a deadline landed.
    replays: bool,
    recorder: Recorder,
    /// What the hooks are told this session is called.
    session_id: String,
    stream: Option<OpenStream>,
}

/// Stream items read ahead of the session; bounds memory when the session is slower.
const READ_AHEAD_ITEMS: usize = 256;

/// A response body being read on its own thread, so that a stalled server never blocks Ctrl-C.
/// Its lines come stamped by the source with the time they arrived, however long the loop takes
/// to get to them.
struct OpenStream {
    items: Reader<StreamItem>,
    /// Items taken from the queue in one batch, not yet given to the session.
    taken: VecDeque<StreamItem>,
    /// When the body started to be read, on the session's clock.
    sent: Millis,
}

impl OpenStream {
    fn start(body: Box<dyn Iterator<Item = StreamItem> + Send>, sent: Millis) -> OpenStream {
        let (writer, items) = handoff(READ_AHEAD_ITEMS);
        thread::spawn(move || {
            for item in body {
                if writer.push(item).is_err() {
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
    fn next(&mut self, tick: Duration) -> Option<StreamItem> {
        if self.taken.is_empty() {
            match self.items.take_all(&mut self.taken, tick) {
                Taken::Items => {}
                Taken::TimedOut => return None,
                Taken::Closed => return Some(StreamItem::End),
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
        self.clock.now()
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
                .map(|at| self.clock.instant(at)),
            on_interrupt: true,
        }
    }

    fn run(mut self, mut session: Session) -> Result<(Transcript, Session), MendError> {
        loop {
            // Ctrl-C and the deadline are looked at between any two steps.
            let watch = self.watch(&session);
            if let Some(cut) = watch.check() {
                session.handle(self.now(), cut_input(cut));
            }
            if let Some(action) = session.poll_action() {
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
                let body = self.source.open(turn, &body, protocol, self.clock);
                self.stream = Some(OpenStream::start(body, self.now()));
            }
            Action::DispatchTool {
                call_id,
                name,
                arguments,
            } => {
                if let Some(cut) = self.source.cut_before(&call_id) {
                    session.handle(self.cut_at(session), cut_input(cut));
                    return Ok(None);
                }
                let (run, runs) = self.hooked_call(&call_id, &name, &arguments, watch)?;
                self.recorder.hooks_ran(&call_id, &runs);
                self.observer.hooks_ran(&call_id.0, &name, &runs);
                let input = match run {
                    ToolRun::Finished(outcome) => Input::ToolFinished { call_id, outcome },
                    ToolRun::Cut(cut) => cut_input(cut),
                };
                session.handle(self.now(), input);
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

    /// Runs one call between its hooks (the record's decisions in a replay), timing the tool
    /// apart from them.
    fn hooked_call(
        &mut self,
        call_id: &CallId,
        name: &str,
        arguments: &Map<String, Value>,
        watch: Watch,
    ) -> Result<(ToolRun, Vec<HookRun>), MendError> {
        let place = Place {
            runner: self.bench.runner,
            root: self.bench.root,
            watch,
        };
        let deciders = match self.source.recorded_hooks(call_id) {
            Some(recorded) => Deciders::Recorded(recorded),
            None => Deciders::Live {
                hooks: &self.bench.task.hooks,
                gate: Gate {
                    place,
                    session_id: &self.session_id,
                },
            },
        };
        let pending = Pending {
            call_id: &call_id.0,
            name,
            arguments,
        };
        let context = ToolContext {
            watch,
            ..self.bench
        };
        let recorder = &mut self.recorder;
        around(&deciders, &pending, |arguments| {
            let started = Instant::now();
            let run = tools::execute(&context, name, arguments)?;
            recorder.tool_finished(call_id, name, started, millis(started.elapsed()));
            Ok(run)
        })
    }

    fn close_stream(&mut self) {
        if let Some(open) = self.stream.take() {
            let elapsed = self.now().0.saturating_sub(open.sent.0);
            self.recorder.stream_closed(elapsed);
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
        let sent = open.sent;
        self.hand_over(item, sent, session)
    }

    /// Hands the session one item of the body sent at `sent`, recorded first.
    fn hand_over(
        &mut self,
        item: StreamItem,
        sent: Millis,
        session: &mut Session,
    ) -> Result<(), MendError> {
        match item {
            StreamItem::Line(line) => self.take_line(line, sent, session)?,
            StreamItem::End => {
                let at = self.now();
                self.recorder.body_ended(TurnEnd::Eof);
                session.handle(at, Input::StreamEnd);
            }
            StreamItem::Failed(error) => {
                let at = self.now();
                self.recorder.body_ended(TurnEnd::TransportFailed {
                    error: error.clone(),
                });
                session.handle(at, Input::TransportFailed { error });
            }
            StreamItem::Cut(cut) => session.handle(self.cut_at(session), cut_input(cut)),
        }
        // The turn ends here, before its calls run: they are not the model's time.
        if !session.is_streaming() {
            self.close_stream();
        }
        Ok(())
    }

    /// One line of the body, as the reader stamped it: recorded with the time it arrived after
    /// the request was sent, then given to the session unchanged.
    fn take_line(
        &mut self,
        line: StreamLine,
        sent: Millis,
        session: &mut Session,
    ) -> Result<(), MendError> {
        let at = self.now();
        self.recorder
            .line_received(line.arrived.0.saturating_sub(sent.0), &line.bytes)?;
        session.handle(at, Input::StreamLine(line));
        Ok(())
    }
}
