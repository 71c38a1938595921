//! The progress of `mend eval`: on a terminal a bar (attempts done, passes so far, the time
//! left at the current rate); off a terminal (CI, a Slurm log) one line per finished attempt,
//! so a log shows the run as it goes rather than nothing until the end.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use super::results::Row;

const WIDTH: usize = 24;

pub(crate) struct Progress {
    total: usize,
    done: usize,
    passed: usize,
    started: Instant,
    terminal: bool,
}

impl Progress {
    pub(crate) fn new(total: usize) -> Progress {
        let progress = Progress {
            total,
            done: 0,
            passed: 0,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
        };
        progress.draw();
        progress
    }

    pub(crate) fn finished(&mut self, row: &Row) {
        self.done += 1;
        self.passed += usize::from(row.passed && !row.suspect);
        if self.terminal {
            self.draw();
        } else {
            eprintln!("{}", self.attempt_line(row));
        }
    }

    /// The line a finished attempt gets off a terminal, e.g. `mend: eval: [3/8] sample attempt
    /// 1: FAIL (max_turns, 8 turns, 9120 tokens, 41.2 s; 2 calls fit no tool); 2 passed so far`.
    pub(crate) fn attempt_line(&self, row: &Row) -> String {
        let seconds = (row.model_ms + row.tool_ms + row.test_ms + row.outside_ms.unwrap_or(0))
            as f64
            / 1000.0;
        let mut details = format!(
            "{}, {} turns, {} tokens, {seconds:.1} s",
            row.stop, row.turns, row.tokens
        );
        if row.why.invalid_calls > 0 {
            details.push_str(&format!("; {} call(s) fit no tool", row.why.invalid_calls));
        }
        let verdict = match (&row.why.reason, &row.why.warning) {
            (Some(reason), _) => format!("FAIL: {reason}"),
            _ if row.passed && row.suspect => format!(
                "SUSPECT, not counted as a pass: {}",
                row.why
                    .warning
                    .as_deref()
                    .unwrap_or("the change reaches into the test run")
            ),
            (None, Some(warning)) => format!("PASS, with a warning: {warning}"),
            (None, None) if row.passed => "PASS".to_owned(),
            (None, None) => "FAIL".to_owned(),
        };
        format!(
            "mend: eval: [{}/{}] {} attempt {}: {verdict} ({details}); {} passed so far",
            self.done, self.total, row.task, row.attempt, self.passed
        )
    }

    pub(crate) fn done(&self) -> usize {
        self.done
    }

    pub(crate) fn passed(&self) -> usize {
        self.passed
    }

    /// The bar's text, e.g. `[######------] 3/8 attempts, 2 passed, ~1m20s left`.
    pub(crate) fn line(&self, elapsed_secs: u64) -> String {
        let filled = (self.done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        let left = match self.done {
            0 => "time left unknown".to_owned(),
            done => {
                let secs = elapsed_secs * (self.total - done) as u64 / done as u64;
                format!("~{}m{:02}s left", secs / 60, secs % 60)
            }
        };
        format!(
            "[{}{}] {}/{} attempts, {} passed, {left}",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.done,
            self.total,
            self.passed
        )
    }

    fn draw(&self) {
        if self.terminal {
            let line = self.line(self.started.elapsed().as_secs());
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K{line}");
            let _ = err.flush();
        }
    }

    /// Leaves the terminal's line empty for what follows.
    pub(crate) fn clear(&self) {
        if self.terminal {
            eprint!("\r\x1b[K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;
    use crate::eval::results::Row;
    use crate::eval::why::Why;

    #[test]
    fn off_a_terminal_each_attempt_gets_a_line_saying_how_it_ended() {
        let mut progress = Progress::new(8);
        progress.terminal = false;
        progress.done = 2;
        progress.passed = 1;
        let failed = Row {
            stop: "max_turns".to_owned(),
            turns: 8,
            tokens: 9120,
            model_ms: 40_000,
            tool_ms: 1000,
            test_ms: 200,
            outside_ms: Some(0),
            why: Why {
                invalid_calls: 2,
                reason: Some("1 failed: tests/test_a.py::test_b".to_owned()),
                ..Why::default()
            },
            ..Row::example("sample", 1, false)
        };
        assert_eq!(
            progress.attempt_line(&failed),
            "mend: eval: [2/8] sample attempt 1: FAIL: 1 failed: tests/test_a.py::test_b (max_turns, 8 turns, 9120 tokens, 41.2 s; 2 call(s) fit no tool); 1 passed so far"
        );
    }

    #[test]
    fn a_suspect_pass_is_not_counted_and_a_warned_pass_is() {
        let mut progress = Progress::new(3);
        progress.terminal = false;
        let warned = Row {
            why: Why {
                warning: Some("no protected test file".to_owned()),
                ..Why::default()
            },
            ..Row::example("t", 0, true)
        };
        let suspect = Row {
            suspect: true,
            ..Row::example("t", 1, true)
        };
        let lines = [&warned, &suspect].map(|row| {
            progress.finished(row);
            progress.attempt_line(row)
        });
        assert_eq!(
            (lines.map(|line| line.split(" (").next().unwrap_or_default().to_owned()), progress.passed),
            (
                [
                    "mend: eval: [1/3] t attempt 0: PASS, with a warning: no protected test file".to_owned(),
                    "mend: eval: [2/3] t attempt 1: SUSPECT, not counted as a pass: the change reaches into the test run".to_owned(),
                ],
                1
            )
        );
    }

    #[test]
    fn the_bar_shows_attempts_passes_and_time_left_at_the_current_rate() {
        let mut progress = Progress::new(8);
        progress.finished(&Row::example("a", 0, true));
        progress.finished(&Row::example("a", 1, false));
        assert_eq!(
            progress.line(30),
            "[######------------------] 2/8 attempts, 1 passed, ~1m30s left"
        );
    }
}
