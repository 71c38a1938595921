//! What keeping within the context window costs the core: the estimate before each request and
//! the shortening of older results, measured as the difference between a session with a window
//! and the same session without one, next to the core's own time for a turn of streamed lines.

use std::time::{Duration, Instant};

use mend_core::{Action, CallId, ChatRequest, Input, Millis, Session, ToolOutcome, Window};
use serde_json::json;

use super::synthetic::{arrived, config, opened, text_line, tool_call_line, Rng, Step};
use super::{command, Row};

const RESULT_BYTES: usize = 4 * 1024;
const REPEATS: u32 = 200;
/// Rounds of each measure; the best is kept, as the machines are shared and noisy.
const ROUNDS: u32 = 15;
/// The lines of a turn in the core throughput figure: what a request's upkeep is set against.
const LINES_PER_TURN: u32 = 1_000;

/// A done line whose prompt count is what an honest server reads: a token per 4 bytes sent.
fn done_counted(request: &ChatRequest) -> Vec<u8> {
    let counted = serde_json::to_vec(request).unwrap().len() / 4;
    json!({"model": "gemma4:e2b", "created_at": "2026-12-03T09:00:00Z", "message": {"role": "assistant", "content": ""},
           "done": true, "done_reason": "stop", "prompt_eval_count": counted, "eval_count": 60})
    .to_string()
    .into_bytes()
}

/// A session (with `window` or none) just before the result that completes turn `turns`.
fn before_last_result(turns: u32, window: Option<u32>) -> (Session, CallId) {
    let mut config = config(turns + 1);
    if let Some(tokens) = window {
        config.options.num_ctx = tokens;
        config.window = Some(Window::new(tokens));
    }
    let (mut session, first) = opened(config);
    let mut request = sent(&first).unwrap();
    let mut rng = Rng::new(5);
    for turn in 1..=turns {
        let mut dispatched = None;
        for line in [
            text_line(&mut rng),
            tool_call_line(u64::from(turn)),
            done_counted(&request),
        ] {
            for action in session.step(Millis(0), arrived(line)) {
                if let Action::DispatchTool { call_id, .. } = action {
                    dispatched = Some(call_id);
                }
            }
        }
        let call_id = dispatched.expect("every turn's call runs: the window holds");
        if turn == turns {
            return (session, call_id);
        }
        let outcome = ToolOutcome::Success {
            value: json!({"exit_code": 1, "output": "x".repeat(RESULT_BYTES)}),
        };
        let actions = session.step(Millis(0), Input::ToolFinished { call_id, outcome });
        request = sent(&actions).unwrap();
    }
    unreachable!("the loop returns on the last turn")
}

fn sent(actions: &[Action]) -> Option<ChatRequest> {
    actions.iter().find_map(|action| match action {
        Action::SendRequest { body, .. } => Some(body.clone()),
        _ => None,
    })
}

/// One round: the mean time of the next request over [`REPEATS`] copies of `session`, and how
/// many results were shortened for it.
fn next_request(session: &Session, call_id: &CallId) -> (Duration, usize) {
    let outcome = ToolOutcome::Success {
        value: json!({"exit_code": 0, "output": "x".repeat(RESULT_BYTES)}),
    };
    let mut copies: Vec<Session> = (0..REPEATS).map(|_| session.clone()).collect();
    let mut trimmed = 0;
    let started = Instant::now();
    for copy in &mut copies {
        let input = Input::ToolFinished {
            call_id: call_id.clone(),
            outcome: outcome.clone(),
        };
        let actions = copy.step(Millis(0), input);
        assert!(sent(&actions).is_some(), "the request is sent");
        trimmed = actions
            .iter()
            .filter(|action| {
                matches!(
                    action,
                    Action::Emit(mend_core::Event::ContextTrimmed { .. })
                )
            })
            .count();
    }
    (started.elapsed() / REPEATS, trimmed)
}

/// The core's time per streamed text line, in this run: the best of rounds as short as a round
/// of requests, so that both are as exposed to the machine's other work.
fn core_per_line() -> Duration {
    let mut rng = Rng::new(9);
    let lines: Vec<Vec<u8>> = (0..2_000).map(|_| text_line(&mut rng)).collect();
    let count = lines.len() as u32;
    (0..ROUNDS * 4)
        .map(|_| {
            let (mut session, _) = opened(config(2));
            let lines = lines.clone();
            let started = Instant::now();
            for line in lines {
                let _actions = session.step(Millis(0), arrived(line));
            }
            started.elapsed() / count
        })
        .min()
        .unwrap()
}

/// The next request after `turns` turns with `window` and without one, in alternate rounds,
/// the best of each (the least disturbed by the machine's other work), and how many results
/// were shortened for it.
fn with_and_without(turns: u32, window: u32) -> (Duration, Duration, usize) {
    let (with_window, with_call) = before_last_result(turns, Some(window));
    let (without_window, without_call) = before_last_result(turns, None);
    let (mut with, mut without, mut trimmed) = (Duration::MAX, Duration::MAX, 0);
    for _ in 0..ROUNDS {
        let (time, shortened) = next_request(&with_window, &with_call);
        (with, trimmed) = (with.min(time), shortened);
        without = without.min(next_request(&without_window, &without_call).0);
    }
    (with, without, trimmed)
}

pub fn measure() -> Vec<Row> {
    let per_line = core_per_line();
    let turn_time = per_line * LINES_PER_TURN;
    [(10, 8_192), (100, 131_072), (100, 2_097_152)]
        .into_iter()
        .map(|(turns, window)| {
            let (with, without, trimmed) = with_and_without(turns, window);
            let upkeep = with.saturating_sub(without);
            Row {
                figure: format!(
                    "context window upkeep (estimate + shortening) of the request after {turns} turns, window {window}, {trimmed} result(s) shortened for it"
                ),
                measured: format!(
                    "{:.1} µs ({:.1} µs with − {:.1} µs without, best of {ROUNDS} rounds) = {:.2} % of the core's time for a {LINES_PER_TURN}-line turn ({:.2} µs a line)",
                    upkeep.as_secs_f64() * 1e6,
                    with.as_secs_f64() * 1e6,
                    without.as_secs_f64() * 1e6,
                    upkeep.as_secs_f64() * 100.0 / turn_time.as_secs_f64(),
                    per_line.as_secs_f64() * 1e6
                ),
                target: "< 1 %".to_owned(),
                command: command("window"),
            }
        })
        .collect()
}
