//! Test results read from what a runner prints, for the runners that write no JUnit report:
//! django's `runtests.py --verbosity 2`, sympy's `bin/test --verbose`, pytest's `-rA` short
//! summary, and libtest (`cargo test`). Each reader is one function from the output to
//! (id, outcome) pairs, in the order printed; [`OutputReader::read`] turns them into the same
//! [`Report`] the JUnit reader gives, so the contract by id works the same for every runner.
//!
//! Ids are the ones the runner prints, and for django, sympy and `-rA` the ones SWE-bench's
//! harness reads from the same lines (its instances list their tests that way). What the code
//! under test prints can look like a result line: `verdict::trust::printed` looks for the lines
//! it gives itself away by, and the verdict calls what is read here unconfirmed.

mod counts;
mod django;
mod libtest;
mod pytest_ra;
#[cfg(test)]
mod swebench_tests;
mod sympy;

use std::collections::BTreeMap;

use crate::verdict::read::junit::Report;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::{without_colours, Summary};

use crate::task::OutputReader;
pub(crate) use counts::tests_counted;

/// What a reader found in one output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// Each result line as (id, outcome), in the order printed.
    pub cases: Vec<(String, CaseOutcome)>,
    /// The runner's own totals where it prints them and names fewer tests than it ran (sympy
    /// without `--verbose`): the counts then come from here, and the ids are left out.
    pub totals: Option<Summary>,
}

/// A test printed twice: which of its lines counts.
#[derive(Clone, Copy)]
enum Repeat {
    /// The last, as SWE-bench's harness reads these logs (a later line corrects an earlier one).
    Last,
    /// The worse (several test binaries may hold a test of the same path).
    Worse,
}

/// How each reader reads; the readers themselves are named in [`crate::task`], where
/// `test.report` picks one.
impl OutputReader {
    /// The (id, outcome) pairs of `output`, colours removed.
    pub fn reading(self, output: &str) -> Reading {
        let output = without_colours(output);
        match self {
            OutputReader::Django => django::read(&output),
            OutputReader::Sympy => sympy::read(&output),
            OutputReader::PytestRa => pytest_ra::read(&output),
            OutputReader::Libtest => libtest::read(&output),
        }
    }

    fn repeat(self) -> Repeat {
        match self {
            OutputReader::Libtest => Repeat::Worse,
            OutputReader::Django | OutputReader::Sympy | OutputReader::PytestRa => Repeat::Last,
        }
    }

    /// The report of `output`: each test's outcome by id, the counts, the failing tests. `Err`
    /// when the output holds no result line at all (the runner did not run, or was not asked
    /// for what this reader reads).
    pub fn read(self, output: &str) -> Result<Report, NothingRead> {
        let reading = self.reading(output);
        if reading.cases.is_empty() && reading.totals.is_none() {
            return Err(NothingRead { reader: self });
        }
        let mut cases = BTreeMap::new();
        for (id, outcome) in reading.cases {
            match self.repeat() {
                Repeat::Last => {
                    cases.insert(id, outcome);
                }
                Repeat::Worse => {
                    cases
                        .entry(id)
                        .and_modify(|seen: &mut CaseOutcome| *seen = (*seen).max(outcome))
                        .or_insert(outcome);
                }
            }
        }
        Ok(report_of(cases, reading.totals))
    }
}

/// An output with no result line the reader knows: the runner did not run, or was not asked for
/// what the reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NothingRead {
    /// The reader that found nothing.
    pub reader: OutputReader,
}

impl std::fmt::Display for NothingRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reader = self.reader;
        let (name, asks) = (reader.name(), reader.asks());
        write!(
            f,
            "its output has no test result the {name} reader knows (it reads {asks})"
        )
    }
}

impl std::error::Error for NothingRead {}

/// The report of `cases`, counted one per test; `totals`, where given, are the counts instead.
fn report_of(cases: BTreeMap<String, CaseOutcome>, totals: Option<Summary>) -> Report {
    let mut summary = Summary::default();
    for outcome in cases.values() {
        let count = match outcome {
            CaseOutcome::Passed => &mut summary.passed,
            CaseOutcome::Xfailed => &mut summary.xfailed,
            CaseOutcome::Skipped => &mut summary.skipped,
            CaseOutcome::Failed => &mut summary.failed,
            CaseOutcome::Error => &mut summary.errors,
        };
        *count += 1;
    }
    let failing = cases
        .iter()
        .filter(|(_, outcome)| outcome.is_failing())
        .map(|(id, _)| id.clone())
        .collect();
    Report {
        summary: totals.unwrap_or(summary),
        failing,
        cases,
    }
}

/// Each test id with its outcome, owned: what a reader's `cases` hold, for its tests to compare.
#[cfg(test)]
fn pairs(
    list: &[(&str, crate::verdict::read::outcome::CaseOutcome)],
) -> Vec<(String, crate::verdict::read::outcome::CaseOutcome)> {
    list.iter()
        .map(|(id, outcome)| ((*id).to_owned(), *outcome))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{NothingRead, OutputReader};
    use crate::verdict::read::junit::Report;
    use crate::verdict::read::outcome::CaseOutcome::{Failed, Passed};
    use crate::verdict::read::summary::Summary;

    #[test]
    fn an_output_without_result_lines_is_no_report() {
        let readers = [
            OutputReader::Django,
            OutputReader::Sympy,
            OutputReader::PytestRa,
            OutputReader::Libtest,
        ];
        let refused: Vec<bool> = readers
            .iter()
            .map(|reader| reader.read("error: could not compile `x`\n").is_err())
            .collect();
        assert_eq!(refused, [true; 4]);
        let nothing = OutputReader::PytestRa.read("ImportError: no module named x\n");
        assert_eq!(
            nothing,
            Err(NothingRead {
                reader: OutputReader::PytestRa
            })
        );
        assert_eq!(
            nothing.unwrap_err().to_string(),
            "its output has no test result the pytest-ra reader knows (it reads pytest with -rA)"
        );
    }

    #[test]
    fn a_test_printed_twice_keeps_its_last_line_or_for_libtest_its_worse() {
        let ra = "FAILED t.py::a - boom\nPASSED t.py::a\n";
        let libtest = "test a ... FAILED\ntest a ... ok\n";
        let reports = [
            OutputReader::PytestRa.read(ra),
            OutputReader::Libtest.read(libtest),
        ];
        assert_eq!(
            reports,
            [
                Ok(Report {
                    summary: Summary {
                        passed: 1,
                        ..Summary::default()
                    },
                    failing: Vec::new(),
                    cases: [("t.py::a".to_owned(), Passed)].into(),
                }),
                Ok(Report {
                    summary: Summary {
                        failed: 1,
                        ..Summary::default()
                    },
                    failing: vec!["a".to_owned()],
                    cases: [("a".to_owned(), Failed)].into(),
                }),
            ]
        );
    }
}
