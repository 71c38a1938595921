//! A broken call repaired under a grammar: one request whose answer the server must keep to the
//! offered tools' call schema, its call validated and run like any other, or the text left as the
//! answer when nothing usable comes back.

use std::sync::Arc;

use crate::support::raw;
use crate::support::Handled;
use crate::support::{config, done, feed, start, text, tools};
use mend_core::{
    Action, CallId, ChatRequest, Event, Input, Message, Millis, Protocol, StopReason, TextCall,
    TextCallFormat, Think, ToolOutcome,
};
use serde_json::{json, Map, Value};

/// What a small model writes when it means to call a tool and gets the JSON wrong.
const BROKEN: &str =
    "I will read it: {\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.py\"";

fn requests(actions: &[Action]) -> Vec<(u32, ChatRequest)> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::SendRequest { turn, body, .. } => Some((*turn, body.clone())),
            _ => None,
        })
        .collect()
}

fn events(actions: &[Action]) -> Vec<Event> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Emit(Event::TextDelta { .. }) => None,
            Action::Emit(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// The schema a repair must keep to: one branch a tool.
fn schema() -> Value {
    let branches: Vec<Value> = tools()
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {"name": {"type": "string", "enum": [tool.name()]}, "arguments": tool.function.parameters},
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    json!({"oneOf": branches})
}

fn assistant(content: &str) -> Message {
    Message {
        role: mend_core::Role::Assistant,
        content: content.to_owned(),
        thinking: None,
        signed_thinking: vec![],
        tool_calls: vec![],
        tool_name: None,
        tool_call_id: None,
    }
}

#[test]
fn a_broken_call_gets_one_request_under_the_tools_schema_and_its_call_runs() {
    let (mut session, first) = start(config(4));
    let (_, turn_one) = requests(&first).pop().unwrap();
    let actions = feed(&mut session, &[text(BROKEN), done()]);
    // The repair is announced as one, before its request goes out as turn 2.
    assert_eq!(
        events(&actions)[1..],
        [
            Event::RepairRequested {
                turn: 2,
                broken_turn: 1
            },
            Event::ModelStart { turn: 2 }
        ]
    );
    let (turn, repair) = requests(&actions).pop().unwrap();
    let mut expected = turn_one.messages.clone();
    expected.push(Arc::new(assistant(BROKEN)));
    expected.push(Arc::new(Message::user(
        "Your last message tried to call a tool, but the call could not be read. Write that one \
         call again as a JSON object: {\"name\": the tool, \"arguments\": its arguments}.",
    )));
    assert_eq!(
        (turn, repair.messages, repair.think, repair.format),
        (2, expected, Think::Off, Some(schema()))
    );
    let answer = json!({"name": "read_file", "arguments": {"path": "src/a.py"}}).to_string();
    let actions = feed(&mut session, &[text(&answer), done()]);
    let Some(Event::ModelDone { metrics, .. }) = events(&actions).first().cloned() else {
        panic!("{actions:?}")
    };
    let mut arguments = Map::new();
    arguments.insert("path".to_owned(), json!("src/a.py"));
    assert_eq!(
        events(&actions),
        vec![
            Event::ModelDone {
                turn: 2,
                done_reason: Some("stop".to_owned()),
                tool_calls: 0,
                metrics
            },
            Event::RecoveredFromText {
                turn: 2,
                calls: vec![TextCall {
                    index: 0,
                    name: "read_file".to_owned(),
                    format: TextCallFormat::RepairedByGrammar,
                    text: BROKEN.to_owned(),
                }],
            },
            Event::ToolStart {
                turn: 2,
                index: 0,
                call_id: CallId("repair_1_0".to_owned()),
                name: "read_file".to_owned(),
                arguments,
            },
        ]
    );
    // Both requests count: 120 + 30 prompt and output tokens each.
    assert_eq!(session.tokens_used(), 300);
    let actions = session.handled(
        Millis(0),
        Input::ToolFinished {
            call_id: CallId("repair_1_0".to_owned()),
            outcome: ToolOutcome::Success {
                value: json!({"text": "x = 1\n"}),
            },
        },
    );
    let (turn, next) = requests(&actions).pop().unwrap();
    // The broken text stays as written, the repaired call attached; the repair itself is not
    // part of the conversation.
    let kept = &next.messages[turn_one.messages.len()];
    assert_eq!(
        (
            turn,
            next.messages.len(),
            kept.content.as_str(),
            kept.tool_calls.len(),
            next.format
        ),
        (3, turn_one.messages.len() + 2, BROKEN, 1, None)
    );
}

#[test]
fn a_repair_that_yields_nothing_usable_leaves_the_text_as_the_answer() {
    for answer in [
        "{\"name\": \"format_disk\", \"arguments\": {}}",
        "not json at all",
    ] {
        let (mut session, _) = start(config(4));
        feed(&mut session, &[text(BROKEN), done()]);
        let actions = feed(&mut session, &[text(answer), done()]);
        let last = session.conversation().last().unwrap();
        // Said as a repair that failed, before the stop.
        let said = events(&actions);
        assert_eq!(
            (
                &said[1],
                session.stopped().map(|stop| stop.reason),
                last.content.as_str(),
                last.tool_calls.len()
            ),
            (
                &Event::RepairUnusable {
                    turn: 2,
                    broken_turn: 1
                },
                Some(StopReason::AssistantFinished),
                BROKEN,
                0
            ),
            "{answer}"
        );
    }
}

#[test]
fn no_repair_without_a_sign_of_a_call_a_turn_to_spare_or_a_server_that_keeps_a_schema() {
    let stops_at_once = |mut config: mend_core::Config, content: &str| {
        config.options.num_ctx = 8192;
        let (mut session, _) = start(config);
        let actions = feed(&mut session, &[text(content), done()]);
        (
            requests(&actions).len(),
            session.stopped().map(|stop| stop.reason),
        )
    };
    let anthropic = mend_core::Config {
        protocol: Protocol::AnthropicSse,
        ..config(4)
    };
    let mut without_text_calls = config(4);
    without_text_calls.text_tool_calls = false;
    let finished = (0, Some(StopReason::AssistantFinished));
    assert_eq!(
        [
            stops_at_once(config(4), "The fix is in; all four tests pass."),
            stops_at_once(config(1), BROKEN),
            stops_at_once(without_text_calls, BROKEN),
        ],
        [finished, finished, finished]
    );
    // Anthropic keeps no schema: its stream is its own, so only its request is checked.
    let (mut session, _) = start(anthropic);
    let events = [
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": BROKEN}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        json!({"type": "message_stop"}),
    ];
    let mut actions = Vec::new();
    for event in events {
        for line in [format!("data: {event}"), String::new()] {
            actions.extend(session.handled(Millis(0), raw(line.as_bytes())));
        }
    }
    assert_eq!(
        (
            requests(&actions).len(),
            session.stopped().map(|stop| stop.reason)
        ),
        finished
    );
}
