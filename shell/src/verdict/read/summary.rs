//! A test run's counts. The independent check takes them from what mend's witness heard under
//! pytest, or from a JUnit report ([`crate::verdict::read::junit`]); pytest's printed summary
//! line is read only where no report exists: a
//! `run_tests` result, shown to a person or compared on replay.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Terminal colour and style sequences (`ESC [ … m`), which `--color=yes` puts inside the line.
static ANSI_ESCAPE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new("\x1b\\[[0-9;?]*[A-Za-z]").ok());

/// How many tests passed, failed, errored, were skipped, and failed as expected (`xfail`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub skipped: u32,
    /// Tests marked to fail that failed: neither a pass nor a skip (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub xfailed: u32,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// `text` without terminal colour sequences.
pub(crate) fn without_colours(text: &str) -> String {
    match ANSI_ESCAPE.as_ref() {
        Some(escape) => escape.replace_all(text, "").into_owned(),
        None => text.to_owned(),
    }
}

impl Summary {
    /// Reads the last summary line of pytest's output (`1 failed, 3 passed in 0.04s`), colours
    /// or not; `None` when there is none.
    pub fn parse(output: &str) -> Option<Summary> {
        without_colours(output)
            .lines()
            .rev()
            .find_map(Summary::parse_line)
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
            let (Some(number), Some(mut word)) = (words.next(), words.next()) else {
                return None;
            };
            let number: u32 = number.parse().ok()?;
            // pytest ≥ 9 adds `2324 subtests passed` (unittest's subTest, pytest's subtests
            // fixture). The test that holds them is counted on its own (a failed subtest fails
            // it), as the verdict reads it from the witness, so the subtests are left out.
            let subtests = word == "subtests";
            if subtests {
                word = words.next()?;
            }
            if words.next().is_some() {
                return None;
            }
            if subtests {
                if !["passed", "failed", "skipped", "xfailed", "xpassed"].contains(&word) {
                    return None;
                }
                matched = true;
                continue;
            }
            match word {
                "passed" => summary.passed = number,
                "failed" => summary.failed = number,
                "error" | "errors" => summary.errors = number,
                "skipped" => summary.skipped = number,
                "xfailed" => summary.xfailed = number,
                "warning" | "warnings" | "deselected" | "xpassed" | "rerun" => {}
                _ => return None,
            }
            matched = true;
        }
        matched.then_some(summary)
    }

    /// How many tests ran to a result (skipped ones did not).
    pub fn ran(&self) -> u32 {
        self.passed + self.failed + self.errors
    }

    /// `1 failed · 3 passed`, naming only the non-zero counts.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.failed, "failed"),
            (self.errors, "errors"),
            (self.passed, "passed"),
            (self.skipped, "skipped"),
            (self.xfailed, "xfailed"),
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
        let parsed = [
            Summary::parse(output),
            Summary::parse("==== 2 passed, 1 skipped, 1 error, 3 warnings in 1.2s ===="),
            Summary::parse("4 passed in 0.01s"),
            Summary::parse("/usr/bin/python3: No module named pytest"),
        ];
        assert_eq!(
            parsed,
            [
                Some(Summary {
                    passed: 3,
                    failed: 1,
                    errors: 0,
                    skipped: 0,
                    xfailed: 0,
                }),
                Some(Summary {
                    passed: 2,
                    failed: 0,
                    errors: 1,
                    skipped: 1,
                    xfailed: 0,
                }),
                Some(Summary {
                    passed: 4,
                    ..Summary::default()
                }),
                None,
            ]
        );
    }

    #[test]
    fn leaves_out_subtests() {
        // What pytest 9 prints for unittest's subTest: more-itertools' suite, and one with a
        // failing subtest (its test is the `1 failed`).
        let parsed = [
            Summary::parse("626 passed, 1 skipped, 5 warnings, 2324 subtests passed in 5.31s"),
            Summary::parse("1 failed, 2 passed, 2 subtests passed in 0.04s"),
            Summary::parse("1 failed, 1 passed, 1 subtests failed, 2 subtests passed in 0.04s"),
            Summary::parse("3 passed, 2 subtests exploded in 0.04s"),
        ];
        assert_eq!(
            parsed,
            [
                Some(Summary {
                    passed: 626,
                    skipped: 1,
                    ..Summary::default()
                }),
                Some(Summary {
                    passed: 2,
                    failed: 1,
                    ..Summary::default()
                }),
                Some(Summary {
                    passed: 1,
                    failed: 1,
                    ..Summary::default()
                }),
                None,
            ]
        );
    }

    #[test]
    fn reads_a_coloured_summary_line() {
        // What pytest 8 prints with `addopts = "--color=yes"`.
        let output = "\x1b[31mFAILED\x1b[0m tests/test_a.py::\x1b[1mtest_fail\x1b[0m - assert 1 == 2\n\x1b[31m\x1b[31m\x1b[1m2 failed\x1b[0m, \x1b[32m3 passed\x1b[0m\x1b[31m in 0.04s\x1b[0m\x1b[0m\n";
        assert_eq!(
            Summary::parse(output),
            Some(Summary {
                passed: 3,
                failed: 2,
                errors: 0,
                skipped: 0,
                xfailed: 0,
            })
        );
    }

    #[test]
    fn describes_only_what_happened() {
        let summary = Summary {
            passed: 3,
            failed: 1,
            errors: 0,
            skipped: 0,
            xfailed: 2,
        };
        assert_eq!(summary.describe(), "1 failed · 3 passed · 2 xfailed");
    }
}
