//! What the loop records, kept apart from the loop: the turns with their raw lines (spilled to a
//! temporary file), the tool calls with their results, and the run's figures. The driver calls
//! one named hook per happening; [`Recorder::stop`] hands over the [`Transcript`].

use std::time::Instant;

use mend_core::{CallId, ChatRequest, Event, Stop, TextCall, ToolStatus};
use serde_json::Value;

use crate::clock::millis;
use crate::error::MendError;
use crate::record::metrics::RunMetrics;
use crate::record::spill::{LineList, SpillRange, SpillWriter};
use crate::record::turn::RecoveredText;
use crate::record::usage::{Trim, TurnUsage};
use crate::record::{RecordedCall, RecordedTurn, TurnEnd};
use crate::task::ToolName;

/// What the loop saw: the raw turns, the tool calls with their results, and the stop.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    pub turns: Vec<RecordedTurn>,
    pub tool_calls: Vec<RecordedCall>,
    pub stop: Stop,
    pub metrics: RunMetrics,
}

/// A call as it is being recorded: `result` is `None` until the session reports it.
struct PendingCall {
    call: RecordedCall,
    result: Option<Value>,
}

pub(crate) struct Recorder {
    /// When the loop started: `started_ms` of turns and calls count from here.
    clock: Instant,
    turns: Vec<RecordedTurn>,
    calls: Vec<PendingCall>,
    metrics: RunMetrics,
    spill: SpillWriter,
    /// Where each finished turn's lines lie in the spill file.
    ranges: Vec<SpillRange>,
    /// The estimate of the request about to be sent, and its window.
    estimate: Option<(u64, u32)>,
    /// Results shortened since the last request.
    trims: Vec<Trim>,
    /// The calls of the last turn read from the model's text, and that turn.
    recovered: (u32, Vec<TextCall>),
    /// The broken turn whose repair is the next request.
    repair_of: Option<u32>,
}

fn spill_failed(err: std::io::Error) -> MendError {
    MendError::harness(format!(
        "cannot keep the streamed lines in a temporary file: {err}"
    ))
}

impl Recorder {
    pub(crate) fn new(clock: Instant) -> Result<Recorder, MendError> {
        Ok(Recorder {
            clock,
            turns: Vec::new(),
            calls: Vec::new(),
            metrics: RunMetrics::default(),
            spill: SpillWriter::new().map_err(spill_failed)?,
            ranges: Vec::new(),
            estimate: None,
            trims: Vec::new(),
            recovered: (0, Vec::new()),
            repair_of: None,
        })
    }

    /// A request went out: a new turn starts, and its lines go to a new range.
    pub(crate) fn request_sent(&mut self, turn: u32, body: &ChatRequest) {
        self.metrics.model_requests += 1;
        self.end_range();
        self.spill.start_turn();
        self.turns.push(RecordedTurn {
            turn,
            request_sha256: Some(request_digest(body)),
            started_ms: Some(millis(self.clock.elapsed())),
            duration_ms: None,
            lines: LineList::InMemory(Vec::new()),
            end: TurnEnd::SessionEnded,
            usage: None,
            trimmed: std::mem::take(&mut self.trims),
            repair_of: self.repair_of.take(),
        });
    }

    /// One raw line arrived `at_ms` after its request.
    pub(crate) fn line_received(&mut self, at_ms: u64, line: &[u8]) -> Result<(), MendError> {
        if self.spill.turn_range().count == 0 {
            self.metrics.first_byte_ms.push(at_ms);
        }
        self.metrics.streamed_bytes += line.len() as u64 + 1;
        self.spill.push(at_ms, line).map_err(spill_failed)
    }

    /// The body ended on the server's side (EOF or a transport failure), not the session's.
    pub(crate) fn body_ended(&mut self, end: TurnEnd) {
        if let Some(turn) = self.turns.last_mut() {
            turn.end = end;
        }
    }

    /// The current turn's stream is over after `elapsed_ms`: its time goes to the turn and to
    /// the model's total.
    pub(crate) fn stream_closed(&mut self, elapsed_ms: u64) {
        self.metrics.model_ms += elapsed_ms;
        if let Some(turn) = self.turns.last_mut() {
            turn.duration_ms = Some(elapsed_ms);
        }
    }

    /// An event of the session: token counts, and a row per call (arguments from the call's
    /// start when it ran, the result when it came).
    pub(crate) fn event(&mut self, event: &Event) {
        match event {
            Event::ModelDone { metrics: turn, .. } => {
                self.metrics.prompt_tokens += turn.prompt_eval_count.unwrap_or(0);
                self.metrics.eval_tokens += turn.eval_count.unwrap_or(0);
                if let Some(last) = self.turns.last_mut() {
                    last.usage = Some(TurnUsage::of(turn, self.estimate.take()));
                }
            }
            Event::PromptEstimate { tokens, window, .. } => {
                self.estimate = Some((*tokens, *window));
            }
            Event::ContextTrimmed {
                message,
                name,
                reason,
                bytes_before,
                bytes_after,
                ..
            } => self.trims.push(Trim {
                message: *message,
                name: name.clone(),
                reason: *reason,
                bytes_before: *bytes_before,
                bytes_after: *bytes_after,
            }),
            Event::ToolStart {
                turn,
                index,
                call_id,
                name,
                arguments,
            } => {
                let mut call = row(*turn, *index, call_id, name, ToolStatus::Ok);
                call.arguments = arguments.clone();
                call.recovered_from_text = self.recovered_text(*turn, *index);
                self.calls.push(PendingCall { call, result: None });
            }
            Event::ToolResult {
                turn,
                index,
                call_id,
                name,
                status,
                result,
            } => match self.calls.last_mut() {
                Some(pending)
                    if pending.call.turn == *turn
                        && pending.call.index == *index
                        && pending.result.is_none() =>
                {
                    pending.call.status = *status;
                    pending.result = Some(result.clone());
                }
                // A call refused before it ran has no start: its row begins with the result.
                _ => self.calls.push(PendingCall {
                    call: RecordedCall {
                        recovered_from_text: self.recovered_text(*turn, *index),
                        ..row(*turn, *index, call_id, name, *status)
                    },
                    result: Some(result.clone()),
                }),
            },
            Event::RecoveredFromText { turn, calls } => self.recovered = (*turn, calls.clone()),
            Event::RepairRequested { broken_turn, .. } => self.repair_of = Some(*broken_turn),
            _ => {}
        }
    }

    /// How call `index` of `turn` was written, when it was read from the model's text.
    fn recovered_text(&self, turn: u32, index: u32) -> Option<RecoveredText> {
        let (recovered_turn, calls) = &self.recovered;
        calls
            .iter()
            .find(|call| *recovered_turn == turn && call.index == index)
            .map(|call| RecoveredText {
                format: call.format,
                text: call.text.clone(),
            })
    }

    /// A tool ran from `started` for `elapsed_ms`.
    pub(crate) fn tool_finished(
        &mut self,
        call_id: &CallId,
        name: &str,
        started: Instant,
        elapsed_ms: u64,
    ) {
        self.metrics.tool_ms += elapsed_ms;
        if ToolName::named(name) == Some(ToolName::RunTests) {
            self.metrics.run_tests_ms += elapsed_ms;
        }
        let started_ms = millis(started.duration_since(self.clock));
        if let Some(pending) = self
            .calls
            .iter_mut()
            .rev()
            .find(|pending| pending.call.call_id == *call_id)
        {
            pending.call.duration_ms = elapsed_ms;
            pending.call.started_ms = Some(started_ms);
        }
    }

    /// Hooks ran for `call_id`: their decisions go to its row and their time to the figures.
    pub(crate) fn hooks_ran(&mut self, call_id: &CallId, runs: &[crate::record::HookRun]) {
        self.metrics.hook_ms += crate::record::hook_run::total_ms(runs);
        if let Some(pending) = self
            .calls
            .iter_mut()
            .rev()
            .find(|pending| pending.call.call_id == *call_id)
        {
            pending.call.hooks.extend_from_slice(runs);
        }
    }

    /// The session stopped: the lines are handed over from the spill file, and a call that
    /// never got a result is recorded with `null`.
    pub(crate) fn stop(mut self, stop: Stop) -> Result<Transcript, MendError> {
        self.end_range();
        if let Some(last) = self.turns.last_mut() {
            last.trimmed.append(&mut self.trims);
        }
        let file = self.spill.finish().map_err(spill_failed)?;
        for (turn, range) in self.turns.iter_mut().zip(self.ranges) {
            turn.lines = range.lines(&file);
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|pending| RecordedCall {
                result: pending.result.unwrap_or(Value::Null),
                ..pending.call
            })
            .collect();
        Ok(Transcript {
            turns: self.turns,
            tool_calls,
            stop,
            metrics: self.metrics,
        })
    }

    /// Closes the current turn's range of lines, if a turn is open.
    fn end_range(&mut self) {
        if self.ranges.len() < self.turns.len() {
            self.ranges.push(self.spill.turn_range());
        }
    }
}

fn row(turn: u32, index: u32, call_id: &CallId, name: &str, status: ToolStatus) -> RecordedCall {
    RecordedCall {
        turn,
        index,
        call_id: call_id.clone(),
        name: name.to_owned(),
        arguments: serde_json::Map::new(),
        status,
        result: Value::Null,
        duration_ms: 0,
        started_ms: None,
        recovered_from_text: None,
        hooks: Vec::new(),
    }
}

pub(crate) fn request_digest(body: &ChatRequest) -> String {
    crate::atomic::sha256_hex(&serde_json::to_vec(body).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use mend_core::{CallId, ChatRequest, Event, ModelOptions, Stop, StopReason, ToolStatus};
    use serde_json::{json, Map, Value};

    use super::{row, Recorder};
    use crate::record::spill::LineList;
    use crate::record::{LineBytes, RecordedCall, RecordedLine, TurnEnd};

    fn request() -> ChatRequest {
        ChatRequest {
            model: "m".to_owned(),
            messages: Vec::new(),
            tools: Arc::from(Vec::new()),
            stream: true,
            think: mend_core::Think::Off,
            keep_alive: 0,
            options: ModelOptions::default(),
            format: None,
            schema_field: mend_core::SchemaField::ResponseFormat,
        }
    }

    fn start(index: u32, id: &str) -> Event {
        let mut arguments = Map::new();
        arguments.insert("path".to_owned(), json!("a.py"));
        Event::ToolStart {
            turn: 1,
            index,
            call_id: CallId(id.to_owned()),
            name: "read_file".to_owned(),
            arguments,
        }
    }

    #[test]
    fn the_hooks_make_the_transcript_and_a_call_without_result_is_recorded_null() {
        let clock = Instant::now();
        let mut recorder = Recorder::new(clock).unwrap();
        recorder.request_sent(1, &request());
        recorder.line_received(7, b"{\"a\":1}").unwrap();
        // The stream ends before the calls run: only this counts as the model's time.
        recorder.stream_closed(40);
        recorder.event(&start(0, "c0"));
        recorder.tool_finished(&CallId("c0".to_owned()), "read_file", clock, 5);
        recorder.event(&Event::ToolResult {
            turn: 1,
            index: 0,
            call_id: CallId("c0".to_owned()),
            name: "read_file".to_owned(),
            status: ToolStatus::Ok,
            result: json!({"text": "x"}),
        });
        recorder.event(&start(1, "c1"));
        recorder.body_ended(TurnEnd::Eof);
        let stop = Stop {
            reason: StopReason::Cancelled,
            detail: None,
            cause: None,
        };
        let transcript = recorder.stop(stop.clone()).unwrap();

        let mut started = row(1, 0, &CallId("c0".to_owned()), "read_file", ToolStatus::Ok);
        started.arguments = [("path".to_owned(), json!("a.py"))].into_iter().collect();
        let first = RecordedCall {
            result: json!({"text": "x"}),
            duration_ms: 5,
            started_ms: Some(0),
            ..started.clone()
        };
        let unfinished = RecordedCall {
            index: 1,
            call_id: CallId("c1".to_owned()),
            result: Value::Null,
            ..started
        };
        assert_eq!(transcript.tool_calls, vec![first, unfinished]);
        assert_eq!(
            (
                transcript.metrics.model_requests,
                transcript.metrics.model_ms,
                transcript.metrics.tool_ms,
                transcript.metrics.first_byte_ms.clone(),
                transcript.metrics.streamed_bytes,
            ),
            (1, 40, 5, vec![7], 8)
        );
        let turn = &transcript.turns[0];
        assert_eq!(
            (turn.duration_ms, &turn.end, &turn.lines),
            (
                Some(40),
                &TurnEnd::Eof,
                &LineList::InMemory(vec![RecordedLine {
                    at_ms: 7,
                    bytes: LineBytes::Text {
                        text: "{\"a\":1}".to_owned()
                    }
                }])
            )
        );
        assert_eq!(transcript.stop, stop);
    }
}
