//! A pytest run read from what mend's witness heard, with no report asked of pytest: the counts
//! and ids pytest itself prints, and the project's own options left theirs.

use std::collections::BTreeMap;

use super::tests::{counts, failed_run, installed, outcome, pytest, runner};
use super::*;
use crate::exec::process::Finished;
use crate::test_support::project;
use crate::verdict::read::junit::Report;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::Summary;
use crate::verdict::trust::untrusted::Untrusted;

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
    // pytest prints "1 passed, 1 skipped": the module skipped whole is one skipped, by its file.
    assert_eq!(
        (outcome(&run), run.passed()),
        (
            TestRun {
                exit_code: Some(0),
                summary: Some(counts(1, 0, 0, 1)),
                cases: [
                    (
                        "tests/test_core.py::test_core".to_owned(),
                        CaseOutcome::Passed,
                    ),
                    ("tests/test_optional.py".to_owned(), CaseOutcome::Skipped),
                ]
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

/// `texts` as the witness sends them: its opening with its key, then each line sealed.
fn sealed(texts: &[&str]) -> Vec<String> {
    let key = "5eed0fca11ab1e";
    let seal = crate::verdict::trust::witness::seal::Key::from_hex(key).unwrap();
    let mut lines = vec![format!(r#"{{"event": "start", "key": "{key}"}}"#)];
    for (number, text) in (1u64..).zip(texts) {
        lines.push(format!("{} {text}", seal.seal(number, text)));
    }
    lines
}

/// A pytest run that ended with `exit` and printed `boom`, read with what its witness sent.
fn read_with(exit: i32, witness: &[Vec<String>]) -> Result<TestRun, String> {
    let finished = Finished {
        status: Some(std::os::unix::process::ExitStatusExt::from_raw(exit << 8)),
        cut: None,
        output: "boom".to_owned(),
        head_dropped: false,
        elapsed: std::time::Duration::from_millis(5),
    };
    pytest::read_pytest_run(&finished, &pytest(), (witness, Known::default(), None))
        .map_err(|not_run| NoVerdict::of(not_run, &runner(), &pytest()).message)
}

#[test]
fn a_session_the_witness_did_not_hear_whole_is_no_verdict_or_no_pass_with_its_reason() {
    const TEST: &str = r#"{"event": "test", "id": "t.py::x", "when": "call", "outcome": "failed", "xfail": false}"#;
    const COLLECTED: &str = r#"{"event": "collected", "count": 1}"#;
    let finished = |status: i32| format!(r#"{{"event": "finished", "exitstatus": {status}}}"#);
    let whole = sealed(&[COLLECTED, TEST, &finished(1)]);
    let no_verdict = |reason: &str, fix: &str| {
        Err(format!(
            "the test command `python -m pytest -q` gave no verdict: {reason} — {fix}:\nboom"
        ))
    };
    let install = format!("is pytest installed for `{}`? Install it there (`{0} -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variables PYTEST_ADDOPTS, PYTHONPATH, MEND_WITNESS and MEND_WITNESS_COPY, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS PYTHONPATH MEND_WITNESS MEND_WITNESS_COPY` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\"", runner().python);
    let shown = |read: Result<TestRun, String>| {
        read.map(|run| {
            (
                run.summary,
                run.failing,
                run.not_trusted.as_ref().map(Untrusted::describe),
            )
        })
    };
    assert_eq!(
        [
            // Nothing spoke; the witness was cut off mid-run, exiting 0 or 1.
            shown(read_with(1, &[])),
            shown(read_with(0, &[sealed(&[COLLECTED, TEST])])),
            shown(read_with(1, &[sealed(&[COLLECTED, TEST])])),
            // pytest's own failures, whatever was heard.
            shown(read_with(3, std::slice::from_ref(&whole))),
            // A second voice: no count is believed.
            shown(read_with(1, &[whole.clone(), whole.clone()])),
            // The process's exit is not the session's.
            shown(read_with(0, std::slice::from_ref(&whole))),
            shown(read_with(1, std::slice::from_ref(&whole))),
        ],
        [
            no_verdict("the tests stopped before reporting: exit 1 with no pytest report", &install),
            no_verdict("the tests stopped before reporting: exit 0 with no pytest report", pytest::EXITED_EARLY_FIX),
            no_verdict("the tests stopped before reporting: exit 1 with no pytest report", &install),
            no_verdict("pytest stopped with an internal error (exit 3)", "see pytest's output below; a plugin or conftest.py may be failing"),
            Ok((None, Vec::new(), Some("the report was altered: something besides mend's pytest plugin wrote to its channel".to_owned()))),
            Ok((Some(counts(0, 1, 0, 0)), vec!["t.py::x".to_owned()], Some("the exit code was altered: pytest ended its session with 1, but the process exited with 0".to_owned()))),
            Ok((Some(counts(0, 1, 0, 0)), vec!["t.py::x".to_owned()], None)),
        ]
    );
}
