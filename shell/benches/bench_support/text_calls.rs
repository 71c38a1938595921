//! What reading calls written as text costs a turn that has none: the same final turn of plain
//! text (1,000 lines) through fresh sessions with `text_tool_calls` on and off. Plain prose is
//! turned away by one byte scan; prose with a `<` (code talk) is searched for every family's
//! signs, and for an attempted call (the repair decision) too.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mend_core::Millis;
use serde_json::json;

use super::synthetic::{arrived, config, opened, turn, Rng, Step};
use super::{command, Row};

const SESSIONS: usize = 200;
const LINES: usize = 1_000;
const ROUNDS: usize = 5;

pub fn measure() -> Vec<Row> {
    let mut rng = Rng::new(11);
    let plain = turn(&mut rng, 0, LINES, false);
    let mut with_angle = plain.clone();
    let angle = json!({"model": "gemma4:e2b", "created_at": "2026-11-30T09:00:00.123456789Z",
                       "message": {"role": "assistant", "content": " if a < b and b > c:"}, "done": false});
    with_angle.insert(LINES / 2, angle.to_string().into_bytes());
    [("plain text", plain), ("text with a `<`", with_angle)]
        .into_iter()
        .flat_map(|(kind, lines)| {
            // Alternate the two and keep each one's best run: the machine is shared and noisy.
            let (mut on, mut off) = (Duration::MAX, Duration::MAX);
            for _ in 0..ROUNDS {
                on = on.min(sessions(&lines, true));
                off = off.min(sessions(&lines, false));
            }
            [
                Row {
                    figure: format!(
                        "final turn of {kind} ({LINES} lines), text calls read ÷ not read"
                    ),
                    measured: format!("{:.3}×", on.as_secs_f64() / off.as_secs_f64()),
                    target: "≈ 1× (nothing added to turns without calls)".to_owned(),
                    command: command("text_calls"),
                },
                share_row(kind, on, off),
            ]
        })
        .collect()
}

/// The readers of every family and the repair decision, on a turn without calls, against the
/// core's own time for the turn.
fn share_row(kind: &str, on: Duration, off: Duration) -> Row {
    let sessions = SESSIONS as f64;
    let (with, without) = (on.as_secs_f64() / sessions, off.as_secs_f64() / sessions);
    // Noise can make the difference negative: nothing measurable was added.
    let added = (with - without).max(0.0);
    Row {
        figure: format!(
            "readers of every family + the repair decision, final turn of {kind} ({LINES} lines, no call)"
        ),
        measured: format!(
            "{:.2} µs a turn ({:.1} µs with − {:.1} µs without, best of {ROUNDS} rounds) = {:.2} % of the core's time for the turn ({:.2} µs a line)",
            added * 1e6,
            with * 1e6,
            without * 1e6,
            added / without * 100.0,
            without * 1e6 / LINES as f64
        ),
        target: "< 1 % of the core's per-line budget".to_owned(),
        command: command("text_calls"),
    }
}

fn sessions(lines: &[Vec<u8>], text_tool_calls: bool) -> Duration {
    let config = mend_core::Config {
        text_tool_calls,
        ..config(2)
    };
    let inputs: Vec<Vec<Vec<u8>>> = (0..SESSIONS).map(|_| lines.to_vec()).collect();
    let started = Instant::now();
    for lines in inputs {
        let (mut session, _) = opened(config.clone());
        for line in lines {
            black_box(session.step(Millis(0), arrived(line)));
        }
        assert!(
            session.stopped().is_some(),
            "the text turn ends the session"
        );
    }
    started.elapsed()
}
