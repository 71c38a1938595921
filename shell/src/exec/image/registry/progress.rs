//! The pull's progress on a terminal: bytes so far, of how many, and the rate, redrawn in place
//! at most ten times a second. Off a terminal (a log, a Slurm job) it says nothing until done.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const REDRAW: Duration = Duration::from_millis(100);
const MB: f64 = 1_000_000.0;

pub(super) struct Progress {
    label: String,
    total: u64,
    done: u64,
    started: Instant,
    drawn: Option<Instant>,
    terminal: bool,
}

impl Progress {
    pub(crate) fn new(label: String, total: u64) -> Progress {
        Progress::at(
            label,
            total,
            Instant::now(),
            std::io::stderr().is_terminal(),
        )
    }

    fn at(label: String, total: u64, started: Instant, terminal: bool) -> Progress {
        Progress {
            label,
            total,
            done: 0,
            started,
            drawn: None,
            terminal,
        }
    }

    pub(crate) fn add(&mut self, bytes: u64) {
        if let Some(line) = self.advance(bytes, Instant::now()) {
            eprint!("\r{line}");
            let _ = std::io::stderr().flush();
        }
    }

    /// Counts `bytes` arrived at `now`; the line to draw when one is due on a terminal.
    fn advance(&mut self, bytes: u64, now: Instant) -> Option<String> {
        self.done += bytes;
        let due = self
            .drawn
            .is_none_or(|at| now.saturating_duration_since(at) >= REDRAW);
        if !(self.terminal && due) {
            return None;
        }
        self.drawn = Some(now);
        Some(self.line(now))
    }

    fn line(&self, now: Instant) -> String {
        let seconds = now
            .saturating_duration_since(self.started)
            .as_secs_f64()
            .max(1e-3);
        format!(
            "pulling {}: {:.1}/{:.1} MB, {:.1} MB/s ",
            self.label,
            self.done as f64 / MB,
            self.total as f64 / MB,
            self.done as f64 / MB / seconds
        )
    }

    pub(super) fn finish(&self) {
        if self.drawn.is_some() {
            eprintln!("\r{}", self.line(Instant::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_sees_bytes_and_rate_at_most_ten_times_a_second_and_a_pipe_nothing() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut shown = Progress::at("r:1".into(), 40_000_000, start, true);
        let drawn: Vec<Option<String>> = [(0, 1_000_000), (50, 1_000_000), (500, 3_000_000)]
            .into_iter()
            .map(|(ms, bytes)| shown.advance(bytes, at(ms)))
            .collect();
        assert_eq!(
            drawn,
            [
                Some("pulling r:1: 1.0/40.0 MB, 1000.0 MB/s ".to_owned()),
                None,
                Some("pulling r:1: 5.0/40.0 MB, 10.0 MB/s ".to_owned()),
            ]
        );
        let mut piped = Progress::at("r:1".into(), 40_000_000, start, false);
        assert_eq!(piped.advance(1_000_000, at(200)), None);
        assert_eq!(piped.drawn, None);
    }
}
