//! `mend replay`: a recorded run's streams fed back through the same core, with the tools and
//! the tests run for real on a fresh copy, and every outcome compared with the record.

use camino::Utf8Path;
use mend_core::{CallId, ChatRequest, Codec, Stop, StopReason, TransportError};
use serde_json::{json, Value};

use crate::error::{exit, MendError};
use crate::record::metrics::RunMetrics;
use crate::record::{Record, RecordedCall, RecordedTurn, TurnEnd};
use crate::session::attempt::{run_attempt, Attempt, Setup};
use crate::session::driver::{ModelSource, StreamItem};
use crate::session::render::{Render, RunEvent};
use crate::task::Task;
use crate::verdict::checks::Checks;
use crate::verdict::summary::Summary;
use crate::verdict::verify::TestRun;
use crate::workspace::changes::set_sha256;
use crate::workspace::sandbox::Sandbox;

pub struct ReplayOptions<'a> {
    /// Where the record was read from (and where `--bless` writes it back).
    pub record_path: &'a Utf8Path,
    pub record: Record,
    pub setup: Setup<'a>,
    /// Rewrite the record's observed fields from this replay (for authoring fixtures).
    pub bless: bool,
}

/// Replays a record and returns the exit code: 0 only when it matched and the final tests pass.
pub fn replay(options: &ReplayOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let record = &options.record;
    refuse_changed_repository(
        &record.checks.test_file_sha256_before,
        &record.checks.source_sha256_before,
        &options.setup,
        options.bless,
    )?;
    render.run_event(&RunEvent::RunStart {
        command: "replay".to_owned(),
        model: record.settings.model.clone(),
        source: options.record_path.to_string(),
    });
    let mut source = ReplaySource::new(&record.turns, &record.tool_calls, &record.stop);
    let config = record.settings.config(&record.task, options.setup.task)?;
    let attempt = run_attempt(&options.setup, config, &mut source, render)?;
    let missing_turn = source.missing_turn.take();

    if options.bless {
        blessed(options.record.clone(), &attempt).write_atomically(options.record_path)?;
        return Ok(exit::PASS);
    }
    let divergence =
        missing_turn.or_else(|| first_divergence(record, &attempt, options.setup.task));
    Ok(judge(
        render,
        divergence,
        attempt.checks.passed(),
        &options.setup.runner.sandbox,
        attempt.transcript.stop.reason.to_string(),
        attempt.transcript.metrics.clone(),
    ))
}

/// Reports the first divergence, if any, and the verdict; returns the exit code: a divergence
/// outranks the tests.
pub(crate) fn judge(
    render: &mut dyn Render,
    divergence: Option<RunEvent>,
    tests_pass: bool,
    sandbox: &Sandbox,
    stop_reason: String,
    metrics: RunMetrics,
) -> u8 {
    if let Some(divergence) = &divergence {
        render.run_event(divergence);
    }
    let exit_code = match (&divergence, tests_pass) {
        (Some(_), _) => exit::DIVERGED,
        (None, true) => exit::PASS,
        (None, false) => exit::TESTS_FAIL,
    };
    render.run_event(&RunEvent::Verdict {
        tests_pass,
        sandbox: sandbox.name().to_owned(),
        replay_matched: Some(divergence.is_none()),
        stop_reason,
        exit_code,
        metrics,
        record: None,
        patch: None,
    });
    exit_code
}

/// Refuses to replay on a repository whose test files or editable files are not what the
/// recording started from (`--bless` rewrites the record instead).
pub(crate) fn refuse_changed_repository(
    test_files_sha256: &str,
    source_sha256: &str,
    setup: &Setup,
    bless: bool,
) -> Result<(), MendError> {
    let (repo, task) = (setup.repo, setup.task);
    for (set, recorded) in [
        (&task.test.files, test_files_sha256),
        (&task.editable, source_sha256),
    ] {
        let actual = set_sha256(repo, set)?;
        if actual != *recorded && !bless {
            return Err(MendError::refused(format!(
                "{} in {repo} changed since this run was recorded (sha256 {actual}, the record has {recorded}); \
                 restore it (e.g. `git checkout -- {repo}`) or record a new run",
                set.listed("and")
            )));
        }
    }
    Ok(())
}

/// Serves the recorded lines of each turn. Request bodies are not compared: they carry tool
/// output (pytest's timings), which differs between runs; the tool results themselves are.
pub(crate) struct ReplaySource<'r> {
    turns: &'r [RecordedTurn],
    /// Where the recorded session was cut by Ctrl-C, if it was.
    cancelled: Option<CancelPoint>,
    /// Set when the session asked for a turn the record does not have.
    pub(crate) missing_turn: Option<RunEvent>,
}

/// Where a Ctrl-C landed in a recorded session: while a call ran (it has no result), else while
/// the last turn streamed (after its recorded lines).
#[derive(Debug, Clone, PartialEq)]
enum CancelPoint {
    Tool(CallId),
    Stream(u32),
}

impl<'r> ReplaySource<'r> {
    pub(crate) fn new(turns: &'r [RecordedTurn], calls: &[RecordedCall], stop: &Stop) -> Self {
        let cancelled = (stop.reason == StopReason::Cancelled)
            .then(|| match calls.last() {
                Some(call) if call.result.is_null() => {
                    Some(CancelPoint::Tool(call.call_id.clone()))
                }
                _ => turns.last().map(|turn| CancelPoint::Stream(turn.turn)),
            })
            .flatten();
        ReplaySource {
            turns,
            cancelled,
            missing_turn: None,
        }
    }
}

impl ModelSource for ReplaySource<'_> {
    fn open(
        &mut self,
        turn: u32,
        _body: &ChatRequest,
        _codec: Codec,
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
        let lines: Vec<StreamItem> = recorded
            .lines
            .iter()
            .map(|line| {
                match line
                    .map_err(|err| err.to_string())
                    .and_then(|line| line.bytes.to_bytes())
                {
                    Ok(bytes) => StreamItem::Line(bytes),
                    Err(message) => StreamItem::Failed(TransportError::Read { message }),
                }
            })
            .collect();
        let end = match &recorded.end {
            _ if self.cancelled == Some(CancelPoint::Stream(turn)) => StreamItem::Interrupted,
            TurnEnd::SessionEnded | TurnEnd::Eof => StreamItem::End,
            TurnEnd::TransportFailed { error } => StreamItem::Failed(error.clone()),
        };
        Box::new(lines.into_iter().chain(std::iter::once(end)))
    }

    fn cut_before(&mut self, call_id: &CallId) -> bool {
        self.cancelled == Some(CancelPoint::Tool(call_id.clone()))
    }
}

/// The first place where the replay differs from the record, in the order things happened.
fn first_divergence(record: &Record, attempt: &Attempt, task: &Task) -> Option<RunEvent> {
    let diverged = |what: String, expected: Value, got: Value| {
        Some(RunEvent::Divergence {
            what,
            expected,
            got,
        })
    };
    if !same_tests(&record.checks.tests_before, &attempt.checks.tests_before) {
        return diverged(
            "the starting tests".to_owned(),
            json!(record.checks.tests_before),
            json!(attempt.checks.tests_before),
        );
    }
    let transcript = &attempt.transcript;
    if let Some(divergence) = first_request_divergence(&record.turns, &transcript.turns) {
        return Some(divergence);
    }
    if let Some(divergence) = first_call_divergence(&record.tool_calls, &transcript.tool_calls, "")
    {
        return Some(divergence);
    }
    let stop = &attempt.transcript.stop;
    if stop.reason != record.stop.reason {
        return diverged(
            "the stop reason".to_owned(),
            json!(record.stop.reason),
            json!(stop.reason),
        );
    }
    end_divergence(task, record.checks.ending(), attempt.checks.ending())
}

/// What a run left behind, as its record keeps it and as a replay finds it.
pub(crate) struct Ending<'a> {
    pub source_sha256: &'a str,
    pub test_file_sha256: &'a str,
    pub tests: &'a TestRun,
}

impl Checks {
    fn ending(&self) -> Ending<'_> {
        Ending {
            source_sha256: &self.source_sha256_after,
            test_file_sha256: &self.test_file_sha256_after,
            tests: &self.tests_after,
        }
    }
}

/// The first difference in what was left behind: the editable files, the test files, the
/// final tests.
pub(crate) fn end_divergence(task: &Task, expected: Ending, got: Ending) -> Option<RunEvent> {
    let diverged = |what: String, expected: Value, got: Value| {
        Some(RunEvent::Divergence {
            what,
            expected,
            got,
        })
    };
    if got.source_sha256 != expected.source_sha256 {
        return diverged(
            format!("{} after the run (sha256)", task.editable.listed("and")),
            json!(expected.source_sha256),
            json!(got.source_sha256),
        );
    }
    if got.test_file_sha256 != expected.test_file_sha256 {
        return diverged(
            format!("{} after the run (sha256)", task.test.files.listed("and")),
            json!(expected.test_file_sha256),
            json!(got.test_file_sha256),
        );
    }
    if !same_tests(expected.tests, got.tests) {
        return diverged(
            "the final tests".to_owned(),
            json!(expected.tests),
            json!(got.tests),
        );
    }
    None
}

/// The first request carries only the prompts and the tool schemas, so it must be the same
/// bytes: a changed task file or prompt shows here, before any tool result could.
pub(crate) fn first_request_divergence(
    recorded: &[RecordedTurn],
    replayed: &[RecordedTurn],
) -> Option<RunEvent> {
    let first_request = |turns: &[RecordedTurn]| {
        turns
            .iter()
            .find(|turn| turn.turn == 1)
            .and_then(|turn| turn.request_sha256.clone())
    };
    match (first_request(recorded), first_request(replayed)) {
        (Some(expected), Some(got)) if expected != got => Some(RunEvent::Divergence {
            what: "the first request (sha256 of its body: prompts and tool schemas)".to_owned(),
            expected: json!(expected),
            got: json!(got),
        }),
        _ => None,
    }
}

/// The first tool call that differs between the record and the replay; `place` prefixes the
/// description (`message 2, `) when a record holds several sessions.
pub(crate) fn first_call_divergence(
    recorded: &[RecordedCall],
    replayed: &[RecordedCall],
    place: &str,
) -> Option<RunEvent> {
    let diverged = |what: String, expected: Value, got: Value| {
        Some(RunEvent::Divergence {
            what: format!("{place}{what}"),
            expected,
            got,
        })
    };
    for position in 0..recorded.len().max(replayed.len()) {
        match (recorded.get(position), replayed.get(position)) {
            (Some(expected), Some(got)) if comparable(expected) != comparable(got) => {
                return diverged(
                    format!(
                        "turn {}, tool call {} (`{}`)",
                        expected.turn, expected.index, expected.name
                    ),
                    comparable(expected),
                    comparable(got),
                );
            }
            (Some(expected), None) => {
                return diverged(
                    format!(
                        "turn {}, tool call {} (`{}`) never happened",
                        expected.turn, expected.index, expected.name
                    ),
                    comparable(expected),
                    Value::Null,
                );
            }
            (None, Some(got)) => {
                return diverged(
                    format!(
                        "turn {}, tool call {} (`{}`) is not in the record",
                        got.turn, got.index, got.name
                    ),
                    Value::Null,
                    comparable(got),
                );
            }
            _ => {}
        }
    }
    None
}

/// Test runs match on outcome, not on timing: the exit code, the counts, and the failing tests
/// when the record names them (older records do not).
fn same_tests(expected: &TestRun, got: &TestRun) -> bool {
    expected.exit_code == got.exit_code
        && expected.summary == got.summary
        && (expected.failing.is_empty() || expected.failing == got.failing)
}

/// What must be equal between a recorded and a replayed call. pytest's output carries timings,
/// so a `run_tests` result is compared by exit code and summary counts.
fn comparable(call: &RecordedCall) -> Value {
    let result = match (
        call.name.as_str(),
        call.result.get("output").and_then(Value::as_str),
    ) {
        ("run_tests", Some(output)) => json!({
            "exit_code": call.result.get("exit_code"),
            "error": call.result.get("error"),
            "summary": Summary::parse(output),
        }),
        _ => call.result.clone(),
    };
    json!({"turn": call.turn, "index": call.index, "name": call.name, "arguments": call.arguments, "status": call.status, "result": result})
}

/// The record with every observed field taken from this replay; the authored streams stay.
fn blessed(record: Record, attempt: &Attempt) -> Record {
    let mut turns = record.turns;
    for turn in &mut turns {
        turn.request_sha256 = attempt
            .transcript
            .turns
            .iter()
            .find(|replayed| replayed.turn == turn.turn)
            .and_then(|replayed| replayed.request_sha256.clone());
    }
    Record {
        turns,
        tool_calls: attempt.transcript.tool_calls.clone(),
        stop: attempt.transcript.stop.clone(),
        checks: attempt.checks.clone(),
        ..record
    }
}
