//! A record's model turns served back to the loop, in place of a model server.

use mend_core::{CallId, ChatRequest, Protocol, Stop, StopReason, StreamLine, TransportError};
use serde_json::json;

use crate::attempt::run_event::RunEvent;
use crate::clock::SessionClock;
use crate::interrupt::Cut;
use crate::provider::source::{ModelSource, StreamItem};
use crate::record::HookRun;
use crate::record::{RecordedCall, RecordedTurn, TurnEnd};

/// Serves the recorded lines of each turn. Request bodies are not compared: they carry tool
/// output (pytest's timings), which differs between runs; the tool results themselves are.
pub(crate) struct ReplaySource<'r> {
    turns: &'r [RecordedTurn],
    /// Where the recorded session was cut by Ctrl-C or its deadline, if it was.
    cut: Option<(CutPoint, Cut)>,
    /// Set when the session asked for a turn the record does not have.
    pub missing_turn: Option<RunEvent>,
    /// The hooks each recorded call ran, by call.
    hooks: Vec<(CallId, Vec<HookRun>)>,
}

/// Where a cut landed in a recorded session: while a call ran (it has no result), else while
/// the last turn streamed (after its recorded lines).
#[derive(Debug, Clone, PartialEq)]
enum CutPoint {
    Tool(CallId),
    Stream(u32),
}

impl<'r> ReplaySource<'r> {
    pub(crate) fn new(turns: &'r [RecordedTurn], calls: &[RecordedCall], stop: &Stop) -> Self {
        let how = match stop.reason {
            StopReason::Cancelled => Some(Cut::Interrupted),
            StopReason::DeadlineExceeded => Some(Cut::DeadlinePassed),
            _ => None,
        };
        let cut = how.and_then(|how| {
            let point = match calls.last() {
                Some(call) if call.result.is_null() => Some(CutPoint::Tool(call.call_id.clone())),
                _ => turns.last().map(|turn| CutPoint::Stream(turn.turn)),
            };
            point.map(|point| (point, how))
        });
        ReplaySource {
            turns,
            cut,
            missing_turn: None,
            hooks: calls
                .iter()
                .map(|call| (call.call_id.clone(), call.hooks.clone()))
                .collect(),
        }
    }

    fn cut_at(&self, point: &CutPoint) -> Option<Cut> {
        match &self.cut {
            Some((at, how)) if at == point => Some(*how),
            _ => None,
        }
    }
}

impl ModelSource for ReplaySource<'_> {
    fn open(
        &mut self,
        turn: u32,
        _body: &ChatRequest,
        _protocol: Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        let Some(recorded) = self.turns.iter().find(|recorded| recorded.turn == turn) else {
            let message = format!("the record has no turn {turn}");
            self.missing_turn
                .get_or_insert_with(|| RunEvent::Divergence {
                    what: format!(
                        "turn {turn}: the session sent a request the record does not have"
                    ),
                    expected: json!(self.turns.len()),
                    got: json!(turn),
                });
            return Box::new(std::iter::once(StreamItem::Failed(TransportError::Read {
                message,
            })));
        };
        let lines: Vec<Result<Vec<u8>, String>> = recorded
            .lines
            .iter()
            .map(|line| {
                line.map_err(|err| err.to_string())
                    .and_then(|line| line.bytes.to_bytes().map_err(|err| err.to_string()))
            })
            .collect();
        // Stamped as the reader pulls them, as a live body's lines are.
        let lines = lines.into_iter().map(move |line| match line {
            Ok(bytes) => StreamItem::Line(StreamLine::new(bytes, clock.now())),
            Err(message) => StreamItem::Failed(TransportError::Read { message }),
        });
        let end = match (&recorded.end, self.cut_at(&CutPoint::Stream(turn))) {
            (_, Some(cut)) => StreamItem::Cut(cut),
            (TurnEnd::SessionEnded | TurnEnd::Eof, None) => StreamItem::End,
            (TurnEnd::TransportFailed { error }, None) => StreamItem::Failed(error.clone()),
        };
        Box::new(lines.into_iter().chain(std::iter::once(end)))
    }

    fn cut_before(&mut self, call_id: &CallId) -> Option<Cut> {
        self.cut_at(&CutPoint::Tool(call_id.clone()))
    }

    fn recorded_hooks(&self, call_id: &CallId) -> Option<&[HookRun]> {
        // A call the record has no row for ran no hooks there either.
        Some(
            self.hooks
                .iter()
                .find(|(id, _)| id == call_id)
                .map_or(&[][..], |(_, runs)| runs.as_slice()),
        )
    }

    fn replays(&self) -> bool {
        true
    }
}
