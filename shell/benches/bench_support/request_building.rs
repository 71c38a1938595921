//! Request building as the conversation grows: after 1, 10 and 100 turns, each with a 4 KiB tool
//! result, the cost of the next request: the session producing it, and the shell serializing it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mend_core::{Action, CallId, Input, Millis, Session, ToolOutcome};
use serde_json::json;

use super::synthetic::{arrived, config, done_line, opened, text_line, tool_call_line, Rng, Step};
use super::{command, Row};

const SIZES: [u32; 3] = [1, 10, 100];
const RESULT_BYTES: usize = 4 * 1024;
const REPEATS: u32 = 200;

/// A session just before the result that completes turn `turns`, and that result's call id.
fn session_before_last_result(turns: u32) -> (Session, CallId) {
    let config = config(turns + 1);
    let (mut session, _) = opened(config);
    let mut rng = Rng::new(11);
    let output = "x".repeat(RESULT_BYTES);
    for turn in 1..=turns {
        let mut dispatched = None;
        for line in [
            text_line(&mut rng),
            tool_call_line(u64::from(turn)),
            done_line(),
        ] {
            for action in session.step(Millis(0), arrived(line)) {
                if let Action::DispatchTool { call_id, .. } = action {
                    dispatched = Some(call_id);
                }
            }
        }
        let call_id = dispatched.unwrap();
        if turn == turns {
            return (session, call_id);
        }
        let outcome = ToolOutcome::Success {
            value: json!({"exit_code": 1, "output": output}),
        };
        let _actions = session.step(Millis(0), Input::ToolFinished { call_id, outcome });
    }
    unreachable!("the loop returns on the last turn")
}

struct Cost {
    messages: usize,
    body_bytes: usize,
    build: Duration,
    serialize: Duration,
}

fn cost(turns: u32) -> Cost {
    let (session, call_id) = session_before_last_result(turns);
    let outcome = ToolOutcome::Success {
        value: json!({"exit_code": 0, "output": "x".repeat(RESULT_BYTES)}),
    };
    let mut copies: Vec<Session> = (0..REPEATS).map(|_| session.clone()).collect();
    let mut body = None;
    let started = Instant::now();
    for copy in &mut copies {
        let input = Input::ToolFinished {
            call_id: call_id.clone(),
            outcome: outcome.clone(),
        };
        for action in copy.step(Millis(0), input) {
            if let Action::SendRequest { body: next, .. } = action {
                body = Some(next);
            }
        }
    }
    let build = started.elapsed() / REPEATS;
    let body = body.unwrap();
    let started = Instant::now();
    let mut bytes = 0;
    for _ in 0..REPEATS {
        bytes = black_box(serde_json::to_vec(&body).unwrap()).len();
    }
    let serialize = started.elapsed() / REPEATS;
    Cost {
        messages: body.messages.len(),
        body_bytes: bytes,
        build,
        serialize,
    }
}

pub fn measure() -> Vec<Row> {
    let costs: Vec<Cost> = SIZES.iter().map(|turns| cost(*turns)).collect();
    let per_kb = |cost: &Cost| {
        (cost.build + cost.serialize).as_secs_f64() * 1e6 / (cost.body_bytes as f64 / 1024.0)
    };
    let mut rows: Vec<Row> = SIZES
        .iter()
        .zip(&costs)
        .map(|(turns, cost)| Row {
            figure: format!(
                "next request after {turns} turn(s): {} messages, {} KB",
                cost.messages,
                cost.body_bytes / 1024
            ),
            measured: format!(
                "build {:.1} µs + serialize {:.1} µs = {:.2} µs/KB",
                cost.build.as_secs_f64() * 1e6,
                cost.serialize.as_secs_f64() * 1e6,
                per_kb(cost)
            ),
            target: "—".to_owned(),
            command: command("requests"),
        })
        .collect();
    rows.push(Row {
        figure: "request cost per KB, 100 turns ÷ 10 turns".to_owned(),
        measured: format!("{:.2}×", per_kb(&costs[2]) / per_kb(&costs[1])),
        target: "≈ 1× (linear in the conversation)".to_owned(),
        command: command("requests"),
    });
    rows
}
