//! The JSON of an `input_rejected` event: the case's name as `reason`, its fields beside it, and
//! what older or newer cores wrote still reads.

use mend_core::{CallId, Event, InputKind, Millis, Rejection};
use serde_json::{json, Value};

fn rejected(input: InputKind, reason: Rejection) -> Event {
    Event::InputRejected { input, reason }
}

fn call(id: &str) -> CallId {
    CallId(id.to_owned())
}

#[test]
fn each_case_has_its_name_and_fields_beside_the_input() {
    let cases = vec![
        (
            rejected(InputKind::StreamLine, Rejection::NoResponseOpen),
            json!({"type": "input_rejected", "input": "stream_line", "reason": "no_response_open"}),
        ),
        (
            rejected(
                InputKind::ToolFinished,
                Rejection::NoToolRunning {
                    call_id: call("call_a"),
                },
            ),
            json!({"type": "input_rejected", "input": "tool_finished",
                   "reason": "no_tool_running", "call_id": "call_a"}),
        ),
        (
            rejected(
                InputKind::ToolFinished,
                Rejection::OtherToolRunning {
                    call_id: call("call_b"),
                    running: call("call_a"),
                },
            ),
            json!({"type": "input_rejected", "input": "tool_finished",
                   "reason": "other_tool_running", "call_id": "call_b", "running": "call_a"}),
        ),
        (
            rejected(
                InputKind::DeadlinePassed,
                Rejection::DeadlineNotReached {
                    deadline: Millis(500),
                    now: Millis(100),
                },
            ),
            json!({"type": "input_rejected", "input": "deadline_passed",
                   "reason": "deadline_not_reached", "deadline": 500, "now": 100}),
        ),
        (
            rejected(InputKind::DeadlinePassed, Rejection::NoDeadline),
            json!({"type": "input_rejected", "input": "deadline_passed", "reason": "no_deadline"}),
        ),
    ];
    for (event, shape) in cases {
        let written = serde_json::to_value(&event).expect("an event serializes");
        assert_eq!(written, shape);
        let read: Event = serde_json::from_value(written).expect("an event reads back");
        assert_eq!(read, event);
    }
}

#[test]
fn a_sentence_from_an_older_core_or_a_name_from_a_newer_one_reads_as_unknown() {
    // Older cores wrote a sentence where the name is now; a newer one may name a new case.
    let older = json!({"type": "input_rejected", "input": "deadline_passed",
                       "reason": "the deadline is at 500 ms, not yet reached at 100 ms"});
    let newer = json!({"type": "input_rejected", "input": "cancel",
                       "reason": "cancelled_twice", "first_at": 3});
    let read: Vec<Event> = [older, newer]
        .into_iter()
        .map(|value: Value| serde_json::from_value(value).expect("the event reads"))
        .collect();
    assert_eq!(
        read,
        vec![
            rejected(InputKind::DeadlinePassed, Rejection::Unknown),
            rejected(InputKind::Cancel, Rejection::Unknown),
        ]
    );
}

#[test]
fn each_case_reads_as_a_sentence() {
    let sentences: Vec<String> = [
        Rejection::NoResponseOpen,
        Rejection::NoToolRunning {
            call_id: call("call_a"),
        },
        Rejection::OtherToolRunning {
            call_id: call("call_b"),
            running: call("call_a"),
        },
        Rejection::DeadlineNotReached {
            deadline: Millis(500),
            now: Millis(100),
        },
        Rejection::NoDeadline,
        Rejection::Unknown,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        sentences,
        vec![
            "no response was being read: the turn's tools were running",
            "a result for `call_a` arrived while no tool was running",
            "a result for `call_b` arrived while `call_a` was running",
            "the deadline is at 500 ms, not yet reached at 100 ms",
            "this session has no deadline",
            "a reason this version of mend does not know",
        ]
    );
}
