//! What runs each test, replaced by one test and put back by a later one, is named: the checks
//! made as each test starts see it in between. Made through pytest's own `MonkeyPatch`, so the
//! audit hook owes the writes to pytest and tells nothing: only those checks can. The classes are
//! looked at again when the audit hook counted a write to a class (from Python 3.8; before it,
//! every time), the modules every time.

use super::phases_tests::witnessed;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::trust::witness::{unsealed, Heard};

const TESTS: &str = "import _pytest.reports
import _pytest.runner
import pytest

patch = pytest.MonkeyPatch()


def test_replaces():
    patch.setattr(_pytest.reports.TestReport, '__repr__', lambda self: 'forged')
    patch.setattr(_pytest.runner, 'show_test_item', lambda *args, **kwargs: None)


def test_runs_with_them():
    pass


def test_puts_them_back():
    patch.undo()
";

#[test]
fn a_class_or_module_replaced_between_two_tests_and_put_back_later_is_named() {
    let (lines, printed) = witnessed("test_between.py", TESTS, &[]);
    let said = unsealed(&lines).unwrap_or_else(|| panic!("no witness: {printed}"));
    let mut alarms: Vec<String> = said
        .into_iter()
        .flatten()
        .map(|text| serde_json::from_str::<serde_json::Value>(text).unwrap())
        .filter(|event| event["event"] == "alarm")
        .map(|event| format!("{} {} at {}", event["kind"], event["what"], event["where"]))
        .collect();
    alarms.sort();
    assert_eq!(
        alarms,
        [
            "\"replaced\" \"_pytest.reports.TestReport.__repr__ replaced\" at \"test_between.py:9\"",
            "\"replaced\" \"_pytest.runner.show_test_item replaced\" at \"test_between.py:10\"",
        ],
        "{printed}"
    );
}

#[test]
fn the_witness_folder_is_off_the_import_path_once_pytest_is_configured() {
    // Every later import would search it first (it is on PYTHONPATH, before the installed
    // packages); the run's own folder stays.
    let tests = "import os\nimport sys\n\n\ndef test_path():\n    \
                 folder = os.environ['PYTHONPATH']\n    \
                 assert [entry for entry in sys.path if os.path.abspath(entry) == folder] == []\n    \
                 assert os.getcwd() in sys.path\n";
    let (lines, printed) = witnessed("test_path.py", tests, &[]);
    let heard = Heard::of(std::slice::from_ref(&lines))
        .unwrap_or_else(|reason| panic!("{reason:?}: {printed}"));
    assert_eq!(
        heard.cases.get("test_path.py::test_path"),
        Some(&CaseOutcome::Passed),
        "{printed}"
    );
}
