//! Arbitrary input sequences against a whole session: the bytes are read as a program of
//! inputs (lines, ends, failures, tool results for the running call or for nobody, cancel,
//! deadline). The session must never panic, stop at most once, do nothing after its stop, keep
//! at most one tool in flight, and never send more requests than its budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mend_core::{
    Action, CallId, Config, Input, JsonType, Millis, Protocol, Session, StreamLine, ToolOutcome, ToolSpec,
    TransportError,
};
use serde_json::json;

const MAX_TURNS: u32 = 3;

fn config() -> Config {
    let tools = vec![
        ToolSpec::function("read_file", "read", &[("path", JsonType::String, "p")], &["path"]),
        ToolSpec::function("run_tests", "run", &[], &[]),
    ];
    Config { max_turns: MAX_TURNS, deadline: Some(Millis(50)), ..Config::new("m", "s", "t", tools) }
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the protocol the session speaks.
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    let protocol = Protocol::ALL[usize::from(which % 3)];
    let Ok(mut session) = Session::new(Config { protocol, ..config() }) else {
        return;
    };
    let first: Vec<Action> = session.drain_actions().collect();
    let mut requests = first.iter().filter(|a| matches!(a, Action::SendRequest { .. })).count() as u32;
    let mut stops = 0;
    let mut running: Option<CallId> = None;
    let mut bytes = data;
    let mut now = 0u64;
    while let Some((&op, rest)) = bytes.split_first() {
        bytes = rest;
        now += 1;
        let input = match op % 9 {
            0 | 1 => {
                // A line: the next byte is its length, then that many bytes.
                let Some((&len, rest)) = bytes.split_first() else { break };
                let take = usize::from(len).min(rest.len());
                let (line, rest) = rest.split_at(take);
                bytes = rest;
                Input::StreamLine(StreamLine::new(line.to_vec(), Millis(now)))
            }
            2 => Input::StreamEnd,
            3 => Input::TransportFailed { error: TransportError::Read { message: "reset".into() } },
            4 => Input::ToolFinished {
                call_id: running.clone().unwrap_or_else(|| CallId("nobody".into())),
                outcome: ToolOutcome::Success { value: json!({"ok": true}) },
            },
            5 => Input::ToolFinished {
                call_id: running.clone().unwrap_or_else(|| CallId("nobody".into())),
                outcome: ToolOutcome::Failure { message: "failed".into() },
            },
            6 => Input::Cancel,
            7 => Input::DeadlinePassed,
            _ => Input::StreamLine(StreamLine::new(
                br#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"run_tests","arguments":{}}}]},"done":true}"#.to_vec(),
                Millis(now),
            )),
        };
        let before = session.clone();
        let was_stopped = stops > 0;
        if let Input::ToolFinished { call_id, .. } = &input {
            if running.as_ref() == Some(call_id) {
                running = None;
            }
        }
        session.handle(Millis(now), input);
        let actions: Vec<Action> = session.drain_actions().collect();
        if was_stopped {
            assert!(actions.is_empty(), "actions after the stop: {actions:?}");
            assert!(session == before, "the state changed after the stop");
        }
        for action in &actions {
            match action {
                Action::SendRequest { .. } => {
                    assert!(running.is_none(), "a request while a tool runs");
                    requests += 1;
                    assert!(requests <= MAX_TURNS, "more requests than max_turns");
                }
                Action::DispatchTool { call_id, .. } => {
                    assert!(running.is_none(), "two tools in flight");
                    running = Some(call_id.clone());
                }
                Action::Stop(_) => {
                    stops += 1;
                    assert_eq!(stops, 1, "a second stop");
                }
                Action::Emit(_) => {}
                other => panic!("an action the fuzz target does not know: {other:?}"),
            }
        }
    }
});
