//! A pytest run read from what mend's witness heard, with no report asked of pytest: the counts
//! and ids pytest itself prints, and the project's own options left theirs.

use std::collections::BTreeMap;

use super::tests::{counts, failed_run, installed, outcome, pytest, runner};
use super::*;
use crate::test_support::project;
use crate::verdict::read::junit::Report;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::Summary;

const EVERY_OUTCOME: &str = "import unittest

import pytest


def test_passes():
    pass


def test_fails():
    assert 1 == 2


class TestOuter:
    class TestInner:
        def test_deep(self):
            assert False


@pytest.mark.parametrize('word', ['a.b', 'c/d', 'e::f', 'g h'])
def test_words(word):
    assert word == 'a.b'


@pytest.mark.xfail(strict=True)
def test_passes_though_strictly_expected_to_fail():
    pass


@pytest.mark.xfail
def test_expected_to_fail():
    assert False


@pytest.mark.xfail
def test_passes_though_expected_to_fail():
    pass


@pytest.fixture
def breaks_at_teardown():
    yield
    raise RuntimeError('teardown')


def test_fails_then_errors_at_teardown(breaks_at_teardown):
    assert False


@pytest.fixture
def breaks_at_setup():
    raise RuntimeError('setup')


def test_errors_at_setup(breaks_at_setup):
    pass


@pytest.mark.skip(reason='later')
def test_later():
    pass


class Legacy(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_known_bug(self):
        self.assertEqual(1, 2)
";

#[test]
fn every_outcome_is_counted_and_named_as_pytest_prints_it() {
    let (_dir, root) = project(&[
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"--doctest-modules\"\ntestpaths = [\"tests\", \"pkg\"]\n",
        ),
        ("tests/test_all.py", EVERY_OUTCOME),
        ("tests/v1.2/test_dotted.py", "def test_in_a_dotted_folder():\n    assert 0\n"),
        (
            "pkg/__init__.py",
            "def one():\n    \"\"\"\n    >>> one()\n    2\n    \"\"\"\n    return 1\n",
        ),
    ]);
    let run = independent_check(&runner(), &pytest(), &root).unwrap();
    let id = |name: &str| format!("tests/test_all.py::{name}");
    let failing = [
        "pkg/__init__.py::pkg.one".to_owned(),
        id("Legacy::test_equal"),
        id("TestOuter::TestInner::test_deep"),
        id("test_errors_at_setup"),
        id("test_fails"),
        id("test_fails_then_errors_at_teardown"),
        id("test_passes_though_strictly_expected_to_fail"),
        id("test_words[c/d]"),
        id("test_words[e::f]"),
        id("test_words[g h]"),
        "tests/v1.2/test_dotted.py::test_in_a_dotted_folder".to_owned(),
    ];
    let mut cases: Vec<(String, CaseOutcome)> = failing
        .iter()
        .map(|id| (id.clone(), CaseOutcome::Failed))
        .collect();
    for (name, outcome) in [
        ("test_errors_at_setup", CaseOutcome::Error),
        ("test_fails_then_errors_at_teardown", CaseOutcome::Error),
        ("Legacy::test_known_bug", CaseOutcome::Xfailed),
        ("test_expected_to_fail", CaseOutcome::Xfailed),
        ("test_later", CaseOutcome::Skipped),
        ("test_passes", CaseOutcome::Passed),
        ("test_passes_though_expected_to_fail", CaseOutcome::Passed),
        ("test_words[a.b]", CaseOutcome::Passed),
    ] {
        cases.push((id(name), outcome));
    }
    // pytest prints "10 failed, 3 passed, 1 skipped, 2 xfailed, 1 xpassed, 2 errors": a test
    // that failed and then errored at teardown is in both, an xpass is a pass.
    assert_eq!(
        outcome(&run),
        TestRun {
            summary: Some(Summary {
                passed: 3,
                failed: 10,
                errors: 2,
                skipped: 1,
                xfailed: 2,
            }),
            failing: failing.to_vec(),
            cases: cases.into_iter().collect(),
            ..failed_run(Summary::default(), "", &[])
        }
    );
}

#[test]
fn a_module_skipped_whole_passes_and_is_no_alteration() {
    let (_dir, root) = project(&[
        (
            "tests/test_optional.py",
            "import pytest\n\npytest.importorskip('not_installed_here')\n\n\ndef test_uses_it():\n    pass\n",
        ),
        ("tests/test_core.py", "def test_core():\n    pass\n"),
    ]);
    let run = independent_check(&runner(), &pytest(), &root).unwrap();
    // The witness hears tests, not the modules pytest skips whole: pytest prints "1 passed,
    // 1 skipped", the count here has the test that ran.
    assert_eq!(
        (outcome(&run), run.passed()),
        (
            TestRun {
                exit_code: Some(0),
                summary: Some(counts(1, 0, 0, 0)),
                cases: [(
                    "tests/test_core.py::test_core".to_owned(),
                    CaseOutcome::Passed
                )]
                .into(),
                runner: installed(),
                ..TestRun::default()
            },
            true
        )
    );
}

#[test]
fn the_projects_own_junit_report_is_written_where_and_as_it_asks() {
    let tests = (
        "tests/test_io.py",
        "def test_read():\n    pass\n\ndef test_write():\n    assert False\n",
    );
    let (_own_dir, own) = project(&[
        (
            "pytest.ini",
            "[pytest]\naddopts = --junitxml=build/junit.xml -o junit_family=xunit2\n",
        ),
        tests,
    ]);
    let (_plain_dir, plain) = project(&[tests]);
    let [with_report, without] =
        [&own, &plain].map(|root| independent_check(&runner(), &pytest(), root).unwrap());
    assert_eq!(outcome(&with_report), outcome(&without));
    assert_eq!(
        outcome(&with_report),
        TestRun {
            cases: [
                (
                    "tests/test_io.py::test_read".to_owned(),
                    CaseOutcome::Passed
                ),
                (
                    "tests/test_io.py::test_write".to_owned(),
                    CaseOutcome::Failed
                ),
            ]
            .into(),
            ..failed_run(counts(1, 1, 0, 0), "tests/test_io.py::test_write", &[])
        }
    );
    // xunit2, as the project asks, names a case without its file. The report is pytest's
    // whole: it lists mend's three canaries too (the terminal and the verdict leave them out).
    let written = std::fs::read_to_string(own.join("build/junit.xml")).unwrap();
    let mut cases = Report::parse(&written).unwrap().cases;
    let projects: BTreeMap<String, CaseOutcome> = ["test_read", "test_write"]
        .into_iter()
        .filter_map(|name| cases.remove_entry(&format!("tests.test_io::{name}")))
        .collect();
    assert_eq!(
        (projects, cases.len()),
        (
            [
                ("tests.test_io::test_read".to_owned(), CaseOutcome::Passed),
                ("tests.test_io::test_write".to_owned(), CaseOutcome::Failed),
            ]
            .into(),
            3
        )
    );
    // pytest says where it wrote the project's report, which is the project's to see.
    assert!(
        with_report.output.contains("generated xml file: ")
            && with_report.output.contains("build/junit.xml"),
        "{}",
        with_report.output
    );
}
