//! Core throughput: a synthetic session of 1 M streamed lines through `Session::handle`, against
//! a bare `serde_json::from_slice` of the same lines into an owned chunk type.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mend_core::{Action, Input, Millis, ToolOutcome};
use serde::Deserialize;
use serde_json::json;

use super::synthetic::{arrived, config, opened, turn, Rng};
use super::{command, Row};

const TURNS: u64 = 1_000;
const LINES_PER_TURN: usize = 1_000;
const ROUNDS: usize = 3;

/// What a client that only parses would decode each line into.
#[derive(Deserialize)]
#[allow(dead_code)]
struct BareChunk {
    model: String,
    created_at: String,
    message: BareMessage,
    done: bool,
    done_reason: Option<String>,
    total_duration: Option<u64>,
    prompt_eval_count: Option<u64>,
    eval_count: Option<u64>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BareMessage {
    role: String,
    content: String,
    thinking: Option<String>,
    tool_calls: Option<Vec<serde_json::Value>>,
}

pub fn measure() -> Vec<Row> {
    let mut rng = Rng::new(7);
    let turns: Vec<Vec<Vec<u8>>> = (0..TURNS)
        .map(|n| turn(&mut rng, n, LINES_PER_TURN, n + 1 < TURNS))
        .collect();
    let lines: usize = turns.iter().map(Vec::len).sum();
    let bytes: usize = turns.iter().flatten().map(Vec::len).sum();

    // Alternate the two and keep each one's best run: the machine is shared and noisy.
    let mut bare = Duration::MAX;
    let mut core = Duration::MAX;
    for _ in 0..ROUNDS {
        bare = bare.min(bare_parse(&turns));
        // The session consumes its lines, as it does in the shell; the copy is made untimed.
        core = core.min(session_run(turns.clone()));
    }

    let seconds = core.as_secs_f64();
    vec![
        Row {
            figure: format!(
                "core throughput, {lines} lines ({:.0} MB) in {TURNS} turns",
                bytes as f64 / 1e6
            ),
            measured: format!(
                "{:.2} M lines/s, {:.0} MB/s",
                lines as f64 / seconds / 1e6,
                bytes as f64 / seconds / 1e6
            ),
            target: "—".to_owned(),
            command: command("core"),
        },
        Row {
            figure: "core time ÷ bare `serde_json::from_slice` of the same lines".to_owned(),
            measured: format!("{:.2}×", core.as_secs_f64() / bare.as_secs_f64()),
            target: "≤ 1.2×".to_owned(),
            command: command("core"),
        },
    ]
}

fn bare_parse(turns: &[Vec<Vec<u8>>]) -> Duration {
    let started = Instant::now();
    for line in turns.iter().flatten() {
        black_box(serde_json::from_slice::<BareChunk>(line).unwrap());
    }
    started.elapsed()
}

fn session_run(turns: Vec<Vec<Vec<u8>>>) -> Duration {
    let config = config(TURNS as u32);
    let started = Instant::now();
    let (mut session, _) = opened(config);
    let (mut stops, mut requests) = (0, 1);
    for turn in turns {
        for line in turn {
            session.handle(Millis(0), arrived(line));
            // Actions are taken one at a time, as the driver takes them: collecting each line's
            // into a Vec of its own would time an allocation the driver never makes.
            while let Some(action) = session.poll_action() {
                match action {
                    Action::DispatchTool { call_id, .. } => {
                        let outcome = ToolOutcome::Success {
                            value: json!({"exit_code": 0, "output": "4 passed"}),
                        };
                        session.handle(Millis(0), Input::ToolFinished { call_id, outcome });
                    }
                    Action::SendRequest { .. } => requests += 1,
                    Action::Stop(_) => stops += 1,
                    other => {
                        black_box(other);
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    assert_eq!(stops, 1, "the synthetic session ends once");
    assert_eq!(
        requests, TURNS,
        "the session stays in the loop for every turn"
    );
    // Dropping the session (a conversation of 2,000 messages) is not the core's per-line cost.
    drop(session);
    elapsed
}
