//! What one run of the tests came to, as a record keeps it: the exit, the counts, the failing
//! tests and why the run is no pass.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::verdict::read::note::Note;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::summary::Summary;
use crate::verdict::trust::loaded_first::LoadedFirst;
use crate::verdict::trust::untrusted::{Alarm, Untrusted};

/// One run of the task's tests, read and trusted: what a record keeps of the checks before and
/// after the loop, and what the verdict is graded from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// `None` when the run was killed (at the timeout, or by a signal).
    pub exit_code: Option<i32>,
    /// The counts of the report; absent when the task reads only the exit code
    /// (`test.report`) or the run was stopped before it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// How long the run took, the sandbox's start included.
    pub duration_ms: u64,
    /// The tests that failed or errored, as the report names them, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
    /// What the exit code means when it is not a plain pass or fail: the time limit, no tests
    /// collected, pytest interrupted or unable to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Note>,
    /// Why this run's result cannot count as a pass whatever its exit code says: no report
    /// where one was asked for, one mend cannot read, or one the witness contradicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_trusted: Option<Untrusted>,
    /// The task reads the exit code alone (`test.report = "exit_code"`): the weaker rule, with no
    /// test ids to hold the change to.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_exit_code: bool,
    /// How many tests the output's totals say ran, for a task judged by the exit code (see
    /// [`tests_counted`]); absent where it prints none mend knows, and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_counted: Option<u32>,
    /// What graded the run: pytest's, pluggy's and Python's versions, as mend's witness told
    /// them (pytest runs only; absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
    /// The witness's checks this pytest, pluggy or Python did not let it make, in sentences:
    /// the verdict stands without them, and says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<String>,
    /// Why the outcomes cannot be confirmed: read from the runner's output, which the code under
    /// test can print to (`verdict::trust::printed`); absent for a witnessed or JUnit run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconfirmed: Option<String>,
    /// The tests a skip raised by the code under test stopped (not pytest's marks, nor the
    /// tests' own code), each with the place it was raised: the witness's word (pytest runs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_by_code: BTreeMap<String, String>,
    /// The end of the output (colours removed) of a run that did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    /// Each test's outcome by id, for the contract (`verdict::grade::contract`); a record keeps the
    /// contract instead.
    #[serde(skip)]
    pub cases: BTreeMap<String, CaseOutcome>,
    /// What pytest's witness saw reach into the run: the first run's are the project's own, and
    /// do not count against the final run (`final_check`).
    #[serde(skip)]
    pub alarms: Vec<Alarm>,
    /// The copy's files whose code ran before pytest's witness loaded, as it told them: what
    /// they did to pytest went unwatched, so the final run weighs them against the change
    /// ([`crate::verdict::trust::loaded_first`]).
    #[serde(skip)]
    pub loaded_first: LoadedFirst,
    /// Everything the run printed as mend captured it (its last MiB when longer), unchanged:
    /// what SWE-bench's log parsers read. An eval keeps it beside each attempt's record
    /// (`eval::run_output`); a record keeps only the tail.
    #[serde(skip)]
    pub output: String,
}

impl TestRun {
    /// Exit code 0, nothing that makes the run untrustworthy, and when the report was read: no
    /// failing test and at least one that passed (a suite where nothing ran proves nothing).
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
            && self.not_trusted.is_none()
            && self.summary.is_none_or(|summary| {
                summary.failed == 0 && summary.errors == 0 && summary.passed > 0
            })
    }

    /// The run's outcome in a few words (its counts, or its exit code when there is no report), for the human output and `mend show`.
    pub fn describe(&self) -> String {
        let outcome = match (self.exit_code, &self.summary) {
            (None, _) => {
                return self
                    .not_trusted
                    .as_ref()
                    .map(Untrusted::describe)
                    .or_else(|| self.note.as_ref().map(Note::describe))
                    .unwrap_or_else(|| "timed out".to_owned())
            }
            (Some(_), Some(summary)) => summary.describe(),
            (Some(code), None) => format!("exit {code}"),
        };
        let reasons: Vec<String> = self
            .not_trusted
            .iter()
            .map(Untrusted::describe)
            .chain(self.note.iter().map(Note::describe))
            .chain(
                (!self.unchecked.is_empty())
                    .then(|| format!("not checked: {}", self.unchecked.join("; "))),
            )
            .chain(self.unconfirmed.clone())
            .collect();
        if reasons.is_empty() {
            outcome
        } else {
            format!("{outcome} — {}", reasons.join("; "))
        }
    }
}
