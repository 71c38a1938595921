//! The progress bar of `mend eval` on a terminal: attempts done, passes so far, and the time
//! left at the current rate. Off a terminal it stays silent (the results file is the log).

use std::io::{IsTerminal, Write};
use std::time::Instant;

const WIDTH: usize = 24;

pub struct Progress {
    total: usize,
    done: usize,
    passed: usize,
    started: Instant,
    terminal: bool,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
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

    pub fn finished(&mut self, passed: bool) {
        self.done += 1;
        self.passed += usize::from(passed);
        self.draw();
    }

    pub fn done(&self) -> usize {
        self.done
    }

    pub fn passed(&self) -> usize {
        self.passed
    }

    /// The bar's text, e.g. `[######------] 3/8 attempts, 2 passed, ~1m20s left`.
    pub fn line(&self, elapsed_secs: u64) -> String {
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
    pub fn clear(&self) {
        if self.terminal {
            eprint!("\r\x1b[K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn the_bar_shows_attempts_passes_and_time_left_at_the_current_rate() {
        let mut progress = Progress::new(8);
        progress.finished(true);
        progress.finished(false);
        assert_eq!(
            progress.line(30),
            "[######------------------] 2/8 attempts, 1 passed, ~1m30s left"
        );
    }
}
