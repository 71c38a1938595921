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

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::Reading;

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
    Reading {
        cases,
        totals: None,
    }
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

    #[test]
    fn a_test_cut_before_its_outcome_did_not_run() {
        let cut = "running 2 tests\ntest a ... ok\ntest b ... thread 'b' has overflowed its stack\nfatal runtime error: stack overflow\n";
        assert_eq!(read(cut).cases, pairs(&[("a", Passed)]));
    }
}
