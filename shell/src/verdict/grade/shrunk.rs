//! Where the runs give no test ids, only counts, a change can still make the suite smaller:
//! compile tests out (`#[cfg(test)]` → `#[cfg(any())]`), delete them, or filter them away. The
//! final run must then run at least as many tests as the first one did.

use crate::verdict::check::TestRun;
use crate::verdict::trust::untrusted::Untrusted;

/// How many tests `run` ran to a result: its report's counts, else the totals its output printed.
fn ran(run: &TestRun) -> Option<u32> {
    run.summary
        .map(|summary| summary.ran())
        .or(run.tests_counted)
}

/// Why `after` is no pass when it ran fewer tests than `before`, or printed no totals where
/// `before` did; `None` when it ran as many or more, or `before` counted nothing.
pub(crate) fn fewer_tests_than_before(before: &TestRun, after: &TestRun) -> Option<Untrusted> {
    let before = ran(before).filter(|count| *count > 0)?;
    let after = ran(after);
    after
        .is_none_or(|after| after < before)
        .then_some(Untrusted::FewerTestsThanBefore { before, after })
}

#[cfg(test)]
mod tests {
    use super::fewer_tests_than_before;
    use crate::verdict::check::TestRun;
    use crate::verdict::read::summary::Summary;
    use crate::verdict::trust::untrusted::Untrusted;

    fn counted(count: Option<u32>) -> TestRun {
        TestRun {
            exit_code: Some(0),
            by_exit_code: true,
            tests_counted: count,
            ..TestRun::default()
        }
    }

    #[test]
    fn a_smaller_suite_is_named_and_an_equal_or_larger_one_is_not() {
        let reported = TestRun {
            summary: Some(Summary {
                passed: 3,
                failed: 1,
                skipped: 9,
                ..Summary::default()
            }),
            ..TestRun::default()
        };
        let judged = [
            fewer_tests_than_before(&counted(Some(111)), &counted(Some(0))),
            fewer_tests_than_before(&counted(Some(111)), &counted(None)),
            fewer_tests_than_before(&counted(Some(4)), &reported),
            fewer_tests_than_before(&counted(Some(5)), &reported),
            fewer_tests_than_before(&counted(None), &counted(Some(1))),
        ];
        assert_eq!(
            judged.map(|reason| reason.as_ref().map(Untrusted::describe)),
            [
                Some("the final run ran 0 tests, fewer than the 111 the first run ran: tests were removed, filtered out or compiled out".to_owned()),
                Some("the final run printed no test totals, where the first run counted 111 tests".to_owned()),
                None,
                Some("the final run ran 4 tests, fewer than the 5 the first run ran: tests were removed, filtered out or compiled out".to_owned()),
                None,
            ]
        );
    }
}
