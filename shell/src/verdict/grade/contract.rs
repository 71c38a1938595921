//! The contract a run's first test run fixes, by test id: the tests that failed must pass after
//! the change (`fail_to_pass`), the tests that passed must still pass (`pass_to_pass`). A test
//! that vanished, was deselected, skipped, xfailed or errored after the change keeps neither
//! promise; tests the change added are listed, but cannot stand in for the ones it was given.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::verdict::read::outcome::CaseOutcome;

/// How many test ids a verdict names; the count says how many more there are.
pub(crate) const NAMED_IDS: usize = 10;

/// One test of the contract: its outcome before and after the change; `after` is `None` when
/// the test did not run after it (deleted, renamed, deselected, or the run stopped early).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    pub id: String,
    pub before: Option<CaseOutcome>,
    pub after: Option<CaseOutcome>,
}

impl Transition {
    pub fn kept(&self) -> bool {
        self.after == Some(CaseOutcome::Passed)
    }

    /// `tests/x.py::t: failed → passed`, `… → did not run`.
    pub fn describe(&self) -> String {
        let word = |outcome: Option<CaseOutcome>| outcome.map_or("did not run", CaseOutcome::word);
        format!("{}: {} → {}", self.id, word(self.before), word(self.after))
    }
}

/// The contract's counts: of the tests failing before, how many pass now; of those passing
/// before, how many still do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub fixed: usize,
    pub failing_before: usize,
    pub still_passing: usize,
    pub passing_before: usize,
}

impl Tally {
    /// `0 of 1 failing before now pass, 179 of 179 passing before still pass`.
    pub fn describe(&self) -> String {
        format!(
            "{} of {} failing before now pass, {} of {} passing before still pass",
            self.fixed, self.failing_before, self.still_passing, self.passing_before
        )
    }
}

/// The contract and how the run after the change kept it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    /// Every test that failed or errored before, in id order.
    pub fail_to_pass: Vec<Transition>,
    /// Every test that passed before, in id order.
    pub pass_to_pass: Vec<Transition>,
    /// Tests the first run did not have, with their outcome after (`before` is `None`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<Transition>,
}

impl Contract {
    /// The contract of `before`, judged on `after`. Tests skipped or xfailed before promise
    /// nothing either way.
    pub fn between(
        before: &BTreeMap<String, CaseOutcome>,
        after: &BTreeMap<String, CaseOutcome>,
    ) -> Contract {
        let mut contract = Contract::default();
        for (id, outcome) in before {
            let transition = Transition {
                id: id.clone(),
                before: Some(*outcome),
                after: after.get(id).copied(),
            };
            if outcome.is_failing() {
                contract.fail_to_pass.push(transition);
            } else if *outcome == CaseOutcome::Passed {
                contract.pass_to_pass.push(transition);
            }
        }
        contract.added = after
            .iter()
            .filter(|(id, _)| !before.contains_key(*id))
            .map(|(id, outcome)| Transition {
                id: id.clone(),
                before: None,
                after: Some(*outcome),
            })
            .collect();
        contract
    }

    /// Every promise kept: each failing test now passes, each passing one still does.
    pub fn kept(&self) -> bool {
        self.broken().next().is_none()
    }

    /// How many promises of each kind there are and how many were kept: the one count every
    /// sentence about the contract is made from.
    pub fn tally(&self) -> Tally {
        let kept = |list: &[Transition]| list.iter().filter(|t| t.kept()).count();
        Tally {
            fixed: kept(&self.fail_to_pass),
            failing_before: self.fail_to_pass.len(),
            still_passing: kept(&self.pass_to_pass),
            passing_before: self.pass_to_pass.len(),
        }
    }

    /// The tests that broke the contract, failing-before ones first.
    pub fn broken(&self) -> impl Iterator<Item = &Transition> {
        self.fail_to_pass
            .iter()
            .chain(&self.pass_to_pass)
            .filter(|transition| !transition.kept())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{CaseOutcome, Contract, Transition};
    use CaseOutcome::{Error, Failed, Passed, Skipped, Xfailed};

    fn run(cases: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
        cases
            .iter()
            .map(|(id, outcome)| ((*id).to_owned(), *outcome))
            .collect()
    }

    fn moved(id: &str, before: Option<CaseOutcome>, after: Option<CaseOutcome>) -> Transition {
        Transition {
            id: id.to_owned(),
            before,
            after,
        }
    }

    #[test]
    fn a_repair_keeps_the_contract_when_every_test_passes_after() {
        let before = run(&[("a", Failed), ("b", Passed), ("c", Skipped)]);
        let after = run(&[("a", Passed), ("b", Passed), ("c", Passed), ("d", Passed)]);
        let contract = Contract::between(&before, &after);
        assert_eq!(
            contract,
            Contract {
                fail_to_pass: vec![moved("a", Some(Failed), Some(Passed))],
                pass_to_pass: vec![moved("b", Some(Passed), Some(Passed))],
                added: vec![moved("d", None, Some(Passed))],
            }
        );
        assert!(contract.kept());
    }

    #[test]
    fn a_test_that_vanished_was_skipped_xfailed_or_errored_breaks_it() {
        let before = run(&[("a", Failed), ("b", Passed), ("c", Passed), ("d", Error)]);
        let after = run(&[
            ("b", Skipped),
            ("c", Xfailed),
            ("d", Error),
            ("new", Passed),
        ]);
        let contract = Contract::between(&before, &after);
        let broken: Vec<String> = contract.broken().map(Transition::describe).collect();
        assert_eq!(
            broken,
            [
                "a: failed → did not run",
                "d: error → error",
                "b: passed → skipped",
                "c: passed → xfailed",
            ]
        );
        assert!(!contract.kept());
    }
}
