//! The reference lab's checks on the transition function, comparing whole action lists and
//! whole request bodies.

use mend_core::{
    Action, CallId, ChatRequest, ConfigError, Event, Input, Message, Millis, ModelOptions,
    Protocol, Role, Session, Stop, StopCause, StopReason, ToolCall, ToolOutcome, ToolStatus,
    TransportError, TurnMetrics,
};
use std::sync::Arc;

use crate::support::*;
use serde_json::{json, Map, Value};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn body(messages: Vec<Message>) -> ChatRequest {
    ChatRequest {
        model: "gemma4:e2b".to_owned(),
        messages: messages.into_iter().map(Arc::new).collect(),
        tools: tools().into(),
        stream: true,
        think: mend_core::Think::On,
        keep_alive: mend_core::DEFAULT_KEEP_ALIVE_SECONDS,
        options: ModelOptions::default(),
        format: None,
        schema_field: mend_core::SchemaField::ResponseFormat,
    }
}

/// The conversation as plain messages, to compare with expected ones.
fn plain(conversation: &[Arc<Message>]) -> Vec<Message> {
    conversation
        .iter()
        .map(|message| Message::clone(message))
        .collect()
}

fn opening() -> Vec<Message> {
    vec![Message::system(SYSTEM), Message::user(TASK)]
}

fn assistant(content: &str, thinking: Option<&str>, calls: Vec<Value>) -> Message {
    let calls: Vec<ToolCall> = calls
        .into_iter()
        .map(|call| serde_json::from_value(call).expect("a wire tool call"))
        .collect();
    Message {
        role: Role::Assistant,
        content: content.to_owned(),
        thinking: thinking.map(str::to_owned),
        signed_thinking: vec![],
        tool_calls: calls,
        tool_name: None,
        tool_call_id: None,
    }
}

fn metrics() -> TurnMetrics {
    TurnMetrics {
        total_duration_ns: Some(1_000_000),
        prompt_eval_count: Some(120),
        eval_count: Some(30),
        ..TurnMetrics::default()
    }
}

fn model_done(turn: u32, reason: &str, tool_calls: u32) -> Action {
    Action::Emit(Event::ModelDone {
        turn,
        done_reason: Some(reason.to_owned()),
        tool_calls,
        metrics: metrics(),
    })
}

fn stopped(reason: StopReason, detail: Option<&str>) -> Vec<Action> {
    stopped_because(reason, detail, None)
}

fn stopped_because(
    reason: StopReason,
    detail: Option<&str>,
    cause: Option<StopCause>,
) -> Vec<Action> {
    let stop = Stop {
        reason,
        detail: detail.map(str::to_owned),
        cause,
    };
    vec![
        Action::Emit(Event::Stopped(stop.clone())),
        Action::Stop(stop),
    ]
}

fn start_of(turn: u32, messages: Vec<Message>) -> Vec<Action> {
    vec![
        Action::Emit(Event::ModelStart { turn }),
        Action::SendRequest {
            turn,
            body: body(messages),
            protocol: Protocol::OllamaNdjson,
        },
    ]
}

fn dispatch(turn: u32, index: u32, id: &str, name: &str, arguments: Value) -> Vec<Action> {
    let arguments = object(arguments);
    vec![
        Action::Emit(Event::ToolStart {
            turn,
            index,
            call_id: CallId(id.to_owned()),
            name: name.to_owned(),
            arguments: arguments.clone(),
        }),
        Action::DispatchTool {
            call_id: CallId(id.to_owned()),
            name: name.to_owned(),
            arguments,
        },
    ]
}

/// The model's call, with id `id`, to read path_rules.py.
fn read_call(id: &str) -> Value {
    call(Some(id), "read_file", json!({"path": "path_rules.py"}))
}

/// The dispatch of `read_call(id)`, call `index` of `turn`.
fn read_dispatch(turn: u32, index: u32, id: &str) -> Vec<Action> {
    dispatch(
        turn,
        index,
        id,
        "read_file",
        json!({"path": "path_rules.py"}),
    )
}

fn result_event(
    turn: u32,
    index: u32,
    id: &str,
    name: &str,
    status: ToolStatus,
    result: Value,
) -> Action {
    Action::Emit(Event::ToolResult {
        turn,
        index,
        call_id: CallId(id.to_owned()),
        name: name.to_owned(),
        status,
        result,
    })
}

fn success(value: Value) -> ToolOutcome {
    ToolOutcome::Success { value }
}

fn finish(session: &mut Session, id: &str, outcome: ToolOutcome) -> Vec<Action> {
    session.handled(
        Millis(1),
        Input::ToolFinished {
            call_id: CallId(id.to_owned()),
            outcome,
        },
    )
}

fn text_delta(turn: u32, text: &str) -> Action {
    Action::Emit(Event::TextDelta {
        turn,
        text: text.to_owned(),
    })
}

fn concat(parts: Vec<Vec<Action>>) -> Vec<Action> {
    parts.into_iter().flatten().collect()
}

#[test]
fn new_session_sends_system_and_task_first() {
    let (_, actions) = start(config(8));
    assert_eq!(actions, start_of(1, opening()));
}

#[test]
fn max_turns_below_one_is_refused() {
    assert_eq!(
        Session::new(config(0)).err(),
        Some(ConfigError::MaxTurnsNotPositive)
    );
}

#[test]
fn content_and_thinking_are_joined_across_chunks_and_streamed_as_deltas() {
    let (mut session, _) = start(config(8));
    let actions = feed(
        &mut session,
        &[
            thinking("Look"),
            thinking(" first."),
            text("All "),
            text("good."),
            done(),
        ],
    );
    assert_eq!(
        actions,
        concat(vec![
            vec![
                Action::Emit(Event::ThinkingDelta {
                    turn: 1,
                    text: "Look".to_owned()
                }),
                Action::Emit(Event::ThinkingDelta {
                    turn: 1,
                    text: " first.".to_owned()
                }),
                text_delta(1, "All "),
                text_delta(1, "good."),
                model_done(1, "stop", 0),
            ],
            stopped(StopReason::AssistantFinished, None),
        ])
    );
    let mut expected = opening();
    expected.push(assistant("All good.", Some("Look first."), vec![]));
    assert_eq!(plain(session.conversation()), expected);
}

#[test]
fn the_request_after_a_file_read_holds_the_file_text() {
    let (mut session, _) = start(config(8));
    let read = read_call("call_r1");
    let actions = feed(
        &mut session,
        &[text("Reading."), tool_calls(vec![read.clone()]), done()],
    );
    assert_eq!(
        actions,
        concat(vec![
            vec![text_delta(1, "Reading."), model_done(1, "stop", 1)],
            read_dispatch(1, 0, "call_r1"),
        ])
    );
    let file = json!({"path": "path_rules.py", "text": "def f():\n    return 'é'\n"});
    let actions = finish(&mut session, "call_r1", success(file.clone()));
    let mut messages = opening();
    messages.push(assistant("Reading.", None, vec![read]));
    messages.push(Message {
        role: Role::Tool,
        content: r#"{"path":"path_rules.py","text":"def f():\n    return 'é'\n"}"#.to_owned(),
        thinking: None,
        signed_thinking: vec![],
        tool_calls: vec![],
        tool_name: Some("read_file".to_owned()),
        tool_call_id: Some("call_r1".to_owned()),
    });
    assert_eq!(
        actions,
        concat(vec![
            vec![result_event(
                1,
                0,
                "call_r1",
                "read_file",
                ToolStatus::Ok,
                file
            )],
            start_of(2, messages),
        ])
    );
}

#[test]
fn two_calls_run_one_at_a_time_and_return_in_order() {
    let (mut session, _) = start(config(8));
    let first = read_call("call_a");
    let second = call(Some("call_b"), "run_tests", json!({}));
    let actions = feed(
        &mut session,
        &[
            tool_calls(vec![first.clone()]),
            tool_calls(vec![second.clone()]),
            done(),
        ],
    );
    assert_eq!(
        actions,
        concat(vec![
            vec![model_done(1, "stop", 2)],
            read_dispatch(1, 0, "call_a"),
        ])
    );
    // The second call is not dispatched before the first one's result.
    let early = finish(&mut session, "call_b", success(json!({"exit_code": 0})));
    assert_eq!(
        early,
        vec![Action::Emit(Event::InputRejected {
            input: mend_core::InputKind::ToolFinished,
            reason: mend_core::Rejection::OtherToolRunning {
                call_id: CallId("call_b".to_owned()),
                running: CallId("call_a".to_owned()),
            },
        })]
    );
    let actions = finish(&mut session, "call_a", success(json!({"text": "a"})));
    assert_eq!(
        actions,
        concat(vec![
            vec![result_event(
                1,
                0,
                "call_a",
                "read_file",
                ToolStatus::Ok,
                json!({"text": "a"})
            )],
            dispatch(1, 1, "call_b", "run_tests", json!({})),
        ])
    );
    let failure = ToolOutcome::Failure {
        message: "pytest timed out".to_owned(),
    };
    let actions = finish(&mut session, "call_b", failure);
    let mut messages = opening();
    messages.push(assistant("", None, vec![first, second]));
    messages.push(Message::tool_result(
        "read_file",
        Some("call_a"),
        r#"{"text":"a"}"#.to_owned(),
    ));
    messages.push(Message::tool_result(
        "run_tests",
        Some("call_b"),
        r#"{"error":"pytest timed out"}"#.to_owned(),
    ));
    let error = json!({"error": "pytest timed out"});
    assert_eq!(
        actions,
        concat(vec![
            vec![result_event(
                1,
                1,
                "call_b",
                "run_tests",
                ToolStatus::Failed,
                error
            )],
            start_of(2, messages),
        ])
    );
}

#[test]
fn an_unknown_tool_gets_an_error_result_in_the_next_request() {
    let (mut session, _) = start(config(8));
    let unknown = call(None, "delete_everything", json!({"path": "/"}));
    let actions = feed(&mut session, &[tool_calls(vec![unknown.clone()]), done()]);
    let message = "unknown tool `delete_everything`; the available tools are: read_file, replace_text, run_tests";
    let mut messages = opening();
    messages.push(assistant("", None, vec![unknown]));
    messages.push(Message::tool_result(
        "delete_everything",
        None,
        json!({"error": message}).to_string(),
    ));
    assert_eq!(
        actions,
        concat(vec![
            vec![
                model_done(1, "stop", 1),
                result_event(
                    1,
                    0,
                    "mend_1_0",
                    "delete_everything",
                    ToolStatus::Refused,
                    json!({"error": message})
                ),
            ],
            start_of(2, messages),
        ])
    );
}

#[test]
fn an_error_line_mid_stream_is_a_model_error_and_nothing_runs() {
    let (mut session, _) = start(config(8));
    let read = read_call("call_1");
    let actions = feed(
        &mut session,
        &[
            text("Hi"),
            tool_calls(vec![read]),
            error_line("an error was encountered while running the model"),
        ],
    );
    assert_eq!(
        actions,
        concat(vec![
            vec![text_delta(1, "Hi")],
            stopped(
                StopReason::ModelError,
                Some("the server reported an error mid-stream: an error was encountered while running the model"),
            ),
        ])
    );
    assert_eq!(plain(session.conversation()), opening());
}

#[test]
fn a_transport_failure_is_a_model_error() {
    let (mut session, _) = start(config(8));
    let error = TransportError::Http {
        status: 404,
        body: r#"{"error":"model 'x' not found"}"#.to_owned(),
    };
    let actions = session.handled(
        Millis(0),
        Input::TransportFailed {
            error: error.clone(),
        },
    );
    assert_eq!(
        actions,
        stopped_because(
            StopReason::ModelError,
            Some("HTTP 404: model 'x' not found"),
            Some(StopCause::Transport(error)),
        )
    );
}

#[test]
fn a_malformed_line_is_a_model_error() {
    let (mut session, _) = start(config(8));
    let actions = session.handled(Millis(0), raw(b"{\"message\": "));
    let [Action::Emit(Event::Stopped(stop)), Action::Stop(_)] = actions.as_slice() else {
        panic!("expected a stop, got {actions:?}");
    };
    assert_eq!(stop.reason, StopReason::ModelError);
}

#[test]
fn a_stream_without_done_is_incomplete_and_runs_nothing() {
    let (mut session, _) = start(config(8));
    let read = read_call("call_1");
    let mut actions = feed(
        &mut session,
        &[text("Let me read."), tool_calls(vec![read])],
    );
    actions.extend(session.handled(Millis(0), Input::StreamEnd));
    assert_eq!(
        actions,
        concat(vec![
            vec![text_delta(1, "Let me read.")],
            stopped(
                StopReason::IncompleteModelTurn,
                Some("the stream ended without a `done` chunk")
            ),
        ])
    );
}

#[test]
fn a_turn_cut_off_by_length_is_incomplete_and_runs_nothing() {
    let (mut session, _) = start(config(8));
    let read = read_call("call_1");
    let actions = feed(&mut session, &[tool_calls(vec![read]), done_length()]);
    assert_eq!(
        actions,
        concat(vec![
            vec![model_done(1, "length", 1)],
            stopped_because(
                StopReason::IncompleteModelTurn,
                Some("the model's output was cut off by the token limit (done_reason: length); none of its 1 tool call(s) ran"),
                Some(StopCause::TokenLimit),
            ),
        ])
    );
}

#[test]
fn with_one_turn_the_call_still_runs_but_no_second_request_is_sent() {
    let (mut session, first) = start(config(1));
    let read = read_call("call_1");
    let mut actions = first;
    actions.extend(feed(&mut session, &[tool_calls(vec![read]), done()]));
    actions.extend(finish(
        &mut session,
        "call_1",
        success(json!({"text": "x"})),
    ));
    assert_eq!(
        actions,
        concat(vec![
            start_of(1, opening()),
            vec![model_done(1, "stop", 1)],
            read_dispatch(1, 0, "call_1"),
            vec![result_event(
                1,
                0,
                "call_1",
                "read_file",
                ToolStatus::Ok,
                json!({"text": "x"})
            )],
            stopped(
                StopReason::MaxTurns,
                Some("the budget of 1 turn(s) is spent")
            ),
        ])
    );
    assert_eq!(session.conversation().len(), 4, "the result is recorded");
}

#[test]
fn a_blank_answer_is_an_empty_response() {
    let (mut session, _) = start(config(8));
    let actions = feed(&mut session, &[text("  \n"), done()]);
    assert_eq!(
        actions,
        concat(vec![
            vec![text_delta(1, "  \n"), model_done(1, "stop", 0)],
            stopped(StopReason::EmptyResponse, None),
        ])
    );
}

#[test]
fn calls_that_arrive_only_in_the_done_chunk_run() {
    let (mut session, _) = start(config(8));
    let edit = call(None, "replace_text", json!({"old": "a", "new": "b"}));
    let in_done = done_with(
        "stop",
        json!({"role": "assistant", "content": "Fixing.", "tool_calls": [edit.clone()]}),
    );
    let actions = feed(&mut session, &[in_done]);
    assert_eq!(
        actions,
        concat(vec![
            vec![text_delta(1, "Fixing."), model_done(1, "stop", 1)],
            dispatch(
                1,
                0,
                "mend_1_0",
                "replace_text",
                json!({"old": "a", "new": "b"})
            ),
        ])
    );
}

#[test]
fn calls_with_the_same_index_stay_separate() {
    let (mut session, _) = start(config(8));
    let mut first = call(Some("call_x"), "read_file", json!({"path": "a"}));
    let mut second = call(Some("call_y"), "read_file", json!({"path": "b"}));
    first["function"]["index"] = json!(0);
    second["function"]["index"] = json!(0);
    let actions = feed(
        &mut session,
        &[tool_calls(vec![first]), tool_calls(vec![second]), done()],
    );
    assert_eq!(
        actions,
        concat(vec![
            vec![model_done(1, "stop", 2)],
            dispatch(1, 0, "call_x", "read_file", json!({"path": "a"}))
        ])
    );
    let actions = finish(&mut session, "call_x", success(json!({})));
    assert_eq!(
        actions,
        concat(vec![
            vec![result_event(
                1,
                0,
                "call_x",
                "read_file",
                ToolStatus::Ok,
                json!({})
            )],
            dispatch(1, 1, "call_y", "read_file", json!({"path": "b"})),
        ])
    );
}

#[test]
fn cancel_and_deadline_stop_the_session() {
    let (mut session, _) = start(config(8));
    assert_eq!(
        session.handled(Millis(0), Input::Cancel),
        stopped(StopReason::Cancelled, None)
    );

    let mut with_deadline = config(8);
    with_deadline.deadline = Some(Millis(1_000));
    let (mut session, _) = start(with_deadline);
    assert_eq!(session.next_deadline(), Some(Millis(1_000)));
    let early = session.handled(Millis(999), Input::DeadlinePassed);
    assert_eq!(
        early,
        vec![Action::Emit(Event::InputRejected {
            input: mend_core::InputKind::DeadlinePassed,
            reason: mend_core::Rejection::DeadlineNotReached {
                deadline: Millis(1_000),
                now: Millis(999),
            },
        })]
    );
    assert_eq!(
        session.handled(Millis(1_000), Input::DeadlinePassed),
        stopped(
            StopReason::DeadlineExceeded,
            Some("the run passed its deadline at 1000 ms")
        )
    );
    assert_eq!(session.next_deadline(), None);
}

#[test]
fn nothing_happens_after_the_stop() {
    let (mut session, _) = start(config(8));
    let _stop = session.handled(Millis(0), Input::Cancel);
    let after = session.clone();
    for input in [
        line(&text("late")),
        Input::StreamEnd,
        Input::Cancel,
        Input::DeadlinePassed,
    ] {
        assert_eq!(session.handled(Millis(5), input), vec![]);
    }
    assert_eq!(session, after);
}

#[test]
fn a_snapshot_taken_mid_turn_resumes_with_the_same_actions() {
    let read = read_call("call_1");
    let first_half = [thinking("Plan"), text("Let me ")];
    let second_half = [text("read."), tool_calls(vec![read]), done()];

    let (mut uninterrupted, _) = start(config(8));
    feed(&mut uninterrupted, &first_half);
    let mut expected = feed(&mut uninterrupted, &second_half);
    expected.extend(finish(
        &mut uninterrupted,
        "call_1",
        success(json!({"text": "x"})),
    ));

    let (mut original, _) = start(config(8));
    feed(&mut original, &first_half);
    let snapshot = serde_json::to_string(&original).expect("a session serializes");
    let mut restored: Session = serde_json::from_str(&snapshot).expect("a snapshot restores");
    assert_eq!(restored, original);
    let mut actions = feed(&mut restored, &second_half);
    actions.extend(finish(
        &mut restored,
        "call_1",
        success(json!({"text": "x"})),
    ));
    assert_eq!(actions, expected);
    assert_eq!(restored, uninterrupted);
}

#[test]
fn actions_and_inputs_round_trip_through_json() {
    let (mut session, mut actions) = start(config(8));
    actions.extend(feed(
        &mut session,
        &[tool_calls(vec![call(None, "run_tests", json!({}))]), done()],
    ));
    let text = serde_json::to_string(&actions).expect("actions serialize");
    let back: Vec<Action> = serde_json::from_str(&text).expect("actions deserialize");
    assert_eq!(back, actions);
    let input = Input::ToolFinished {
        call_id: CallId("c".to_owned()),
        outcome: success(json!({"a": 1})),
    };
    let back: Input =
        serde_json::from_str(&serde_json::to_string(&input).expect("ser")).expect("de");
    assert_eq!(back, input);
}

#[test]
fn the_core_answers_the_todo_tool_and_the_next_hint_shows_the_list() {
    let mut config = config(8);
    config.tools.push(mend_core::todo_tool());
    config.context = Some(mend_core::ContextConfig {
        workdir: "repo".to_owned(),
        os: "linux".to_owned(),
    });
    let (mut session, first) = start(config);
    let Some(Action::SendRequest { body, .. }) = first.last() else {
        panic!("a first request")
    };
    assert_eq!(
        body.messages.last().map(|m| Message::clone(m)),
        Some(Message::system(
            "Context for turn 1 of 8 (working directory `repo`, OS linux).\nNo tool calls yet."
        ))
    );
    let items = json!({"items": [{"text": "read the files", "done": true}, {"text": "fix", "done": false}]});
    let todo = call(Some("call_t"), "todo", items.clone());
    let actions = feed(&mut session, &[tool_calls(vec![todo]), done()]);
    let result = json!({"todo": items["items"]});
    let hint = Message::system(
        "Context for turn 2 of 8 (working directory `repo`, OS linux).\nTool calls so far: todo 1 ok.\nYour TODO list: [x] read the files; [ ] fix.",
    );
    let Some(Action::SendRequest { body, .. }) = actions.last() else {
        panic!("a second request: {actions:?}")
    };
    assert_eq!(body.messages.last().map(|m| Message::clone(m)), Some(hint));
    assert!(
        !actions
            .iter()
            .any(|action| matches!(action, Action::DispatchTool { .. })),
        "nothing is dispatched"
    );
    assert_eq!(
        actions[..3].to_vec(),
        vec![
            model_done(1, "stop", 1),
            Action::Emit(Event::ToolStart {
                turn: 1,
                index: 0,
                call_id: CallId("call_t".to_owned()),
                name: "todo".to_owned(),
                arguments: object(items),
            }),
            result_event(1, 0, "call_t", "todo", ToolStatus::Ok, result),
        ]
    );
}

#[test]
fn a_running_session_takes_no_follow_up() {
    let session = Session::new(config(3)).unwrap();
    assert_eq!(
        session.follow_up("and also this").err(),
        Some(mend_core::FollowUpError::StillRunning)
    );
}

#[test]
fn a_follow_up_after_a_cut_turn_answers_the_call_that_never_ran() {
    let (mut session, _) = start(config(8));
    let first = read_call("call_a");
    let second = call(Some("call_b"), "run_tests", json!({}));
    feed(
        &mut session,
        &[tool_calls(vec![first.clone(), second.clone()]), done()],
    );
    finish(&mut session, "call_a", success(json!({"text": "x = 1\n"})));
    let _stop = session.handled(Millis(0), Input::Cancel);

    let (next, actions) = taken(session.follow_up("Now run the tests.").unwrap());
    let mut expected = opening();
    expected.extend([
        assistant("", None, vec![first, second]),
        Message::tool_result(
            "read_file",
            Some("call_a"),
            r#"{"text":"x = 1\n"}"#.to_owned(),
        ),
        Message::tool_result(
            "run_tests",
            Some("call_b"),
            json!({"error": mend_core::internal::NOT_RUN}).to_string(),
        ),
        Message::user("Now run the tests."),
    ]);
    assert_eq!(actions, start_of(1, expected.clone()));
    assert_eq!(plain(next.conversation()), expected);
}

/// The questions an embedder asks instead of looking at the phase: which turn, whether the body
/// is still wanted, whether and how it stopped — at every step of a two-turn session.
#[test]
fn the_session_answers_questions_about_where_it_is() {
    let ask = |session: &Session| {
        (
            session.turn(),
            session.is_streaming(),
            session.stopped().cloned(),
        )
    };
    let (mut session, _) = start(config(2));
    let mut seen = vec![ask(&session)];
    let read = call(Some("call_1"), "read_file", json!({"path": "a.py"}));
    let _dispatched = feed(&mut session, &[tool_calls(vec![read]), done()]);
    seen.push(ask(&session));
    let _next = finish(&mut session, "call_1", success(json!({"text": "x"})));
    seen.push(ask(&session));
    let _stopped = feed(
        &mut session,
        &[done_with(
            "stop",
            json!({"role": "assistant", "content": "Done."}),
        )],
    );
    seen.push(ask(&session));
    let finished = Stop {
        reason: StopReason::AssistantFinished,
        detail: None,
        cause: None,
    };
    assert_eq!(
        seen,
        vec![
            (1, true, None),
            (1, false, None),
            (2, true, None),
            (2, false, Some(finished)),
        ]
    );
}

/// `SendRequest` carries everything needed to send it: for each protocol the method, the path,
/// the headers, where a key goes (never a key) and the body in the protocol's shape.
#[test]
fn every_request_says_how_it_is_sent() {
    let requests: Vec<Value> = [Protocol::OllamaNdjson, Protocol::OpenaiSse, Protocol::AnthropicSse]
        .into_iter()
        .map(|protocol| {
            let (_, first) = start(mend_core::Config { protocol, ..config(2) });
            let http = first.iter().find_map(Action::http_request).unwrap();
            let body: Value = serde_json::from_slice(&http.body).unwrap();
            json!({
                "method": http.method,
                "path": http.path,
                "headers": http.headers,
                "key": http.api_key_header.map(|place| place.value("KEY")),
                "key_header": serde_json::to_value(&first.iter().find_map(Action::http_request).unwrap().api_key_header).unwrap(),
                "body_model": body["model"],
                "body_has_system_field": body.get("system").is_some(),
            })
        })
        .collect();
    assert_eq!(
        requests,
        vec![
            json!({"method": "POST", "path": "/api/chat", "headers": [["content-type", "application/json"]],
                   "key": null, "key_header": null, "body_model": "gemma4:e2b", "body_has_system_field": false}),
            json!({"method": "POST", "path": "/v1/chat/completions", "headers": [["content-type", "application/json"]],
                   "key": "Bearer KEY", "key_header": {"name": "authorization", "prefix": "Bearer "},
                   "body_model": "gemma4:e2b", "body_has_system_field": false}),
            json!({"method": "POST", "path": "/v1/messages",
                   "headers": [["content-type", "application/json"], ["anthropic-version", "2023-06-01"]],
                   "key": "KEY", "key_header": {"name": "x-api-key", "prefix": ""},
                   "body_model": "gemma4:e2b", "body_has_system_field": true}),
        ]
    );
    // The Ollama body is the session's own request, byte for byte.
    let (_, first) = start(config(2));
    let Some(Action::SendRequest { body, .. }) = first.last() else {
        panic!("turn 1 is sent")
    };
    assert_eq!(
        first.last().and_then(Action::http_request).unwrap().body,
        serde_json::to_vec(body).unwrap()
    );
}
