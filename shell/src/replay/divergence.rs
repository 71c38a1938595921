//! Where a replay differs from its record: the first request, each tool call, the stop, and
//! what the conversation left behind. Results are compared on outcome, never on timing.

use serde_json::{json, Value};

use crate::attempt::run_event::RunEvent;
use crate::record::{RecordedCall, RecordedTurn};
use crate::task::{Task, ToolName};
use crate::verdict::check::TestRun;
use crate::verdict::read::summary::Summary;

/// What a run left behind, as its record keeps it and as a replay finds it.
pub(crate) struct LeftBehind<'a> {
    pub source_sha256: &'a str,
    pub test_file_sha256: &'a str,
    pub tests: &'a TestRun,
}

/// The first difference in what was left behind: the editable files, the test files, the
/// final tests.
pub(crate) fn end_divergence(
    task: &Task,
    expected: LeftBehind,
    got: LeftBehind,
) -> Option<RunEvent> {
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

/// The first turn repaired in one and not the other (or of another turn): a repaired call read
/// back as a call written in the text would otherwise pass, since calls compare without ids.
pub(crate) fn first_repair_divergence(
    recorded: &[RecordedTurn],
    replayed: &[RecordedTurn],
    place: &str,
) -> Option<RunEvent> {
    let repair_of = |turns: &[RecordedTurn], number: u32| {
        turns
            .iter()
            .find(|turn| turn.turn == number)
            .and_then(|turn| turn.repair_of)
    };
    recorded
        .iter()
        .chain(replayed)
        .map(|turn| turn.turn)
        .find_map(|number| {
            let (expected, got) = (repair_of(recorded, number), repair_of(replayed, number));
            (expected != got).then(|| RunEvent::Divergence {
                what: format!("{place}turn {number}: the turn whose call it repaired"),
                expected: json!(expected),
                got: json!(got),
            })
        })
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
pub(crate) fn same_tests(expected: &TestRun, got: &TestRun) -> bool {
    expected.exit_code == got.exit_code
        && expected.summary == got.summary
        && (expected.failing.is_empty() || expected.failing == got.failing)
}

/// What must be equal between a recorded and a replayed call. pytest's output carries timings,
/// so a `run_tests` result is compared by exit code and summary counts.
fn comparable(call: &RecordedCall) -> Value {
    let result = match (
        ToolName::named(&call.name),
        call.result.get("output").and_then(Value::as_str),
    ) {
        (Some(ToolName::RunTests), Some(output)) => json!({
            "exit_code": call.result.get("exit_code"),
            "error": call.result.get("error"),
            "summary": Summary::parse(output),
        }),
        _ => call.result.clone(),
    };
    json!({"turn": call.turn, "index": call.index, "name": call.name, "arguments": call.arguments, "status": call.status, "result": result})
}
