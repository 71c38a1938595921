//! `Session::resume`: a stopped session goes on under limits of its own, with or without a new
//! user message, its request carrying the whole conversation so far.

use std::sync::Arc;

use crate::support::*;
use mend_core::{
    Action, ConfigError, FollowUpError, Input, Message, Millis, Session, StopReason, ToolOutcome,
};
use serde_json::json;

/// A session stopped by its budget of one turn, after its one call ran.
fn stopped_by_the_budget() -> Session {
    let (mut session, _) = start(config(1));
    let read = call(Some("call_1"), "read_file", json!({"path": "a.py"}));
    let _ = feed(&mut session, &[tool_calls(vec![read]), done()]);
    let _ = session.handled(
        Millis(1),
        Input::ToolFinished {
            call_id: mend_core::CallId("call_1".to_owned()),
            outcome: ToolOutcome::Success {
                value: json!({"text": "x"}),
            },
        },
    );
    assert_eq!(
        session.stopped().map(|stop| stop.reason),
        Some(StopReason::MaxTurns)
    );
    session
}

/// The messages of the request among `actions`, and the turn it is for.
fn request(actions: &[Action]) -> Option<(u32, Vec<Message>)> {
    actions.iter().find_map(|action| match action {
        Action::SendRequest { turn, body, .. } => Some((
            *turn,
            body.messages.iter().map(|m| Message::clone(m)).collect(),
        )),
        _ => None,
    })
}

#[test]
fn a_session_cut_by_its_budget_resumes_with_the_whole_conversation_and_a_new_budget() {
    let stopped = stopped_by_the_budget();
    let so_far: Vec<Message> = stopped
        .conversation()
        .iter()
        .map(|m| Message::clone(m))
        .collect();

    let (resumed, actions) = taken(stopped.resume(None, 3, Some(Millis(5_000))).unwrap());
    assert_eq!(request(&actions), Some((1, so_far.clone())));
    assert_eq!(
        (resumed.config().max_turns, resumed.config().deadline),
        (3, Some(Millis(5_000)))
    );

    let (_, actions) = taken(stopped.resume(Some("Now run the tests."), 3, None).unwrap());
    let mut with_message = so_far;
    with_message.push(Message::user("Now run the tests."));
    assert_eq!(request(&actions), Some((1, with_message)));
}

#[test]
fn a_running_session_or_a_zero_budget_does_not_resume() {
    let (running, _) = start(config(1));
    assert_eq!(
        running.resume(None, 1, None).err(),
        Some(FollowUpError::StillRunning)
    );
    assert_eq!(
        stopped_by_the_budget().resume(None, 0, None).err(),
        Some(FollowUpError::Config(ConfigError::MaxTurnsNotPositive))
    );
    // The conversation is shared, not copied message by message.
    let stopped = stopped_by_the_budget();
    let resumed = stopped.resume(None, 1, None).unwrap();
    assert!(Arc::ptr_eq(
        &stopped.conversation()[0],
        &resumed.conversation()[0]
    ));
}
