//! Anthropic with thinking and tools over three turns, against a loopback server that checks
//! what the API checks: every thinking block it signed comes back in the assistant's message,
//! first, with its text and signature unchanged, and every redacted block with its data.

use std::sync::{Arc, Mutex};

use crate::common::server::{Loopback, Request};
use crate::common::{mend_with_env, repo_root};
use serde_json::{json, Value};

/// The server's signature of a thinking text: only it can make one (a keyed FNV-1a here).
fn signature(thinking: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in b"server-secret".iter().chain(thinking.as_bytes()) {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("sig{hash:016x}")
}

fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// Turn `turn`'s answer: thinking (signed), a redacted block and a call on turns 1 and 2, a
/// closing text on turn 3.
fn answer(turn: usize) -> String {
    let start = json!({"type": "message_start", "message": {"id": format!("msg_{turn}"), "usage": {"input_tokens": 900}}});
    let thought = format!("Turn {turn}: the test names path_rules.py.");
    let mut events = vec![
        start,
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": thought}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": signature(&thought)}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    if turn < 3 {
        events.extend([
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": format!("redacted-{turn}")}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": format!("toolu_{turn}"), "name": "read_file", "input": {}}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"path_rules.py\"}"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ]);
    } else {
        events.extend([
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Read it twice."}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        ]);
    }
    events.push(json!({"type": "message_stop"}));
    sse(&events)
}

/// What the API says of a request's history: `Ok` when every assistant message of turn `n`
/// starts with turn `n`'s signed thinking and redacted block, unchanged.
fn check(body: &Value) -> Result<(), String> {
    let assistants: Vec<&Value> = body["messages"]
        .as_array()
        .ok_or("no messages")?
        .iter()
        .filter(|message| message["role"] == "assistant")
        .collect();
    for (index, message) in assistants.iter().enumerate() {
        let turn = index + 1;
        let thought = format!("Turn {turn}: the test names path_rules.py.");
        let blocks = message["content"]
            .as_array()
            .ok_or("content is not blocks")?;
        let expected = [
            json!({"type": "thinking", "thinking": thought, "signature": signature(&thought)}),
            json!({"type": "redacted_thinking", "data": format!("redacted-{turn}")}),
        ];
        if blocks.get(..2) != Some(&expected[..]) {
            return Err(format!(
                "turn {turn}: thinking blocks changed or missing: {message}"
            ));
        }
    }
    Ok(())
}

#[test]
fn signed_and_redacted_thinking_go_back_unchanged_over_three_turns() {
    let verdicts: Arc<Mutex<Vec<Result<(), String>>>> = Arc::default();
    let seen = Arc::clone(&verdicts);
    let server = Loopback::start(
        || true,
        move |request: Request| {
            if request.path != "/v1/messages" {
                return ("application/json", "{}".to_owned());
            }
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let verdict = check(&body);
            let mut verdicts = seen.lock().unwrap();
            verdicts.push(verdict.clone());
            let reply = match verdict {
                Ok(()) => answer(verdicts.len()),
                Err(message) => sse(&[
                    json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
                ]),
            };
            ("text/event-stream", reply)
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let outcome = mend_with_env(
        &repo_root(),
        &[
            "run",
            "--repo",
            "sample-repo",
            "--json",
            "--protocol",
            "anthropic",
            "--model",
            "m",
            "--think",
            "high",
            "--max-turns",
            "3",
            "--host",
            &server.base,
            "--record",
            record.to_str().unwrap(),
        ],
        &[("ANTHROPIC_API_KEY", "sk-test")],
    );
    let stopped: Vec<Value> = outcome
        .events()
        .into_iter()
        .filter(|event| event["type"] == "stopped")
        .map(|event| event["reason"].clone())
        .collect();
    assert_eq!(
        (verdicts.lock().unwrap().clone(), stopped),
        (
            vec![Ok(()), Ok(()), Ok(())],
            vec![json!("assistant_finished")]
        ),
        "{}{}",
        outcome.stdout,
        outcome.stderr
    );
}
