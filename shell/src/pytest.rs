//! How pytest's summary line is read. The runner that starts pytest (and every other command of
//! the repository) is [`crate::runner`].

use serde::{Deserialize, Serialize};

pub use crate::runner::TestRunner;

/// The counts of pytest's final summary line (`1 failed, 3 passed in 0.04s`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub skipped: u32,
}

impl Summary {
    /// Reads the last summary line of pytest's output; `None` when there is none (pytest did
    /// not get as far as running tests, e.g. it is not installed).
    pub fn parse(output: &str) -> Option<Summary> {
        output.lines().rev().find_map(Summary::parse_line)
    }

    fn parse_line(line: &str) -> Option<Summary> {
        let line = line.trim().trim_matches('=').trim();
        if line == "no tests ran" || line.starts_with("no tests ran in ") {
            return Some(Summary::default());
        }
        let counts = line.split(" in ").next()?;
        let mut summary = Summary::default();
        let mut matched = false;
        for part in counts.split(", ") {
            let mut words = part.split_whitespace();
            let (Some(number), Some(word), None) = (words.next(), words.next(), words.next())
            else {
                return None;
            };
            let number: u32 = number.parse().ok()?;
            match word {
                "passed" => summary.passed = number,
                "failed" => summary.failed = number,
                "error" | "errors" => summary.errors = number,
                "skipped" => summary.skipped = number,
                "warning" | "warnings" | "deselected" | "xfailed" | "xpassed" | "rerun" => {}
                _ => return None,
            }
            matched = true;
        }
        matched.then_some(summary)
    }

    /// `1 failed · 3 passed`, naming only the non-zero counts.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.failed, "failed"),
            (self.errors, "errors"),
            (self.passed, "passed"),
            (self.skipped, "skipped"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| format!("{count} {word}"))
        .collect();
        if parts.is_empty() {
            "no tests ran".to_owned()
        } else {
            parts.join(" · ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Summary;

    #[test]
    fn reads_the_final_summary_line() {
        let output = "..F.\n=== FAILURES ===\nFAILED tests/x.py::t - AssertionError\n1 failed, 3 passed in 0.04s\n";
        assert_eq!(
            Summary::parse(output),
            Some(Summary {
                passed: 3,
                failed: 1,
                errors: 0,
                skipped: 0
            })
        );
        assert_eq!(
            Summary::parse("==== 2 passed, 1 skipped, 1 error, 3 warnings in 1.2s ===="),
            Some(Summary {
                passed: 2,
                failed: 0,
                errors: 1,
                skipped: 1
            })
        );
        assert_eq!(
            Summary::parse("4 passed in 0.01s"),
            Some(Summary {
                passed: 4,
                ..Summary::default()
            })
        );
        assert_eq!(
            Summary::parse("/usr/bin/python3: No module named pytest"),
            None
        );
    }

    #[test]
    fn describes_only_what_happened() {
        let summary = Summary {
            passed: 3,
            failed: 1,
            errors: 0,
            skipped: 0,
        };
        assert_eq!(summary.describe(), "1 failed · 3 passed");
    }
}
