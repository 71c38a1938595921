//! Anthropic with thinking on: the assistant's signed thinking blocks (`thinking` with its
//! `signature`, `redacted_thinking`) go back unchanged, first in its message, in the request
//! after its tool call — what Anthropic requires when thinking meets tool use.

use mend_core::{Action, Input, Millis, Protocol, Think, ToolOutcome};
use serde_json::{json, Value};

use crate::support::{config, raw, start, Handled};

/// Anthropic's events for a turn that thinks (signed, then redacted), says a word and calls.
fn turn_events() -> Vec<Value> {
    vec![
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 300, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The test names src/a.py."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "ErUBCkYIBRgCIkB0"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3vaHx"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Reading."}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"src/a.py\"}"}}),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 90}}),
        json!({"type": "message_stop"}),
    ]
}

#[test]
fn signed_thinking_goes_back_unchanged_before_the_text_and_the_call() {
    let (mut session, _) = start(mend_core::Config {
        protocol: Protocol::AnthropicSse,
        think: Think::High,
        ..config(3)
    });
    let mut actions = Vec::new();
    for event in turn_events() {
        let kind = event["type"].as_str().unwrap().to_owned();
        for line in [
            format!("event: {kind}"),
            format!("data: {event}"),
            String::new(),
        ] {
            actions.extend(session.handled(Millis(0), raw(line.as_bytes())));
        }
    }
    let call_id = actions
        .iter()
        .find_map(|action| match action {
            Action::DispatchTool { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .unwrap();
    let outcome = ToolOutcome::Success {
        value: json!({"path": "src/a.py", "text": "x = 1\n"}),
    };
    let next = session.handled(Millis(0), Input::ToolFinished { call_id, outcome });
    let http = next.iter().find_map(Action::http_request).unwrap();
    let body: Value = serde_json::from_slice(&http.body).unwrap();
    assert_eq!(
        body["messages"].as_array().unwrap()[1..],
        [
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "The test names src/a.py.", "signature": "ErUBCkYIBRgCIkB0"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3vaHx"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "src/a.py"}},
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01",
                 "content": "{\"path\":\"src/a.py\",\"text\":\"x = 1\\n\"}"},
            ]}),
        ]
    );
}
