//! The context window as the session keeps it: the estimate sent before each request, older tool
//! results shortened to fit, a server that cut the prompt caught, and requests that only grow.
//! Rules as properties over generated conversations; the stops as whole event lists.

use std::sync::Arc;

use crate::support::Handled;
use crate::support::{call, chunk, config, line, start, tool_calls};
use mend_core::{
    Action, CallId, ChatRequest, Config, ContextConfig, Event, Input, Message, Millis, Role,
    Session, Stop, StopCause, StopReason, ToolOutcome, TransportError, TrimReason, Window,
    WindowError,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/core-window.txt"
        )))),
        ..ProptestConfig::default()
    }
}

fn windowed(tokens: u32, max_turns: u32) -> Config {
    let mut config = config(max_turns);
    config.options.num_ctx = tokens;
    config.window = Some(Window::new(tokens));
    config
}

/// The done line of a turn whose prompt the server counted as `prompt_tokens`.
fn done_counted(prompt_tokens: u64) -> Value {
    let mut line = chunk(json!({"role": "assistant", "content": ""}), true);
    line["done_reason"] = json!("stop");
    line["prompt_eval_count"] = json!(prompt_tokens);
    line["eval_count"] = json!(20);
    line
}

fn events(actions: &[Action]) -> Vec<Event> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Emit(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

fn sent(actions: &[Action]) -> Option<ChatRequest> {
    actions.iter().find_map(|action| match action {
        Action::SendRequest { body, .. } => Some(body.clone()),
        _ => None,
    })
}

/// What an honest server counts for a request: 4 bytes of its text a token.
fn honest_count(request: &ChatRequest) -> u64 {
    let text: usize = request
        .messages
        .iter()
        .map(|message| {
            message.content.len()
                + message
                    .tool_calls
                    .iter()
                    .map(|call| {
                        Value::Object(call.function.arguments.clone())
                            .to_string()
                            .len()
                    })
                    .sum::<usize>()
        })
        .sum();
    (text / 4 + 200) as u64
}

/// One turn: the model reads a file, the server counts `counted` prompt tokens, and the file
/// holds `bytes` bytes. Returns every action from the first line to the next request.
fn read_turn(session: &mut Session, turn: u32, counted: u64, bytes: usize) -> Vec<Action> {
    let id = format!("call_{turn}");
    let calls = tool_calls(vec![call(
        Some(&id),
        "read_file",
        json!({"path": format!("f{turn}.py")}),
    )]);
    let mut actions = session.handled(Millis(0), line(&calls));
    actions.extend(session.handled(Millis(0), line(&done_counted(counted))));
    if actions
        .iter()
        .any(|action| matches!(action, Action::DispatchTool { .. }))
    {
        let outcome = ToolOutcome::Success {
            value: json!({"path": format!("f{turn}.py"), "text": "v = 1\n".repeat(bytes / 6)}),
        };
        actions.extend(session.handled(
            Millis(0),
            Input::ToolFinished {
                call_id: CallId(id),
                outcome,
            },
        ));
    }
    actions
}

#[test]
fn each_request_is_announced_with_its_estimate() {
    let (_, first) = start(windowed(8192, 4));
    let estimate = first
        .iter()
        .find_map(|action| match action {
            Action::Emit(Event::PromptEstimate { tokens, .. }) => Some(*tokens),
            _ => None,
        })
        .unwrap();
    let request = sent(&first).unwrap();
    assert_eq!(
        estimate,
        mend_core::estimate_prompt_tokens(&request.messages, &request.tools)
    );
    assert_eq!(
        events(&first),
        vec![
            Event::ModelStart { turn: 1 },
            Event::PromptEstimate {
                turn: 1,
                tokens: estimate,
                window: 8192
            },
        ]
    );
    assert_eq!(request.options.num_ctx, 8192);
}

#[test]
fn a_server_that_cut_the_prompt_ends_the_run_before_its_calls_run() {
    let (mut session, first) = start(windowed(8192, 6));
    let mut request = sent(&first).unwrap();
    // Three results of 6 kB: the fourth request holds over 16 kB, more than 8192 tokens can
    // hold at 2 bytes a token, so it could not have fitted.
    for turn in 1..=3 {
        let actions = read_turn(&mut session, turn, honest_count(&request), 6_000);
        request = sent(&actions).unwrap();
    }
    let honest = honest_count(&request);
    let actions = read_turn(&mut session, 4, honest / 3, 100);
    let stop = session.stopped().cloned().unwrap();
    assert_eq!(stop.reason, StopReason::ContextExceeded);
    let detail = stop.detail.clone().unwrap();
    assert!(
        detail.starts_with(&format!(
            "the server read {} prompt tokens where the request held at least",
            honest / 3
        )),
        "{detail}"
    );
    assert!(
        detail.contains("mend assumed a window of 8192 tokens"),
        "{detail}"
    );
    // The cause is typed, and the detail is its words.
    let Some(StopCause::Window(cause)) = stop.cause.clone() else {
        panic!("{stop:?}")
    };
    let WindowError::PromptCut { read, window, .. } = cause else {
        panic!("{cause:?}")
    };
    assert_eq!(
        (read, window, detail),
        (honest / 3, 8192, cause.to_string())
    );
    let Some(Event::ModelDone { metrics, .. }) = events(&actions).first().cloned() else {
        panic!("{actions:?}")
    };
    assert_eq!(
        events(&actions),
        vec![
            Event::ModelDone {
                turn: 4,
                done_reason: Some("stop".to_owned()),
                tool_calls: 1,
                metrics
            },
            Event::Stopped(stop.clone()),
        ]
    );
    assert_eq!(actions.last(), Some(&Action::Stop(stop)));
}

#[test]
fn a_server_that_says_the_prompt_is_too_long_ends_the_run_with_context_exceeded() {
    let (mut session, _) = start(config(4));
    let error = TransportError::Http {
        status: 400,
        body: r#"{"error":"the input length exceeds the context length"}"#.to_owned(),
    };
    let actions = session.handled(
        Millis(0),
        Input::TransportFailed {
            error: error.clone(),
        },
    );
    let stop = Stop {
        reason: StopReason::ContextExceeded,
        detail: Some("HTTP 400: the input length exceeds the context length".to_owned()),
        cause: Some(StopCause::Transport(error)),
    };
    assert_eq!(
        actions,
        vec![
            Action::Emit(Event::Stopped(stop.clone())),
            Action::Stop(stop)
        ]
    );
}

#[test]
fn a_first_request_larger_than_the_window_is_never_sent() {
    let mut config = windowed(1024, 4);
    config.task = "Fix this: ".to_owned() + &"x".repeat(4000);
    let (session, first) = start(config);
    assert_eq!(sent(&first), None);
    assert_eq!(
        session.stopped().map(|stop| stop.reason),
        Some(StopReason::ContextExceeded)
    );
}

#[test]
fn a_result_larger_than_a_quarter_of_the_window_is_capped_on_arrival() {
    let (mut session, _) = start(windowed(4096, 4));
    let actions = read_turn(&mut session, 1, 300, 20_000);
    let trimmed: Vec<Event> = events(&actions)
        .into_iter()
        .filter(|event| matches!(event, Event::ContextTrimmed { .. }))
        .collect();
    let result = session.conversation()[3].content.len() as u64;
    let Some(Event::ContextTrimmed { bytes_before, .. }) = trimmed.first().cloned() else {
        panic!("{actions:?}")
    };
    assert_eq!(
        trimmed,
        vec![Event::ContextTrimmed {
            turn: 1,
            message: 3,
            name: "read_file".to_owned(),
            reason: TrimReason::Capped,
            bytes_before,
            bytes_after: result,
        }]
    );
    assert!(
        bytes_before > 20_000 && result <= 3072,
        "{bytes_before} {result}"
    );
}

fn is_prefix(before: &[Arc<Message>], after: &[Arc<Message>]) -> bool {
    before.len() <= after.len() && before.iter().zip(after).all(|(a, b)| a == b)
}

/// The result sizes of a generated conversation, in bytes.
fn sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![3 => 10usize..2_000, 1 => 2_000usize..9_000],
        1..9,
    )
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Requests only grow between turns, apart from the per-turn hint at the end (so a
    /// server's prompt cache reuses all before it), and when results had to be shortened, the
    /// shortened conversation is what every later request grows from.
    #[test]
    fn requests_are_append_only_apart_from_the_hint(sizes in sizes(), hint in any::<bool>()) {
        let mut config = windowed(8192, 12);
        if hint {
            config.context = Some(ContextConfig { workdir: "repo".to_owned(), os: "linux".to_owned() });
        }
        let (mut session, first) = start(config);
        let mut previous = sent(&first).unwrap();
        for (turn, bytes) in sizes.iter().enumerate() {
            let actions = read_turn(&mut session, turn as u32 + 1, honest_count(&previous), *bytes);
            let Some(next) = sent(&actions) else { break };
            let trimmed = events(&actions).iter().any(|event| matches!(event, Event::ContextTrimmed { reason: TrimReason::Window, .. }));
            let hints = usize::from(hint);
            let before = &previous.messages[..previous.messages.len() - hints];
            let after = &next.messages[..next.messages.len() - hints];
            if !trimmed {
                prop_assert!(is_prefix(before, after), "turn {} dropped or changed a message", turn + 2);
            }
            prop_assert!(is_prefix(after, session.conversation()));
            previous = next;
        }
    }

    /// Without a count to calibrate on, each request's estimate is that of the whole request
    /// measured from scratch, shortened or not: the session's running totals never drift.
    #[test]
    fn each_estimate_is_that_of_the_whole_request(sizes in sizes(), hint in any::<bool>()) {
        let mut config = windowed(8192, 12);
        if hint {
            config.context = Some(ContextConfig { workdir: "repo".to_owned(), os: "linux".to_owned() });
        }
        let (mut session, mut actions) = start(config);
        for (turn, bytes) in sizes.iter().enumerate() {
            let Some(request) = sent(&actions) else { break };
            let estimates: Vec<u64> = events(&actions).iter().filter_map(|event| match event {
                Event::PromptEstimate { tokens, .. } => Some(*tokens),
                _ => None,
            }).collect();
            prop_assert_eq!(estimates, vec![mend_core::estimate_prompt_tokens(&request.messages, &request.tools)]);
            // A count of 0 is no count: the estimate stays at its first ratio.
            actions = read_turn(&mut session, turn as u32 + 1, 0, *bytes);
        }
    }

    /// Shortening touches only tool results between the model's first turn and its last two,
    /// oldest first, and each shortened one keeps its head and tail around a marker; an honest
    /// server's counts never end the run, and the requests stay within the window.
    #[test]
    fn trimming_spares_what_is_pinned_and_honest_counts_pass(sizes in sizes()) {
        let (mut session, first) = start(windowed(8192, 12));
        let mut request = sent(&first).unwrap();
        for (turn, bytes) in sizes.iter().enumerate() {
            let before: Vec<Arc<Message>> = session.conversation().to_vec();
            let actions = read_turn(&mut session, turn as u32 + 1, honest_count(&request), *bytes);
            prop_assert_eq!(session.stopped().map(|stop| stop.reason), None);
            let assistants: Vec<usize> = session.conversation().iter().enumerate()
                .filter(|(_, m)| m.role == Role::Assistant).map(|(at, _)| at).collect();
            let kept_from = assistants[assistants.len().saturating_sub(2)];
            for event in events(&actions) {
                if let Event::ContextTrimmed { message, reason: TrimReason::Window, bytes_before, bytes_after, .. } = event {
                    let at = message as usize;
                    prop_assert!(at > assistants[0] && at < kept_from, "message {} of {:?}", at, assistants);
                    let now = &session.conversation()[at];
                    prop_assert_eq!(now.role, Role::Tool);
                    prop_assert_eq!(before[at].content.len() as u64, bytes_before);
                    prop_assert_eq!(now.content.len() as u64, bytes_after);
                    prop_assert!(bytes_after < bytes_before);
                    prop_assert!(now.content.contains("bytes cut here by mend to fit the context window"));
                    prop_assert_eq!(&now.content[..20], &before[at].content[..20]);
                }
            }
            let pinned = assistants[0];
            prop_assert_eq!(&session.conversation()[..pinned], &before[..pinned]);
            let Some(next) = sent(&actions) else { break };
            prop_assert!(honest_count(&next) < 8192, "an honest count of {} passes the window", honest_count(&next));
            request = next;
        }
    }

    /// A count under the floor of what was sent, for a request the window held whatever its
    /// tokenizer, is a count of new tokens: noted, and the run goes on.
    #[test]
    fn a_low_count_for_a_request_that_fitted_is_noted_and_the_run_goes_on(sizes in sizes(), short in 1u64..400) {
        // 9 results of at most 9 kB never pass 32768 tokens, even at 2 bytes a token.
        let (mut session, first) = start(windowed(65536, 12));
        let mut request = sent(&first).unwrap();
        for (turn, bytes) in sizes.iter().enumerate() {
            let actions = read_turn(&mut session, turn as u32 + 1, honest_count(&request), *bytes);
            match sent(&actions) {
                Some(next) => request = next,
                None => return Ok(()),
            }
        }
        let low = (honest_count(&request) / 5).saturating_sub(short).max(1);
        let actions = read_turn(&mut session, 99, low, 10);
        prop_assert_eq!(session.stopped(), None);
        let notes: Vec<u64> = events(&actions).iter().filter_map(|event| match event {
            Event::PromptCountPartial { tokens, cached: 0, .. } => Some(*tokens),
            _ => None,
        }).collect();
        prop_assert_eq!(notes, vec![low]);
        prop_assert!(sent(&actions).is_some());
    }
}
