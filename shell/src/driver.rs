//! The only loop in mend: feeds the world into the session and carries out its actions.
//!
//! Actions are performed in the order the session returned them. Events are handed to the
//! observer at once, so text appears while the model streams. The response body is read only
//! while the session wants lines; once it leaves the streaming phase the rest is dropped.

use std::collections::VecDeque;
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use camino::Utf8Path;
use mend_core::{
    Action, ChatRequest, Codec, Config, Event, Input, Millis, Session, Stop, TransportError,
};
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::interrupt::{Cut, Watch, WATCH_TICK};
use crate::record::{RecordedCall, RecordedTurn, TurnEnd};
use crate::runner::TestRunner;
use crate::spill::{LineList, SpillWriter};
use crate::tools::{self, ToolContext, ToolRun};

/// One item of a response body.
pub enum StreamItem {
    Line(Vec<u8>),
    /// The body ended.
    End,
    Failed(TransportError),
    /// A replayed record says the user pressed Ctrl-C here.
    Interrupted,
}

/// Where turns come from: a live server, or a record being replayed.
pub trait ModelSource {
    /// Sends `body` and returns its response body as items. A failure to even get a response
    /// (connection refused, HTTP error status) is the first item.
    /// `codec` says how to send it: [`mend_core::Codec::http_request`] gives the whole request.
    fn open(
        &mut self,
        turn: u32,
        body: &ChatRequest,
        codec: Codec,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send>;

    /// Whether the call must be cut instead of run: a replay reproduces a Ctrl-C that landed
    /// while the recorded call ran. A live source never cuts.
    fn cut_before(&mut self, _call_id: &mend_core::CallId) -> bool {
        false
    }
}

/// Receives every event, in order, as it happens.
pub trait Observer {
    fn event(&mut self, event: &Event);
}

/// Per-run figures, in the record and on the final summary line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    pub model_requests: u32,
    pub streamed_bytes: u64,
    /// Time from sending each request to its first line, per turn.
    pub first_byte_ms: Vec<u64>,
    /// Time spent waiting on the model (request sent to turn complete), all turns.
    pub model_ms: u64,
    pub tool_ms: u64,
    /// The part of `tool_ms` spent running the repository's tests (`run_tests`).
    #[serde(default)]
    pub run_tests_ms: u64,
    pub verify_ms: u64,
    pub prompt_tokens: u64,
    pub eval_tokens: u64,
}

impl RunMetrics {
    /// Adds a later session's figures (a chat's next message) to these.
    pub fn add(&mut self, later: &RunMetrics) {
        self.model_requests += later.model_requests;
        self.streamed_bytes += later.streamed_bytes;
        self.first_byte_ms.extend(&later.first_byte_ms);
        self.model_ms += later.model_ms;
        self.tool_ms += later.tool_ms;
        self.run_tests_ms += later.run_tests_ms;
        self.verify_ms += later.verify_ms;
        self.prompt_tokens += later.prompt_tokens;
        self.eval_tokens += later.eval_tokens;
    }
}

/// What the loop saw: the raw turns, the tool calls with their results, and the stop.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    pub turns: Vec<RecordedTurn>,
    pub tool_calls: Vec<RecordedCall>,
    pub stop: Stop,
    pub metrics: RunMetrics,
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

/// A response body being read on its own thread, so that a stalled server never blocks Ctrl-C.
struct OpenStream {
    items: mpsc::Receiver<StreamItem>,
    sent: Instant,
}

impl OpenStream {
    fn start(body: Box<dyn Iterator<Item = StreamItem> + Send>) -> OpenStream {
        let (tx, items) = mpsc::sync_channel(READ_AHEAD_ITEMS);
        thread::spawn(move || {
            for item in body {
                if tx.send(item).is_err() {
                    // The session stopped wanting lines; the rest of the body is dropped.
                    return;
                }
            }
        });
        OpenStream {
            items,
            sent: Instant::now(),
        }
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
        let mut turns: Vec<RecordedTurn> = Vec::new();
        let mut calls: Vec<RecordedCall> = Vec::new();
        let mut metrics = RunMetrics::default();
        let mut stream: Option<OpenStream> = None;
        let spill_failed = |err: std::io::Error| {
            MendError::harness(format!(
                "cannot keep the streamed lines in a temporary file: {err}"
            ))
        };
        let mut spill = SpillWriter::new().map_err(spill_failed)?;
        // The byte range of each finished turn's lines in the spill file.
        let mut ranges: Vec<(u64, u64, usize)> = Vec::new();

        loop {
            // Ctrl-C and the deadline are looked at between any two steps.
            let watch = Watch {
                deadline: session
                    .next_deadline()
                    .map(|at| clock + Duration::from_millis(at.0)),
                on_interrupt: true,
            };
            if let Some(cut) = watch.check() {
                queue.extend(session.handle(now(), cut_input(cut)));
            }
            if let Some(action) = queue.pop_front() {
                match action {
                    Action::Emit(event) => {
                        observe_metrics(&event, &mut metrics);
                        note_call(&event, &mut calls);
                        self.observer.event(&event);
                    }
                    Action::SendRequest { turn, body, codec } => {
                        metrics.model_requests += 1;
                        if !turns.is_empty() {
                            ranges.push(spill.turn_range());
                        }
                        spill.start_turn();
                        turns.push(RecordedTurn {
                            turn,
                            request_sha256: Some(request_digest(&body)),
                            started_ms: Some(millis(clock.elapsed())),
                            duration_ms: None,
                            lines: LineList::InMemory(Vec::new()),
                            end: TurnEnd::SessionEnded,
                        });
                        stream = Some(OpenStream::start(self.source.open(turn, &body, codec)));
                    }
                    Action::DispatchTool {
                        call_id,
                        name,
                        arguments,
                    } => {
                        if self.source.cut_before(&call_id) {
                            queue.extend(session.handle(now(), Input::Cancel));
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
                        metrics.tool_ms += elapsed;
                        if name == "run_tests" {
                            metrics.run_tests_ms += elapsed;
                        }
                        if let Some(call) =
                            calls.iter_mut().rev().find(|call| call.call_id == call_id)
                        {
                            call.duration_ms = elapsed;
                            call.started_ms = Some(millis(started.duration_since(clock)));
                        }
                        let input = match run {
                            ToolRun::Finished(outcome) => Input::ToolFinished { call_id, outcome },
                            ToolRun::Cut(cut) => cut_input(cut),
                        };
                        queue.extend(session.handle(now(), input));
                    }
                    Action::Stop(stop) => {
                        if let Some(open) = stream.take() {
                            close_turn(&open, &mut turns, &mut metrics);
                        }
                        if !turns.is_empty() {
                            ranges.push(spill.turn_range());
                        }
                        let file = spill.finish().map_err(spill_failed)?;
                        for (turn, (start, end, count)) in turns.iter_mut().zip(ranges) {
                            turn.lines = LineList::Spilled {
                                file: Arc::clone(&file),
                                start,
                                end,
                                count,
                            };
                        }
                        let transcript = Transcript {
                            turns,
                            tool_calls: calls,
                            stop,
                            metrics,
                        };
                        return Ok((transcript, session));
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
                close_turn(open, &mut turns, &mut metrics);
                stream = None;
                continue;
            }
            // An item that arrives is handled at once; the tick only bounds the reaction to a cut.
            let item = match open.items.recv_timeout(WATCH_TICK) {
                Ok(item) => item,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => StreamItem::End,
            };
            let turn = turns
                .last_mut()
                .ok_or_else(|| MendError::harness("a stream without a turn"))?;
            let input = match item {
                StreamItem::Line(line) => {
                    let at_ms = millis(open.sent.elapsed());
                    if spill.turn_range().2 == 0 {
                        metrics.first_byte_ms.push(at_ms);
                    }
                    metrics.streamed_bytes += line.len() as u64 + 1;
                    spill.push(at_ms, &line).map_err(spill_failed)?;
                    Input::StreamLine { line }
                }
                StreamItem::End => {
                    turn.end = TurnEnd::Eof;
                    Input::StreamEnd
                }
                StreamItem::Failed(error) => {
                    turn.end = TurnEnd::TransportFailed {
                        error: error.clone(),
                    };
                    Input::TransportFailed { error }
                }
                StreamItem::Interrupted => Input::Cancel,
            };
            queue.extend(session.handle(now(), input));
            // The turn ends here, before its calls run: they are not the model's time.
            if !session.is_streaming() {
                if let Some(open) = stream.take() {
                    close_turn(&open, &mut turns, &mut metrics);
                }
            }
        }
    }
}

/// The current turn's stream is over: its time goes to the turn and to the model's total.
fn close_turn(open: &OpenStream, turns: &mut [RecordedTurn], metrics: &mut RunMetrics) {
    let elapsed = millis(open.sent.elapsed());
    metrics.model_ms += elapsed;
    if let Some(turn) = turns.last_mut() {
        turn.duration_ms = Some(elapsed);
    }
}

/// Keeps a row per call result; arguments come from the call's start event when it ran.
fn note_call(event: &Event, calls: &mut Vec<RecordedCall>) {
    match event {
        Event::ToolStart {
            turn,
            index,
            call_id,
            name,
            arguments,
        } => calls.push(RecordedCall {
            turn: *turn,
            index: *index,
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
            status: mend_core::ToolStatus::Ok,
            result: serde_json::Value::Null,
            duration_ms: 0,
            started_ms: None,
        }),
        Event::ToolResult {
            turn,
            index,
            call_id,
            name,
            status,
            result,
        } => match calls.last_mut() {
            Some(call) if call.turn == *turn && call.index == *index && call.result.is_null() => {
                call.status = *status;
                call.result = result.clone();
            }
            _ => calls.push(RecordedCall {
                turn: *turn,
                index: *index,
                call_id: call_id.clone(),
                name: name.clone(),
                arguments: serde_json::Map::new(),
                status: *status,
                result: result.clone(),
                duration_ms: 0,
                started_ms: None,
            }),
        },
        _ => {}
    }
}

fn observe_metrics(event: &Event, metrics: &mut RunMetrics) {
    if let Event::ModelDone { metrics: turn, .. } = event {
        metrics.prompt_tokens += turn.prompt_eval_count.unwrap_or(0);
        metrics.eval_tokens += turn.eval_count.unwrap_or(0);
    }
}

pub fn request_digest(body: &ChatRequest) -> String {
    crate::atomic::sha256_hex(&serde_json::to_vec(body).unwrap_or_default())
}

pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
