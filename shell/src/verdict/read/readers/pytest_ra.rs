//! pytest's short test summary with `-rA`, for a pytest mend's witness cannot hear (an old one,
//! or a wrapper that drops the environment): one line per test,
//! `PASSED tests/test_io.py::test_read[a b]`, `FAILED tests/test_io.py::test_x - assert 1 == 2`,
//! `ERROR tests/test_broken.py - ImportError: …`, `XFAIL tests/test_io.py::test_later - reason`.
//!
//! The id is the rest of the line, up to the ` - ` that starts pytest's message (one inside a
//! parameter's brackets is part of the id), so a parametrized id with spaces stays whole.
//! `SKIPPED [2] tests/test_io.py:24: reason` counts skips by place, not tests: it names no test.
//! `XPASS` is not one of the outcomes SWE-bench's harness reads, and is left out as it leaves it
//! out: a test that unexpectedly passed counts as not run.

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::Reading;

const STATUSES: [(&str, CaseOutcome); 5] = [
    ("PASSED", CaseOutcome::Passed),
    ("FAILED", CaseOutcome::Failed),
    ("ERROR", CaseOutcome::Error),
    ("SKIPPED", CaseOutcome::Skipped),
    ("XFAIL", CaseOutcome::Xfailed),
];

pub(super) fn read(output: &str) -> Reading {
    Reading {
        cases: output.lines().filter_map(result_line).collect(),
        totals: None,
    }
}

/// `STATUS ID[ - MESSAGE]`, the status at the start of the line.
fn result_line(line: &str) -> Option<(String, CaseOutcome)> {
    let line = line.trim_end();
    let (word, rest) = line.split_once(char::is_whitespace)?;
    let outcome = STATUSES
        .iter()
        .find(|(status, _)| *status == word)
        .map(|(_, outcome)| *outcome)?;
    let id = without_message(rest.trim_start()).trim_end();
    if id.is_empty() || is_skip_count(outcome, id) {
        return None;
    }
    Some((id.to_owned(), outcome))
}

/// The id before ` - MESSAGE`, a ` - ` inside the id's brackets kept.
fn without_message(rest: &str) -> &str {
    let mut depth = 0usize;
    for (at, character) in rest.char_indices() {
        match character {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 && rest[at..].starts_with(" - ") => return &rest[..at],
            _ => {}
        }
    }
    rest
}

/// `SKIPPED [3] file:line: reason`: pytest's count of skips at one place.
fn is_skip_count(outcome: CaseOutcome, id: &str) -> bool {
    outcome == CaseOutcome::Skipped
        && id
            .split_whitespace()
            .next()
            .and_then(|first| first.strip_prefix('['))
            .and_then(|first| first.strip_suffix(']'))
            .is_some_and(|count| !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::verdict::read::outcome::CaseOutcome::{Error, Failed, Passed, Skipped, Xfailed};
    use crate::verdict::read::readers::Reading;

    /// The end of what pytest 7.4 prints with `-rA` (passes with captured output, a failure,
    /// an error in setup, skips, an xfail and an xpass).
    const PYTEST_RA: &str = include_str!("../../../../../fixtures/readers/pytest-ra.log");

    #[test]
    fn reads_the_short_summary_with_whole_ids() {
        let cases: Vec<(&str, _)> = vec![
            ("looks like a result but is what the test printed", Passed),
            ("tests/test_io.py::test_write", Passed),
            ("tests/test_io.py::test_read[plain]", Passed),
            ("tests/test_io.py::TestParse::test_sub", Passed),
            ("tests/test_io.py::test_later", Xfailed),
            ("tests/test_io.py::test_needs_db", Error),
            ("tests/test_io.py::test_read[a b - c]", Failed),
        ];
        assert_eq!(
            read(PYTEST_RA),
            Reading {
                cases: cases
                    .into_iter()
                    .map(|(id, outcome)| (id.to_owned(), outcome))
                    .collect(),
                totals: None,
            }
        );
    }

    #[test]
    fn a_collection_error_is_named_by_its_file_and_a_skip_count_is_no_test() {
        let output = "ERROR tests/test_broken.py - ModuleNotFoundError: No module named 'yaml'\nERROR tests/test_other.py\nSKIPPED [12] tests/test_a.py:3: slow\nSKIPPED tests/test_a.py::test_b\nPASSEDfoo bar\n";
        assert_eq!(
            read(output).cases,
            [
                ("tests/test_broken.py".to_owned(), Error),
                ("tests/test_other.py".to_owned(), Error),
                ("tests/test_a.py::test_b".to_owned(), Skipped),
            ]
        );
    }
}
