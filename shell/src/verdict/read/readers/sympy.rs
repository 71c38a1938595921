//! sympy's own runner, `bin/test` (`sympy.testing.runtests`). Each test file is a line
//! `sympy/core/tests/test_basic.py[22] ` followed by one character per test (`.` passed, `F`
//! failed, `E` an exception, `f` failed as expected, `X` passed though expected to fail, `s`
//! `w` `K` skipped, `T` timed out), wrapped at 80 columns, and the file's `[OK]` or `[FAIL]`
//! right-aligned. With `--verbose` each test is a line of its own, `test_name ok` / `F` / `E` /
//! `f` / `X` / `REASON s`, the file's `[OK]` right-aligned on its last test's line. After the
//! run, each failure or exception is a section under a header `____ path.py::test_name ____`
//! (older sympy: one colon), and the totals are a line `tests finished: 24 passed, 1 failed,
//! 2 skipped, 1 expected to fail, 1 exceptions, in 0.53 seconds` (wrapped when long).
//!
//! Ids are read as SWE-bench's harness reads them: the bare test name of a `--verbose` line that
//! ended `ok`, `F` or `E`, and `path.py::name` from a failure header (a failure then counts
//! under both). Two lines the harness misses are read here: the last test of a file, whose line
//! ends in the file's `[OK]`, and a test that printed something, whose `ok` stands on the next
//! line. The other outcomes are no outcome there, and none here (a skipped test is not
//! run). Without `--verbose` the passing tests have no names, so the output gives counts only:
//! its ids would make every fixed test look as if it had vanished.

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::Reading;
use crate::verdict::read::summary::Summary;

const TOTALS: &str = "tests finished:";

pub(super) fn read(output: &str) -> Reading {
    let lines: Vec<&str> = output.lines().collect();
    let mut verbose = Vec::new();
    let mut headers = Vec::new();
    // A test that printed something: its outcome stands on a later line of its own.
    let mut pending: Option<String> = None;
    for line in &lines {
        match verbose_line(line) {
            Some(Verbose::Result(name, outcome)) => {
                verbose.push((name, outcome));
                pending = None;
            }
            Some(Verbose::Started(name)) => pending = Some(name),
            Some(Verbose::Other) => pending = None,
            None => match outcome(line) {
                Some(outcome) if pending.is_some() => {
                    verbose.extend(pending.take().map(|name| (name, outcome)));
                }
                _ => {
                    if let Some(id) = failure_header(line) {
                        headers.push((id, CaseOutcome::Failed));
                    }
                }
            },
        }
    }
    let totals = totals(&lines).or_else(|| counted(&lines));
    if verbose.is_empty() && totals.is_some() {
        // Counts only: the passing tests have no names.
        return Reading {
            cases: Vec::new(),
            totals,
        };
    }
    verbose.extend(headers);
    Reading {
        cases: verbose,
        totals,
    }
}

/// A `--verbose` line of a test.
enum Verbose {
    /// `test_name ok`, `test_name F`, `test_name E`.
    Result(String, CaseOutcome),
    /// `test_name ` and what the test printed: the outcome comes on a later line.
    Started(String),
    /// An outcome this reader leaves out (`s`, `f`, `X`, …).
    Other,
}

/// The line of a test, the file's `[OK]`/`[FAIL]` possibly after it.
fn verbose_line(line: &str) -> Option<Verbose> {
    let line = without_verdict(line.trim());
    if !line.starts_with("test_") {
        return None;
    }
    let (name, rest) = line.split_once(' ').unwrap_or((line, ""));
    let last = rest.rsplit(' ').next().unwrap_or(rest);
    Some(match outcome(last) {
        Some(outcome) if !rest.is_empty() => Verbose::Result(name.to_owned(), outcome),
        _ if ["s", "f", "X", "w", "K", "T"].contains(&last) => Verbose::Other,
        _ => Verbose::Started(name.to_owned()),
    })
}

/// `ok`, `F` or `E`: the outcomes a verbose line ends in that count.
fn outcome(word: &str) -> Option<CaseOutcome> {
    match without_verdict(word.trim()) {
        "ok" => Some(CaseOutcome::Passed),
        "F" => Some(CaseOutcome::Failed),
        "E" => Some(CaseOutcome::Error),
        _ => None,
    }
}

/// `_____ sympy/core/tests/test_expr.py::test_foo _____` (centred in underscores; a name too
/// long for the line has none): `sympy/core/tests/test_expr.py::test_foo`.
fn failure_header(line: &str) -> Option<String> {
    let inner = line.trim_start_matches('_').strip_prefix(' ')?;
    let inner = inner.trim_end_matches('_').strip_suffix(' ')?;
    let (file, name) = inner.split_once(".py:")?;
    let whole = !file.is_empty()
        && !name.trim_start_matches(':').is_empty()
        && !inner.contains(char::is_whitespace);
    whole.then(|| inner.to_owned())
}

/// The `tests finished:` line, joined with its continuation where it wrapped.
fn totals(lines: &[&str]) -> Option<Summary> {
    let start = lines.iter().rposition(|line| line.contains(TOTALS))?;
    let mut text = String::new();
    for line in &lines[start..] {
        text.push_str(line.trim().trim_matches('='));
        text.push(' ');
        if line.contains(" seconds") {
            break;
        }
    }
    let counts = text.split_once(TOTALS)?.1;
    let mut summary = Summary::default();
    for part in counts.split(',') {
        let part = part.trim();
        let (number, what) = part.split_once(' ')?;
        let Ok(number) = number.parse::<u32>() else {
            // `in 0.53 seconds`
            continue;
        };
        match what {
            "passed" => summary.passed += number,
            "failed" => summary.failed += number,
            "skipped" => summary.skipped += number,
            "expected to fail" => summary.xfailed += number,
            "exceptions" => summary.errors += number,
            // Passed though expected to fail: counted with the passes.
            "expected to fail but passed" => summary.passed += number,
            _ => return None,
        }
    }
    Some(summary)
}

/// A run cut before its totals: the result characters of its file lines.
fn counted(lines: &[&str]) -> Option<Summary> {
    let mut summary = Summary::default();
    let mut seen = false;
    let mut in_file = false;
    for line in lines {
        let results = match file_results(line) {
            Some(results) => {
                seen = true;
                in_file = true;
                results
            }
            // A file's characters wrapped onto the next lines.
            None if in_file && !line.trim().is_empty() && is_results(line) => line.trim(),
            None => {
                in_file = false;
                continue;
            }
        };
        for result in results.chars() {
            match result {
                '.' => summary.passed += 1,
                'X' => summary.passed += 1,
                'F' => summary.failed += 1,
                'E' | 'T' => summary.errors += 1,
                'f' => summary.xfailed += 1,
                's' | 'w' | 'K' => summary.skipped += 1,
                _ => {}
            }
        }
    }
    seen.then_some(summary)
}

/// `path.py[N] RESULTS [OK]`: the result characters, the file's verdict left out.
fn file_results(line: &str) -> Option<&str> {
    let (file, rest) = line.split_once(".py[")?;
    let (count, results) = rest.split_once("] ")?;
    let named = !file.is_empty() && !file.contains(char::is_whitespace);
    let counted = !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit());
    let results = results.trim();
    let results = without_verdict(results);
    (named && counted && is_results(results)).then_some(results)
}

fn without_verdict(results: &str) -> &str {
    results
        .strip_suffix("[OK]")
        .or_else(|| results.strip_suffix("[FAIL]"))
        .unwrap_or(results)
        .trim_end()
}

fn is_results(text: &str) -> bool {
    without_verdict(text.trim())
        .chars()
        .all(|result| ".FEfXswKT".contains(result))
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::verdict::read::outcome::CaseOutcome::{Error, Failed, Passed};
    use crate::verdict::read::readers::pairs;
    use crate::verdict::read::readers::Reading;
    use crate::verdict::read::summary::Summary;

    /// `bin/test -C --verbose sympy/core/tests/test_expr.py sympy/core/tests/test_numbers.py`
    /// off a terminal (80 columns), with a failure, an exception, a skip and an expected failure.
    const SYMPY_VERBOSE: &str = include_str!("../../../../../fixtures/readers/sympy-verbose.log");

    #[test]
    fn reads_the_verbose_lines_the_headers_and_the_totals() {
        assert_eq!(
            read(SYMPY_VERBOSE),
            Reading {
                cases: pairs(&[
                    ("test_basic", Passed),
                    ("test_issue_1234", Failed),
                    ("test_round", Passed),
                    ("test_powers", Error),
                    ("test_prints", Passed),
                    ("test_Float", Passed),
                    ("sympy/core/tests/test_numbers.py:test_powers", Failed),
                    ("sympy/core/tests/test_expr.py::test_issue_1234", Failed),
                ]),
                totals: Some(Summary {
                    passed: 4,
                    failed: 1,
                    errors: 1,
                    skipped: 1,
                    xfailed: 1,
                }),
            }
        );
    }

    #[test]
    fn without_verbose_or_totals_the_result_characters_are_counted() {
        // Cut before the totals: the second file's characters wrapped at 80 columns.
        let dots = format!(
            "sympy/core/tests/test_expr.py[4] .F.s                                       [FAIL]\nsympy/core/tests/test_numbers.py[90] {}\n{}E\n",
            ".".repeat(43),
            "f".repeat(46)
        );
        assert_eq!(
            read(&dots),
            Reading {
                cases: Vec::new(),
                totals: Some(Summary {
                    passed: 45,
                    failed: 1,
                    errors: 1,
                    skipped: 1,
                    xfailed: 46,
                }),
            }
        );
    }
}
