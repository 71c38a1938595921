//! Each reader's honest output, as its runner prints it, holds no sign; the same output with a
//! line the code under test added gives that line away.

use super::forged_result;
use crate::task::OutputReader::{self, Django, Libtest, PytestRa, Sympy};
use crate::verdict::trust::untrusted::Untrusted;

const CARGO_TEST: &str = include_str!("../../../../fixtures/readers/cargo-test.log");
const DJANGO_NEW: &str = include_str!("../../../../fixtures/readers/django-new.log");
const DJANGO_OLD: &str = include_str!("../../../../fixtures/readers/django-old.log");
const PYTEST_RA: &str = include_str!("../../../../fixtures/readers/pytest-ra.log");
const SYMPY_VERBOSE: &str = include_str!("../../../../fixtures/readers/sympy-verbose.log");

fn sign(reader: OutputReader, output: &str) -> Option<String> {
    forged_result(reader, output).map(|reason| match reason {
        Untrusted::PrintedOutcome { sign } => sign,
        other => panic!("not a printed outcome: {other:?}"),
    })
}

/// unittest's closing lines for `ran` tests, one of them failed.
fn unittest_end(ran: u32) -> String {
    format!("\n----------------------------------------------------------------------\nRan {ran} tests in 0.012s\n\nFAILED (failures=1)\n")
}

#[test]
fn the_runners_own_output_holds_no_sign() {
    let django_new = format!("{DJANGO_NEW}{}", unittest_end(5));
    let django_old = format!("{DJANGO_OLD}{}", unittest_end(5));
    let signs = [
        sign(Libtest, CARGO_TEST),
        sign(Django, &django_new),
        sign(Django, &django_old),
        sign(PytestRa, PYTEST_RA),
        sign(Sympy, SYMPY_VERBOSE),
    ];
    assert_eq!(signs, [None, None, None, None, None]);
}

#[test]
fn a_pass_printed_after_a_real_failure_is_given_away_for_each_reader_that_keeps_the_last_line() {
    let django = format!(
        "{DJANGO_NEW}{}Deleting asks first. ... ok\n",
        unittest_end(5)
    );
    let pytest_ra = format!("{PYTEST_RA}PASSED tests/test_io.py::test_read[a b - c]\n");
    let sympy = format!("{SYMPY_VERBOSE}\ntest_issue_1234 ok\n");
    let pytest_error_then_pass = "ERROR t.py::a - boom\nPASSED t.py::a\n";
    assert_eq!(
        [
            sign(Django, &django),
            sign(PytestRa, &pytest_ra),
            sign(Sympy, &sympy),
            sign(PytestRa, pytest_error_then_pass),
        ],
        [
            Some("Deleting asks first. is printed as passed after it failed".to_owned()),
            Some(
                "tests/test_io.py::test_read[a b - c] is printed as passed after it failed"
                    .to_owned()
            ),
            Some("test_issue_1234 is printed as passed after it failed".to_owned()),
            Some("t.py::a is printed as passed after it failed".to_owned()),
        ]
    );
}

#[test]
fn a_pass_before_a_teardown_error_is_how_pytest_prints_it() {
    assert_eq!(
        sign(PytestRa, "PASSED t.py::a\nERROR t.py::a - teardown\n"),
        None
    );
}

#[test]
fn a_libtest_binary_gives_away_a_second_result_line_and_a_result_for_a_test_it_did_not_run() {
    let second_result = CARGO_TEST.replace(
        "test result: FAILED.",
        "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\ntest result: FAILED.",
    );
    let unannounced = CARGO_TEST.replace(
        "test tests::trims ... FAILED\n",
        "test tests::trims ... FAILED\ntest tests::required ... ok\n",
    );
    let outside = format!("{CARGO_TEST}test tests::late ... ok\n");
    // Written from a test thread while libtest was between a name and its outcome.
    let inside_a_line = CARGO_TEST.replace(
        "test tests::trims ... FAILED\n",
        "test tests::trims ... test tests::required ... ok\nFAILED\n",
    );
    assert_eq!(
        [
            sign(Libtest, &second_result),
            sign(Libtest, &unannounced),
            sign(Libtest, &outside),
            sign(Libtest, &inside_a_line),
        ],
        [
            Some("a `test result:` line stands where no test binary was running".to_owned()),
            Some("a test binary announced 4 tests and printed more results (`test tests::required ... ok`)".to_owned()),
            Some("`test tests::late ... ok` stands where no test binary was running".to_owned()),
            Some("a test binary announced 4 tests and printed more results (`test tests::trims ... test tests::required ... ok`)".to_owned()),
        ]
    );
}

#[test]
fn unittest_gives_away_more_tests_printed_than_it_ran() {
    let added = format!(
        "test_new (admin_views.tests.AdminViewBasicTest.test_new) ... ok\n{DJANGO_NEW}{}",
        unittest_end(4)
    );
    assert_eq!(
        sign(Django, &added),
        Some("unittest ran 4 tests, but 5 are printed with an outcome".to_owned())
    );
}

#[test]
fn a_skip_is_not_counted_as_python_3_12_1_counts_none() {
    // What Python 3.12.1 prints: a skipped test of the two, and `Ran 1 test`.
    let output = "test_a (m.C.test_a) ... ok
test_b (m.C.test_b) ... skipped 'later'

----------------------------------------------------------------------
Ran 1 test in 0.001s

OK (skipped=1)
";
    assert_eq!(sign(Django, output), None);
}

#[test]
fn a_subtest_line_and_output_with_dots_are_no_extra_test() {
    let output = "test_a (m.C.test_a) ... \n  test_a (m.C.test_a) (x=1) ... FAIL\n  test_a (m.C.test_a) (x=2) ... FAIL\ntest_b (m.C.test_b) ... Loading ... done\nok\n\nRan 2 tests in 0.1s\n\nFAILED (failures=2)\n";
    assert_eq!(sign(Django, output), None);
}
