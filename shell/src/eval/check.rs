//! Whether an eval task can tell a repair from no repair: its tests fail without a change (the
//! bug is real, and named by test id), its gold patch passes, and each outcome holds on every
//! run. A task that flips between runs is flaky; one that fails a rule is invalid.

use serde::{Deserialize, Serialize};

use crate::verdict::check::TestRun;
use crate::verdict::grade::given::Graded;

/// How many times each side is run: the tests without a change, and with the gold patch.
pub(crate) const RUNS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Valid,
    /// The outcome changed between runs of the same tree: a pass says little.
    Flaky,
    /// A rule does not hold: `mend eval` refuses the task.
    Invalid,
}

impl Status {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Flaky => "flaky",
            Status::Invalid => "invalid",
        }
    }
}

/// The result of one test run, as far as the check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ran {
    /// The tests gave a result: whether it passed, the failing ids, and the run in words.
    Tests {
        passed: bool,
        failing: Vec<String>,
        /// The report names tests by id (pytest, JUnit, the output readers); `false` for
        /// `report = "exit_code"`.
        has_ids: bool,
        described: String,
    },
    /// The tests gave no verdict: why.
    NoVerdict(String),
    /// The gold patch did not apply, so the tests did not run: why.
    NotApplied(String),
}

impl Ran {
    pub(crate) fn of(run: &TestRun) -> Ran {
        Ran::Tests {
            passed: run.passed(),
            failing: run.failing.clone(),
            has_ids: run.summary.is_some(),
            described: run.describe(),
        }
    }

    /// A run graded by its given lists: it passes when it resolves; the failing tests are the
    /// listed ones that did not succeed.
    pub(crate) fn graded(graded: &Graded) -> Ran {
        let failing = graded
            .fail_to_pass
            .failure
            .iter()
            .chain(&graded.pass_to_pass.failure)
            .map(|missed| missed.id.clone())
            .collect();
        Ran::Tests {
            passed: graded.resolved(),
            failing,
            has_ids: true,
            described: graded.lines().join("; "),
        }
    }

    fn passed(&self) -> bool {
        matches!(self, Ran::Tests { passed: true, .. })
    }
}

/// What the check found for one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Judged {
    pub status: Status,
    /// Each rule that does not hold, in words; empty for a valid task.
    pub problems: Vec<String>,
    /// The tests that fail without a change (the first run's), by id.
    pub failing_before: Vec<String>,
}

/// Judges a task from its runs without a change (`empty`) and with its gold patch (`gold`,
/// `None` when the task has none).
pub(crate) fn judge_task(empty: &[Ran], gold: Option<&[Ran]>) -> Judged {
    let mut problems = Vec::new();
    let mut flaky = Vec::new();
    let failing_before = match empty.first() {
        Some(Ran::Tests { failing, .. }) => failing.clone(),
        _ => Vec::new(),
    };
    judge_empty(empty, &mut problems, &mut flaky);
    if let Some(gold) = gold {
        judge_gold(gold, &mut problems, &mut flaky);
    }
    let status = if !problems.is_empty() {
        Status::Invalid
    } else if !flaky.is_empty() {
        Status::Flaky
    } else {
        Status::Valid
    };
    problems.extend(flaky);
    Judged {
        status,
        problems,
        failing_before,
    }
}

fn judge_empty(empty: &[Ran], problems: &mut Vec<String>, flaky: &mut Vec<String>) {
    if let Some(reason) = no_verdict(empty) {
        problems.push(format!(
            "without a change the tests give no verdict: {reason}"
        ));
        return;
    }
    let passes = empty.iter().filter(|ran| ran.passed()).count();
    if passes == empty.len() {
        problems.push(format!(
            "without a change the tests pass ({}): there is no bug to fix",
            described(&empty[0])
        ));
        return;
    }
    if passes > 0 {
        flaky.push(format!(
            "without a change the tests passed in {passes} of {} runs",
            empty.len()
        ));
        return;
    }
    if let Some(Ran::Tests {
        failing, has_ids, ..
    }) = empty.first()
    {
        if *has_ids && failing.is_empty() {
            problems.push(format!(
                "without a change the tests fail, but no test fails by id ({}): nothing names the bug",
                described(&empty[0])
            ));
        }
    }
    let differ = empty.windows(2).any(|pair| match pair {
        [Ran::Tests { failing: a, .. }, Ran::Tests { failing: b, .. }] => a != b,
        _ => false,
    });
    if differ {
        flaky.push("without a change different tests fail from run to run".to_owned());
    }
}

fn judge_gold(gold: &[Ran], problems: &mut Vec<String>, flaky: &mut Vec<String>) {
    if let Some(reason) = gold.iter().find_map(|ran| match ran {
        Ran::NotApplied(reason) => Some(reason),
        _ => None,
    }) {
        problems.push(format!(
            "the gold patch does not apply, so its tests did not run: {reason}"
        ));
        return;
    }
    if let Some(reason) = no_verdict(gold) {
        problems.push(format!(
            "with the gold patch the tests give no verdict: {reason}"
        ));
        return;
    }
    let passes = gold.iter().filter(|ran| ran.passed()).count();
    if passes == 0 {
        let first = &gold[0];
        let failing = match first {
            Ran::Tests { failing, .. } if !failing.is_empty() => {
                format!("; failing: {}", failing.join(", "))
            }
            _ => String::new(),
        };
        problems.push(format!(
            "the gold patch does not pass ({}{failing})",
            described(first)
        ));
    } else if passes < gold.len() {
        flaky.push(format!(
            "the gold patch passed in {passes} of {} runs",
            gold.len()
        ));
    }
}

fn no_verdict(runs: &[Ran]) -> Option<&str> {
    runs.iter().find_map(|ran| match ran {
        Ran::NoVerdict(reason) => Some(reason.as_str()),
        Ran::Tests { .. } | Ran::NotApplied(_) => None,
    })
}

fn described(ran: &Ran) -> &str {
    match ran {
        Ran::Tests { described, .. } => described,
        Ran::NoVerdict(reason) | Ran::NotApplied(reason) => reason,
    }
}

#[cfg(test)]
mod tests {
    use super::{judge_task, Judged, Ran, Status};

    fn failing(ids: &[&str]) -> Ran {
        Ran::Tests {
            passed: false,
            failing: ids.iter().map(|id| (*id).to_owned()).collect(),
            has_ids: true,
            described: format!("{} failed", ids.len()),
        }
    }

    fn passing() -> Ran {
        Ran::Tests {
            passed: true,
            failing: Vec::new(),
            has_ids: true,
            described: "4 passed".to_owned(),
        }
    }

    fn judged(status: Status, problems: &[&str], failing_before: &[&str]) -> Judged {
        Judged {
            status,
            problems: problems
                .iter()
                .map(|problem| (*problem).to_owned())
                .collect(),
            failing_before: failing_before.iter().map(|id| (*id).to_owned()).collect(),
        }
    }

    const BUG: &str = "tests/test_a.py::test_bug";

    #[test]
    fn a_task_whose_bug_fails_every_run_and_whose_gold_passes_every_run_is_valid() {
        let empty = vec![failing(&[BUG]); 3];
        let gold = vec![passing(); 3];
        assert_eq!(
            judge_task(&empty, Some(&gold)),
            judged(Status::Valid, &[], &[BUG])
        );
        assert_eq!(judge_task(&empty, None), judged(Status::Valid, &[], &[BUG]));
    }

    #[test]
    fn each_broken_rule_makes_a_task_invalid_and_is_named() {
        let cases = [
            (
                vec![passing(); 3],
                None,
                "without a change the tests pass (4 passed): there is no bug to fix",
            ),
            (
                vec![failing(&[]); 3],
                None,
                "without a change the tests fail, but no test fails by id (0 failed): nothing names the bug",
            ),
            (
                vec![failing(&[BUG]); 3],
                Some(vec![failing(&[BUG]); 3]),
                "the gold patch does not pass (1 failed; failing: tests/test_a.py::test_bug)",
            ),
            (
                vec![failing(&[BUG]); 3],
                Some(vec![Ran::NotApplied("calc.py: the hunk at line 1 matches nowhere in the file".to_owned())]),
                "the gold patch does not apply, so its tests did not run: calc.py: the hunk at line 1 matches nowhere in the file",
            ),
            (
                vec![Ran::NoVerdict("pytest is not installed".to_owned())],
                None,
                "without a change the tests give no verdict: pytest is not installed",
            ),
        ];
        for (empty, gold, problem) in cases {
            assert_eq!(
                judge_task(&empty, gold.as_deref()).problems,
                vec![problem.to_owned()]
            );
            assert_eq!(judge_task(&empty, gold.as_deref()).status, Status::Invalid);
        }
    }

    #[test]
    fn a_task_that_flips_between_runs_is_flaky() {
        let flips = vec![failing(&[BUG]), passing(), failing(&[BUG])];
        let other_ids = vec![failing(&[BUG]), failing(&["tests/test_a.py::test_other"])];
        let gold_flips = vec![passing(), failing(&[BUG]), passing()];
        let fails = vec![failing(&[BUG]); 3];
        assert_eq!(
            [
                judge_task(&flips, None),
                judge_task(&other_ids, None),
                judge_task(&fails, Some(&gold_flips)),
            ],
            [
                judged(
                    Status::Flaky,
                    &["without a change the tests passed in 1 of 3 runs"],
                    &[BUG]
                ),
                judged(
                    Status::Flaky,
                    &["without a change different tests fail from run to run"],
                    &[BUG]
                ),
                judged(
                    Status::Flaky,
                    &["the gold patch passed in 2 of 3 runs"],
                    &[BUG]
                ),
            ]
        );
    }

    #[test]
    fn invalid_wins_over_flaky_and_a_runner_without_ids_needs_none() {
        let no_ids = Ran::Tests {
            passed: false,
            failing: Vec::new(),
            has_ids: false,
            described: "exit 101".to_owned(),
        };
        let gold = vec![failing(&[BUG]), failing(&[BUG]), passing()];
        assert_eq!(
            judge_task(&vec![no_ids.clone(); 3], None),
            judged(Status::Valid, &[], &[])
        );
        let flaky_and_broken = judge_task(&[failing(&[BUG]), passing()], Some(&[failing(&[BUG])]));
        assert_eq!(
            flaky_and_broken,
            judged(
                Status::Invalid,
                &[
                    "the gold patch does not pass (1 failed; failing: tests/test_a.py::test_bug)",
                    "without a change the tests passed in 1 of 2 runs",
                ],
                &[BUG]
            )
        );
        assert_eq!(judge_task(&[no_ids], Some(&gold)).status, Status::Flaky);
    }
}
