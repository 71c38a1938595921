//! Core throughput: a synthetic session of 1 M streamed lines through `Session::handle`, against
//! a bare `serde_json::from_slice` of the same lines into an owned chunk type, handed each line
//! owned and freeing it after its parse, as the session is handed and frees its lines.
//!
//! Each turn (1,000 lines, under a millisecond) is timed on its own, and each side's time is the
//! sum over the turns of each turn's best of [`ROUNDS`]: a turn that the machine's other work
//! interrupted in one round is taken from another. Whole runs of a second, best of three, moved
//! the ratio between 1.06× and 1.65× on a shared 2-core machine at load 19.
//!
//! A third side parses borrowed lines and frees none (the bench's first baseline): what freeing
//! the lines adds (glibc's slow path for a ~150-byte block with no recent allocation of its size
//! to reuse it) is shown apart, and the core is held to the same target against it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mend_core::{Action, Input, Millis, ToolOutcome};
use serde::Deserialize;
use serde_json::json;

use super::synthetic::{arrived, config, opened, turn, Rng};
use super::{command, Row};

const TURNS: u64 = 1_000;
const LINES_PER_TURN: usize = 1_000;
const ROUNDS: usize = 5;

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

    // Alternate the two, keeping each turn's best: the machine is shared and noisy.
    let mut bare = vec![Duration::MAX; turns.len()];
    let mut core = vec![Duration::MAX; turns.len()];
    let mut bare_freeing = vec![Duration::MAX; turns.len()];
    for _ in 0..ROUNDS {
        bare_parse(&turns, &mut bare);
        bare_parse_freeing(turns.clone(), &mut bare_freeing);
        // The session consumes its lines, as it does in the shell; the copy is made untimed.
        session_run(turns.clone(), &mut core);
    }
    let bare: Duration = bare.iter().sum();
    let core: Duration = core.iter().sum();
    let bare_freeing: Duration = bare_freeing.iter().sum();

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
        // The fair comparison: the session is handed each line owned and frees it, so the bare
        // side is handed the same owned lines and frees each after parsing it into owned fields
        // (`BareChunk`: four strings a line, freed at once).
        Row {
            figure: "core time ÷ a bare `serde_json::from_slice` of the same lines into an owned chunk, each line handed owned and freed after its parse as the session frees it".to_owned(),
            measured: format!(
                "{:.2}× (bare {:.0} ms, core {:.0} ms)",
                core.as_secs_f64() / bare_freeing.as_secs_f64(),
                bare_freeing.as_secs_f64() * 1e3,
                core.as_secs_f64() * 1e3
            ),
            target: "≤ 1.2×".to_owned(),
            command: command("core"),
        },
        Row {
            figure: "core time ÷ the same bare parse of borrowed lines that it never frees (the original baseline: the core pays the lines' freeing, this parse does not)".to_owned(),
            measured: format!(
                "{:.2}× (bare {:.0} ms)",
                core.as_secs_f64() / bare.as_secs_f64(),
                bare.as_secs_f64() * 1e3
            ),
            target: "≤ 1.2×".to_owned(),
            command: command("core"),
        },
    ]
}

/// Parses every turn's lines, keeping in `best` each turn's best time so far.
fn bare_parse(turns: &[Vec<Vec<u8>>], best: &mut [Duration]) {
    for (turn, best) in turns.iter().zip(best) {
        let started = Instant::now();
        for line in turn {
            black_box(serde_json::from_slice::<BareChunk>(line).unwrap());
        }
        *best = (*best).min(started.elapsed());
    }
}

/// Parses every turn's owned lines and frees each after its parse, as the session does with the
/// lines the reader hands it: freeing a line of ~150 bytes is glibc's slower path (no recent
/// allocation of that size to reuse it), and the plain bare parse never pays it.
fn bare_parse_freeing(turns: Vec<Vec<Vec<u8>>>, best: &mut [Duration]) {
    for (turn, best) in turns.into_iter().zip(best) {
        let started = Instant::now();
        for line in turn {
            black_box(serde_json::from_slice::<BareChunk>(&line).unwrap());
            drop(line);
        }
        *best = (*best).min(started.elapsed());
    }
}

/// One session through every turn, keeping in `best` each turn's best time so far (the session's
/// opening counts with the first turn).
fn session_run(turns: Vec<Vec<Vec<u8>>>, best: &mut [Duration]) {
    let config = config(TURNS as u32);
    let mut started = Instant::now();
    let (mut session, _) = opened(config);
    let (mut stops, mut requests) = (0, 1);
    for (turn, best) in turns.into_iter().zip(best) {
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
        *best = (*best).min(started.elapsed());
        started = Instant::now();
    }
    assert_eq!(stops, 1, "the synthetic session ends once");
    assert_eq!(
        requests, TURNS,
        "the session stays in the loop for every turn"
    );
    // Dropping the session (a conversation of 2,000 messages) is not the core's per-line cost.
    drop(session);
}
