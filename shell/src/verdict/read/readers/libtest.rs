//! libtest, the harness of `cargo test` on stable Rust: every test binary (unit tests, each
//! file of `tests/`, the doc-tests) prints `running N tests`, then one line per test,
//! `test path::name ... ok`, `… FAILED`, `… ignored` (`ignored, REASON` since Rust 1.61),
//! `test path::name - should panic ... ok`, `test src/lib.rs - Item::method (line 12) ... ok`
//! for a doc-test, then `test result: …`. A test run with `--nocapture` may print its output
//! between ` ... ` and the outcome, which then stands on a later line of its own.
//!
//! The id is the test's name as `cargo test NAME` takes it (the ` - should panic` libtest adds
//! is left out); a test of the same name in two binaries keeps its worse outcome. A binary that
//! did not build or crashed prints no line for its tests: they did not run.
//!
//! `cargo test -q` prints a character per test instead (`..F.i`): then the counts come from the
//! `test result:` lines and the failing tests by name from the `failures:` lists; the passing
//! ones have no id.

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::Reading;
use crate::verdict::read::summary::Summary;

const SEPARATOR: &str = " ... ";

pub(super) fn read(output: &str) -> Reading {
    let mut cases = Vec::new();
    // A test whose outcome is still to come (its output stands between).
    let mut pending: Option<String> = None;
    for line in output.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("test ") {
            if let Some((name, after)) = rest.split_once(SEPARATOR) {
                let name = name.strip_suffix(" - should panic").unwrap_or(name);
                match outcome(after) {
                    Some(outcome) => {
                        cases.push((name.to_owned(), outcome));
                        pending = None;
                    }
                    None => pending = Some(name.to_owned()),
                }
                continue;
            }
        }
        if let Some(outcome) = outcome(line) {
            if let Some(name) = pending.take() {
                cases.push((name, outcome));
            }
        }
    }
    if cases.is_empty() {
        return quiet(output);
    }
    Reading {
        cases,
        totals: None,
    }
}

/// What `cargo test -q` prints: each binary's `test result: ok. 4 passed; 1 failed; 1 ignored;
/// …` summed, and the names under its second `failures:` heading (the first holds their output).
fn quiet(output: &str) -> Reading {
    let mut totals: Option<Summary> = None;
    let mut cases = Vec::new();
    let mut in_list = false;
    for line in output.lines() {
        if let Some(result) = line.trim().strip_prefix("test result: ") {
            let sum = totals.get_or_insert_with(Summary::default);
            for part in result.split(';') {
                let mut words = part.split_whitespace().rev();
                let (Some(kind), Some(count)) = (words.next(), words.next()) else {
                    continue;
                };
                let count: u32 = count.parse().unwrap_or(0);
                match kind {
                    "passed" => sum.passed += count,
                    "failed" => sum.failed += count,
                    "ignored" => sum.skipped += count,
                    _ => {}
                }
            }
            in_list = false;
            continue;
        }
        if line.trim_end() == "failures:" {
            in_list = true;
            continue;
        }
        // The list's names are indented by four spaces; the first `failures:` block's output
        // (`---- name stdout ----`, the panic) is not.
        match line.strip_prefix("    ") {
            Some(name) if in_list && !name.trim().is_empty() && !name.contains(' ') => {
                cases.push((name.to_owned(), CaseOutcome::Failed));
            }
            _ if in_list && !line.trim().is_empty() => in_list = false,
            _ => {}
        }
    }
    Reading { cases, totals }
}

fn outcome(word: &str) -> Option<CaseOutcome> {
    let word = word.trim();
    if word == "ok" || word.starts_with("bench:") {
        Some(CaseOutcome::Passed)
    } else if word == "FAILED" {
        Some(CaseOutcome::Failed)
    } else if word == "ignored" || word.starts_with("ignored, ") {
        Some(CaseOutcome::Skipped)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::verdict::read::outcome::CaseOutcome::{Failed, Passed, Skipped};
    use crate::verdict::read::readers::pairs;

    /// `cargo test` (Rust 1.8x) on a crate with unit tests, an integration test file that fails
    /// and doc-tests.
    const CARGO_TEST: &str = include_str!("../../../../../fixtures/readers/cargo-test.log");

    #[test]
    fn reads_every_binary_and_the_doc_tests() {
        assert_eq!(
            read(CARGO_TEST).cases,
            pairs(&[
                ("tests::dashes", Passed),
                ("tests::empty", Passed),
                ("tests::network", Skipped),
                ("tests::trims", Failed),
                ("tests::trims", Passed),
                ("prints_usage", Passed),
                ("src/lib.rs - slugify (line 7)", Passed),
                ("src/lib.rs - Slug::new (line 21)", Skipped),
            ])
        );
    }

    /// `cargo test -q` (as cargo 1.95 prints it: a failure also named as it happens), a
    /// character per test, then the failures by name and the totals.
    #[test]
    fn quiet_output_gives_the_failing_tests_and_the_totals() {
        let quiet = "\nrunning 4 tests\ntests::trims --- FAILED\n..i\nfailures:\n\n---- tests::trims stdout ----\n\
            thread 'tests::trims' (2277) panicked at src/lib.rs:30:9:\nassertion failed: trimmed\n\n\
            failures:\n    tests::trims\n\ntest result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n\
            \nrunning 2 tests\n..\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n";
        assert_eq!(
            read(quiet),
            crate::verdict::read::readers::Reading {
                cases: pairs(&[("tests::trims", Failed)]),
                totals: Some(crate::verdict::read::summary::Summary {
                    passed: 4,
                    failed: 1,
                    errors: 0,
                    skipped: 1,
                    xfailed: 0,
                }),
            }
        );
    }

    #[test]
    fn a_test_cut_before_its_outcome_did_not_run() {
        let cut = "running 2 tests\ntest a ... ok\ntest b ... thread 'b' has overflowed its stack\nfatal runtime error: stack overflow\n";
        assert_eq!(read(cut).cases, pairs(&[("a", Passed)]));
    }
}
