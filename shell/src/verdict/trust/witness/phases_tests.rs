//! The witness, loaded by a real pytest, sends a passing test as its id on a line of passes (for
//! its call, or its teardown when pytest runs no call) and every phase that did not pass: what mend makes of the
//! run is each test's worst phase, as when every phase was sent.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::process::Command;

use crate::test_support::python;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::test_run::witness_body;
use crate::verdict::read::witness_code::{WITNESS_BODY_FILE, WITNESS_LOADER};
use crate::verdict::trust::witness::{unsealed, Heard};

const TESTS: &str = "import pytest


def test_passes():
    pass


def test_fails():
    assert 1 + 1 == 3


@pytest.fixture
def breaks_at_teardown():
    yield
    raise RuntimeError('teardown')


def test_errors_at_teardown(breaks_at_teardown):
    pass


@pytest.fixture
def breaks_at_setup():
    raise RuntimeError('setup')


def test_errors_at_setup(breaks_at_setup):
    pass


@pytest.mark.skip(reason='not here')
def test_skipped():
    pass


@pytest.mark.xfail
def test_expected_to_fail():
    assert False
";

/// The lines a real pytest's witness sent for `tests` (one module, `file`) run with `options`,
/// and what pytest printed (for a failure's message). The witness is in a folder of its own on
/// `PYTHONPATH`, as mend hands it over.
pub(super) fn witnessed(file: &str, tests: &str, options: &[&str]) -> (Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path();
    let witness = folder.join("witness");
    std::fs::create_dir(&witness).unwrap();
    std::fs::write(witness.join("mend_witness.py"), WITNESS_LOADER).unwrap();
    std::fs::write(witness.join(WITNESS_BODY_FILE), witness_body()).unwrap();
    std::fs::write(folder.join(file), tests).unwrap();
    let socket = witness.join("witness.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let lines = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        BufReader::new(stream)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let output = Command::new(python())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "mend_witness",
            "-p",
            "no:cacheprovider",
        ])
        .args(options)
        .arg(file)
        .current_dir(folder)
        .env("PYTHONPATH", &witness)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .env("MEND_WITNESS", &socket)
        .env("MEND_WITNESS_COPY", folder)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    (lines.join().unwrap(), printed.into_owned())
}

/// The project's tests as the witness heard them (mend's canaries left out), and the phases
/// it sent for them, each `id when`, or `id passed` for one sent with other passes.
fn heard_with(options: &[&str]) -> (BTreeMap<String, CaseOutcome>, Vec<String>) {
    let (lines, printed) = witnessed("test_phases.py", TESTS, options);
    let heard = Heard::of(std::slice::from_ref(&lines))
        .unwrap_or_else(|reason| panic!("{reason:?}: {printed}"));
    let canaries: Vec<&String> = heard.canary_ids().collect();
    let own = |id: &str| !canaries.iter().any(|canary| canary.as_str() == id);
    let mut sent = Vec::new();
    for text in unsealed(&lines).unwrap().into_iter().flatten() {
        let said: serde_json::Value = serde_json::from_str(text).unwrap();
        if said["event"] == "test" && own(said["id"].as_str().unwrap()) {
            sent.push(format!(
                "{} {}",
                said["id"].as_str().unwrap(),
                said["when"].as_str().unwrap()
            ));
        }
        if said["event"] == "passed" {
            let ids = said["ids"].as_array().unwrap().iter();
            let ids = ids.map(|id| id.as_str().unwrap()).filter(|id| own(id));
            sent.extend(ids.map(|id| format!("{id} passed")));
        }
    }
    let cases = heard
        .cases
        .iter()
        .filter(|(id, _)| own(id))
        .map(|(id, outcome)| (id.clone(), *outcome))
        .collect();
    (cases, sent)
}

fn cases(list: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
    list.iter()
        .map(|(name, outcome)| (format!("test_phases.py::{name}"), *outcome))
        .collect()
}

#[test]
fn a_passing_test_is_one_line_and_every_phase_that_did_not_pass_is_sent() {
    let (heard, sent) = heard_with(&[]);
    assert_eq!(
        heard,
        cases(&[
            ("test_errors_at_setup", CaseOutcome::Error),
            ("test_errors_at_teardown", CaseOutcome::Error),
            ("test_expected_to_fail", CaseOutcome::Xfailed),
            ("test_fails", CaseOutcome::Failed),
            ("test_passes", CaseOutcome::Passed),
            ("test_skipped", CaseOutcome::Skipped),
        ])
    );
    let sent: Vec<&str> = sent.iter().map(String::as_str).collect();
    assert_eq!(
        sent,
        [
            "test_phases.py::test_passes passed",
            "test_phases.py::test_fails call",
            "test_phases.py::test_errors_at_teardown passed",
            "test_phases.py::test_errors_at_teardown teardown",
            "test_phases.py::test_errors_at_setup setup",
            "test_phases.py::test_skipped setup",
            "test_phases.py::test_expected_to_fail call",
        ]
    );
}

#[test]
fn a_run_without_calls_still_hears_every_test_by_its_teardown() {
    // `--setup-only` runs each test's fixtures and no call.
    let (heard, sent) = heard_with(&["--setup-only"]);
    assert_eq!(
        heard,
        cases(&[
            ("test_errors_at_setup", CaseOutcome::Error),
            ("test_errors_at_teardown", CaseOutcome::Error),
            ("test_expected_to_fail", CaseOutcome::Passed),
            ("test_fails", CaseOutcome::Passed),
            ("test_passes", CaseOutcome::Passed),
            ("test_skipped", CaseOutcome::Skipped),
        ])
    );
    assert_eq!(sent.len(), 6, "{sent:?}");
}

/// mend's canaries run among the project's tests, wherever their seed puts them, and the
/// terminal names and counts the project's tests only: the hook that keeps them off it is
/// registered while they run, and must be there for each of their phases.
#[test]
fn the_terminal_names_and_counts_only_the_projects_tests() {
    let mut module: String = (0..30)
        .map(|n| format!("def test_{n}():\n    pass\n\n"))
        .collect();
    module.push_str("def test_fails():\n    assert 0\n");
    // `-q` and `-vv`: one line a test, its id then its outcome.
    let (_, printed) = witnessed("test_many.py", &module, &["-vv"]);
    let named: Vec<(&str, &str)> = printed
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?, words.next()?))
        })
        .filter(|(id, _)| id.contains("::"))
        .collect();
    let summary = printed
        .lines()
        .rfind(|line| line.contains(" passed"))
        .map(|line| line.trim_matches(|c: char| c == '=' || c == ' '))
        .and_then(|line| line.split(" in ").next());
    let mut expected: Vec<(String, &str)> = (0..30)
        .map(|n| (format!("test_many.py::test_{n}"), "PASSED"))
        .collect();
    expected.push(("test_many.py::test_fails".to_owned(), "FAILED"));
    assert_eq!(
        (named, summary),
        (
            expected
                .iter()
                .map(|(id, word)| (id.as_str(), *word))
                .collect(),
            Some("1 failed, 30 passed")
        ),
        "{printed}"
    );
}
