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
    pub(super) fn new(label: String, total: u64) -> Progress {
        Progress {
            label,
            total,
            done: 0,
            started: Instant::now(),
            drawn: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    pub(super) fn add(&mut self, bytes: u64) {
        self.done += bytes;
        if self.terminal && self.drawn.is_none_or(|at| at.elapsed() >= REDRAW) {
            self.drawn = Some(Instant::now());
            eprint!("\r{}", self.line());
            let _ = std::io::stderr().flush();
        }
    }

    pub(super) fn line(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
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
            eprintln!("\r{}", self.line());
        }
    }
}
