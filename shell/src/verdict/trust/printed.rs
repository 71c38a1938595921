//! Outcomes read from what a runner printed (`test.report = "django"`, …): the code under test
//! writes to the same stream, so any result line may be its own. It cannot take back the lines
//! the runner printed, only add to them; what an added line gives away is checked here:
//!
//! - a pass printed after a failure of the same test (the readers that keep a test's last line,
//!   as SWE-bench's harness does, would take the forged pass);
//! - more result lines than the runner says it ran: libtest's `running N tests` for each test
//!   binary, closed by one `test result:` line (a second one is printed by the code), and
//!   unittest's `Ran N tests` (django).
//!
//! What passes these checks is still read from a stream the code could write: the verdict says
//! so ([`UNCONFIRMED`]), where a runner mend witnesses over a channel of its own says nothing.

use std::collections::{BTreeMap, BTreeSet};

use crate::task::OutputReader;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::without_colours;
use crate::verdict::trust::untrusted::Untrusted;

/// What the verdict says of a pass read from a runner's output.
pub(crate) const UNCONFIRMED: &str = "unconfirmed: the outcomes were read from the runner's output, which the code under test can print to as well";

/// The first sign in `output` that the code under test printed a result line, as a reason not
/// to trust the run; `None` when the lines agree with each other and with the runner's counts.
pub(crate) fn forged_result(reader: OutputReader, output: &str) -> Option<Untrusted> {
    let output = without_colours(output);
    let reading = reader.reading(&output);
    if reader != OutputReader::Libtest {
        // libtest keeps a test's worse line: a pass printed later changes nothing.
        if let Some(id) = passed_after_failing(&reading.cases) {
            return Some(Untrusted::PrintedOutcome {
                sign: format!("{id} is printed as passed after it failed"),
            });
        }
    }
    let sign = match reader {
        OutputReader::Libtest => libtest_sections(&output),
        OutputReader::Django => unittest_count(&output),
        OutputReader::Sympy | OutputReader::PytestRa => None,
    };
    sign.map(|sign| Untrusted::PrintedOutcome { sign })
}

/// The first test whose last line says it passed where an earlier one said it failed.
fn passed_after_failing(cases: &[(String, CaseOutcome)]) -> Option<&str> {
    let mut failed: BTreeSet<&str> = BTreeSet::new();
    let mut last: BTreeMap<&str, CaseOutcome> = BTreeMap::new();
    for (id, outcome) in cases {
        if outcome.is_failing() {
            failed.insert(id);
        }
        last.insert(id, *outcome);
    }
    cases
        .iter()
        .map(|(id, _)| id.as_str())
        .find(|id| failed.contains(id) && last.get(id) == Some(&CaseOutcome::Passed))
}

/// libtest's binaries, each `running N tests`, at most N result lines, one `test result:`.
fn libtest_sections(output: &str) -> Option<String> {
    // The tests the open section announced, and the result lines seen in it.
    let mut open: Option<(u64, u64)> = None;
    for line in output.lines().map(str::trim) {
        if let Some(count) = running_count(line) {
            open = Some((count, 0));
        } else if line.starts_with("test result: ") {
            if open.take().is_none() {
                return Some(
                    "a `test result:` line stands where no test binary was running".into(),
                );
            }
        } else if line.starts_with("test ") && line.contains(" ... ") {
            let Some((announced, seen)) = open.as_mut() else {
                return Some(format!("`{line}` stands where no test binary was running"));
            };
            *seen += results_in(line);
            if *seen > *announced {
                return Some(format!(
                    "a test binary announced {announced} tests and printed more results (`{line}`)"
                ));
            }
        }
    }
    None
}

/// The result lines in one line of output: its own, and any written into it, as a line the
/// code under test writes past libtest's capture can land between a test's name and its
/// outcome (`test a ... test b ... ok`). A test's own printing after its name is no result.
fn results_in(line: &str) -> u64 {
    let parts: Vec<&str> = line.split(" ... ").collect();
    let inside = parts[1..]
        .iter()
        .take(parts.len().saturating_sub(2))
        .filter(|part| part.starts_with("test "))
        .count();
    1 + u64::try_from(inside).unwrap_or(u64::MAX)
}

/// `running N tests` (`running 1 test`).
fn running_count(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("running ")?;
    let (count, word) = rest.split_once(' ')?;
    matches!(word, "test" | "tests")
        .then(|| count.parse().ok())
        .flatten()
}

/// The outcomes unittest prints after ` ... ` (django's parallel runner prints `OK`).
const UNITTEST_OUTCOMES: [&str; 6] = [
    "ok",
    "OK",
    "FAIL",
    "ERROR",
    "expected failure",
    "unexpected success",
];

/// unittest's `Ran N tests`: no more tests printed with an outcome than it ran.
fn unittest_count(output: &str) -> Option<String> {
    let mut ran: Option<u64> = None;
    let mut printed: BTreeSet<&str> = BTreeSet::new();
    for line in output.lines() {
        // A subtest's line is indented under its test's (Python 3.11 and later).
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        if let Some(count) = line
            .strip_prefix("Ran ")
            .and_then(|rest| rest.split_once(' '))
            .filter(|(_, rest)| rest.starts_with("test"))
            .and_then(|(count, _)| count.parse::<u64>().ok())
        {
            *ran.get_or_insert(0) += count;
        }
        if let Some((id, after)) = line.split_once(" ... ") {
            let after = after.trim();
            // A skip is not counted: Python 3.12.1's `Ran N tests` leaves skipped tests out
            // (earlier and later ones count them), and a skip printed is no pass either way.
            let outcome = after.is_empty() || UNITTEST_OUTCOMES.contains(&after);
            if outcome {
                printed.insert(id);
            }
        }
    }
    let ran = ran?;
    let printed = printed.len() as u64;
    (printed > ran)
        .then(|| format!("unittest ran {ran} tests, but {printed} are printed with an outcome"))
}

#[cfg(test)]
#[path = "printed_tests.rs"]
mod tests;
