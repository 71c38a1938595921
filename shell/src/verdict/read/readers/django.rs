//! django's `tests/runtests.py --verbosity 2` (unittest's verbose runner): one line per test,
//! `test_name (module.Class) ... ok`, `… FAIL`, `… ERROR`, `… skipped 'why'`; since Python 3.11
//! the dotted id is the whole path (`test_name (module.Class.test_name)`), and a test with a
//! docstring prints it on a line of its own, that line ending in the outcome. Output the test
//! printed between ` ... ` and its outcome puts the outcome (`ok`) on a later line. The failures
//! list after the run repeats each failing test as `FAIL: test_name (module.Class)`.
//!
//! The ids are the text before ` ... `, as SWE-bench's harness reads these logs and as its
//! instances list django's tests (a docstring's first line is an id there); `FAIL:` and `ERROR:`
//! headers add the bare test name where the test is printed under no other. An expected failure or unexpected success is no outcome the
//! harness reads, and is left out here too.

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::Reading;

const SEPARATOR: &str = " ... ";
/// unittest prints `ok`; django's parallel runner has printed `OK`, once with two spaces.
const PASSED_ENDINGS: [&str; 3] = [" ... ok", " ... OK", " ...  OK"];

pub(super) fn read(output: &str) -> Reading {
    let mut cases = Vec::new();
    // The test whose outcome a later `ok` line gives.
    let mut started: Option<String> = None;
    for line in output.lines() {
        let line = line.trim();
        if let Some((id, _)) = line.split_once(SEPARATOR) {
            started = Some(id.to_owned());
        }
        cases.extend(results(line));
        if line.starts_with("ok") {
            if let Some(id) = &started {
                cases.push((id.clone(), CaseOutcome::Passed));
            }
        }
    }
    Reading {
        cases: without_aliases(cases, output),
        totals: None,
    }
}

/// The cases less each header's bare name (`test_name`) where the test was printed under its
/// own name (`test_name (module.Class) ... ok`, or that line before a docstring's): the same
/// test twice, and the bare name would be a test that vanished once it passes (the harness keeps
/// both; no instance lists such a name). A bare name printed nowhere else (an error in
/// `setUpClass` under an older Python) stays.
fn without_aliases(cases: Vec<(String, CaseOutcome)>, output: &str) -> Vec<(String, CaseOutcome)> {
    let printed: Vec<&str> = output.lines().filter_map(own_name).collect();
    cases
        .into_iter()
        .filter(|(id, _)| id.contains(' ') || !printed.contains(&id.as_str()))
        .collect()
}

/// The bare name of a line that starts with a test's own name, `test_name (module.Class…)`.
fn own_name(line: &str) -> Option<&str> {
    let (name, rest) = line.trim().split_once(" (")?;
    let (dotted, _) = rest.split_once(')')?;
    let word = |text: &str| !text.is_empty() && !text.contains(char::is_whitespace);
    (word(name) && word(dotted) && !name.ends_with(':')).then_some(name)
}

/// The results one line gives, in the order the harness records them.
fn results(line: &str) -> Vec<(String, CaseOutcome)> {
    let mut found = Vec::new();
    if let Some(id) = PASSED_ENDINGS
        .iter()
        .find_map(|ending| line.strip_suffix(ending))
    {
        found.push((id.to_owned(), CaseOutcome::Passed));
    }
    if let Some((id, _)) = line.split_once(" ... skipped") {
        found.push((id.to_owned(), CaseOutcome::Skipped));
    }
    if line.ends_with(" ... FAIL") {
        found.push((before_first(line, " ... FAIL"), CaseOutcome::Failed));
    }
    if let Some(name) = header_name(line, "FAIL:") {
        found.push((name, CaseOutcome::Failed));
    }
    if line.ends_with(" ... ERROR") {
        found.push((before_first(line, " ... ERROR"), CaseOutcome::Error));
    }
    if let Some(name) = header_name(line, "ERROR:") {
        found.push((name, CaseOutcome::Error));
    }
    found
}

/// The text before the first `ending` of a line that ends in it (a test that printed
/// ` ... FAIL` itself is named up to there, as the harness names it).
fn before_first(line: &str, ending: &str) -> String {
    line.split(ending).next().unwrap_or(line).to_owned()
}

/// `FAIL: test_name (module.Class)`: the second word, the test's bare name.
fn header_name(line: &str, header: &str) -> Option<String> {
    if !line.starts_with(header) {
        return None;
    }
    line.split_whitespace().nth(1).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::verdict::read::outcome::CaseOutcome::{Error, Failed, Passed, Skipped};
    use crate::verdict::read::readers::pairs;

    /// What `./runtests.py --verbosity 2 --parallel 1 utils_tests.test_text` prints with an
    /// older Python: the header, the tests, printed output between a test and its `ok`, the
    /// failures list.
    const DJANGO_OLD: &str = include_str!("../../../../../fixtures/readers/django-old.log");

    #[test]
    fn reads_each_test_and_the_failures_list() {
        assert_eq!(
            read(DJANGO_OLD).cases,
            pairs(&[
                (
                    "test_compress_sequence (utils_tests.test_text.TestUtilsText)",
                    Passed
                ),
                (
                    "test_format_lazy (utils_tests.test_text.TestUtilsText)",
                    Failed
                ),
                (
                    "test_get_text_list (utils_tests.test_text.TestUtilsText)",
                    Error
                ),
                (
                    "test_normalize_newlines (utils_tests.test_text.TestUtilsText)",
                    Skipped
                ),
                (
                    "test_truncate_chars (utils_tests.test_text.TestUtilsText)",
                    Passed
                ),
                ("test_wrap (utils_tests.test_text.TestUtilsText)", Passed),
            ])
        );
    }

    /// Python 3.11 and later: the dotted id names the method, a docstring takes the line that
    /// ends in the outcome, and a failing subtest is a line of its own.
    const DJANGO_NEW: &str = include_str!("../../../../../fixtures/readers/django-new.log");

    #[test]
    fn reads_the_dotted_ids_and_docstring_lines() {
        assert_eq!(
            read(DJANGO_NEW).cases,
            pairs(&[
                (
                    "test_both (admin_views.tests.AdminViewBasicTest.test_both)",
                    Passed
                ),
                ("The change list shows every row.", Passed),
                ("Deleting asks first.", Failed),
                (
                    "test_history (admin_views.tests.AdminViewBasicTest.test_history)",
                    Skipped
                ),
                (
                    "test_lookups (admin_views.tests.AdminViewBasicTest.test_lookups) (field='name')",
                    Failed
                ),
            ])
        );
    }
}
