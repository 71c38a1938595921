//! Skips the code under test raised (the witness's `skipped_by_code`): a test stopped by a
//! `pytest.skip` or `unittest.SkipTest` from the project's code, not by pytest's marks nor by
//! the test's own code. Under mend's own rule a test of the contract that ends skipped keeps no
//! promise, and the verdict names where the skip came from; an imported SWE-bench list is graded
//! as its harness grades it (a skipped PASS_TO_PASS test counts as passing), and the difference
//! is shown as a warning.

use crate::verdict::check::TestRun;
use crate::verdict::grade::contract::{Contract, NAMED_IDS};

/// The contract's tests a skip from the code under test stopped, in a sentence; `None` when
/// there are none.
pub(crate) fn skipped_contract_tests(after: &TestRun, contract: &Contract) -> Option<String> {
    let named: Vec<String> = contract
        .fail_to_pass
        .iter()
        .chain(&contract.pass_to_pass)
        .filter_map(|transition| {
            let at = after.skipped_by_code.get(&transition.id)?;
            Some(format!("{} (raised at {at})", transition.id))
        })
        .take(NAMED_IDS)
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "the code under test skipped tests the task needs to pass, and a skip is no pass: {}",
            named.join("; ")
        )
    })
}

/// For a task graded by given lists: each test a skip from the code under test stopped, which
/// SWE-bench's harness counts as passing where it should keep passing, and mend's rule would not.
pub(crate) fn skipped_given_tests(after: &TestRun) -> Option<String> {
    let named: Vec<String> = after
        .skipped_by_code
        .iter()
        .take(NAMED_IDS)
        .map(|(id, at)| format!("{id} (raised at {at})"))
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "the code under test skipped tests: {}; graded as SWE-bench's harness grades its lists (a skipped PASS_TO_PASS test counts as passing), where mend's own rule counts no skip as a pass",
            named.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{skipped_contract_tests, skipped_given_tests};
    use crate::verdict::check::TestRun;
    use crate::verdict::grade::contract::{Contract, Transition};
    use crate::verdict::read::outcome::CaseOutcome::{Failed, Passed, Skipped};

    fn skipped_by_code() -> TestRun {
        TestRun {
            skipped_by_code: [("t.py::b".to_owned(), "pkg/core.py:7".to_owned())].into(),
            ..TestRun::default()
        }
    }

    #[test]
    fn a_contract_test_skipped_by_the_code_is_named_with_where_the_skip_was_raised() {
        let contract = Contract {
            fail_to_pass: vec![Transition {
                id: "t.py::a".to_owned(),
                before: Some(Failed),
                after: Some(Passed),
            }],
            pass_to_pass: vec![Transition {
                id: "t.py::b".to_owned(),
                before: Some(Passed),
                after: Some(Skipped),
            }],
            added: Vec::new(),
        };
        assert_eq!(
            skipped_contract_tests(&skipped_by_code(), &contract),
            Some("the code under test skipped tests the task needs to pass, and a skip is no pass: t.py::b (raised at pkg/core.py:7)".to_owned())
        );
        assert_eq!(skipped_contract_tests(&TestRun::default(), &contract), None);
    }

    #[test]
    fn a_given_list_keeps_the_harness_rule_and_shows_the_difference() {
        assert_eq!(
            skipped_given_tests(&skipped_by_code()),
            Some("the code under test skipped tests: t.py::b (raised at pkg/core.py:7); graded as SWE-bench's harness grades its lists (a skipped PASS_TO_PASS test counts as passing), where mend's own rule counts no skip as a pass".to_owned())
        );
        assert_eq!(skipped_given_tests(&TestRun::default()), None);
    }
}
