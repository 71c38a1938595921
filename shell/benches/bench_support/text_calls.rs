//! What reading calls written as text costs a turn that has none: the same final turn of plain
//! text (1,000 lines) through fresh sessions with `text_tool_calls` on and off. One pass over the
//! turn's text finds every family's signs (and the repair decision's); plain prose and prose with
//! a `<` hold none, and pay that pass only. The sessions offer mend's own seven tools (names
//! and keys), as a run does. Measured with no family named (every
//! reader in the table's order) and with the model's family named (Gemma 4's, read first).

use std::time::Duration;

use serde_json::json;

use super::synthetic::{config_with_mend_tools, time_text_turn, turn, Rng};
use super::{command, Row};

/// Sessions timed each way, one at a time, on and off alternating.
const SESSIONS: usize = 2_000;
const LINES: usize = 1_000;
/// The sample kept of each side: the lower decile. The difference sought is about 1 % of a
/// session, less than a shared machine's noise; a session (under a millisecond) timed alone is
/// mostly left alone by the scheduler, and the decile passes over those that were not without
/// resting on one lucky run.
const DECILE: usize = SESSIONS / 10;

pub fn measure() -> Vec<Row> {
    let mut rng = Rng::new(11);
    let plain = turn(&mut rng, 0, LINES, false);
    let mut with_angle = plain.clone();
    let angle = json!({"model": "gemma4:e2b", "created_at": "2026-11-30T09:00:00.123456789Z",
                       "message": {"role": "assistant", "content": " if a < b and b > c:"}, "done": false});
    with_angle.insert(LINES / 2, angle.to_string().into_bytes());
    let cases = [
        ("plain text", &plain, None),
        ("text with a `<`", &with_angle, None),
        ("text with a `<`", &with_angle, Some("gemma4")),
    ];
    cases
        .into_iter()
        .flat_map(|(kind, lines, family)| {
            let (on, off) = both(lines, family);
            let kind = match family {
                Some(family) => format!("{kind}, the model's family {family} named"),
                None => kind.to_owned(),
            };
            let kind = kind.as_str();
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

/// A session's time with text calls read and without: each side's lower decile of
/// [`SESSIONS`] sessions, the two sides interleaved (and which goes first alternating) so that
/// the machine's changing load falls on both alike.
fn both(lines: &[Vec<u8>], family: Option<&str>) -> (Duration, Duration) {
    let (mut on, mut off) = (Vec::with_capacity(SESSIONS), Vec::with_capacity(SESSIONS));
    for index in 0..SESSIONS {
        let first = index % 2 == 0;
        for text_tool_calls in [first, !first] {
            let time = session(lines, text_tool_calls, family);
            if text_tool_calls {
                on.push(time);
            } else {
                off.push(time);
            }
        }
    }
    on.sort_unstable();
    off.sort_unstable();
    (on[DECILE], off[DECILE])
}

/// The readers of every family and the repair decision, on a turn without calls, against the
/// core's own time for the turn.
fn share_row(kind: &str, on: Duration, off: Duration) -> Row {
    let (with, without) = (on.as_secs_f64(), off.as_secs_f64());
    // Noise can make the difference negative: nothing measurable was added.
    let added = (with - without).max(0.0);
    Row {
        figure: format!(
            "readers of every family + the repair decision, final turn of {kind} ({LINES} lines, no call), mend's seven tools offered"
        ),
        measured: format!(
            "{:.2} µs a turn ({:.1} µs with − {:.1} µs without, lower decile of {SESSIONS} sessions each) = {:.2} % of the core's time for the turn ({:.2} µs a line)",
            added * 1e6,
            with * 1e6,
            without * 1e6,
            added / without * 100.0,
            without * 1e6 / LINES as f64
        ),
        target: "< 2 % of the core's per-line budget".to_owned(),
        command: command("text_calls"),
    }
}

/// One fresh session through the turn: its start, every line, and its end.
fn session(lines: &[Vec<u8>], text_tool_calls: bool, family: Option<&str>) -> Duration {
    let config = mend_core::Config {
        text_tool_calls,
        text_call_family: family.map(str::to_owned),
        ..config_with_mend_tools(2)
    };
    time_text_turn(config, lines.to_vec())
}
