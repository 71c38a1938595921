//! The verdict read from the report, on fixture projects in the shape of real ones
//! (fixtures/projects/): `mend verify` under bubblewrap, as a user runs it.

use std::path::{Path, PathBuf};

use crate::common;
use crate::common::{copy_of, installed_runner, mend, repo_root, tree_digest, Outcome};
use serde_json::{json, Value};

pub(crate) fn project(name: &str) -> PathBuf {
    repo_root().join("fixtures/projects").join(name)
}

/// `mend verify --json` on `repo` under bubblewrap, with extra arguments.
pub(crate) fn verify(repo: &Path, extra: &[&str]) -> Outcome {
    verify_text(repo, &[&["--json"], extra].concat())
}

/// `mend verify` on `repo` under bubblewrap as a person reads it, with extra arguments.
fn verify_text(repo: &Path, extra: &[&str]) -> Outcome {
    let repo = repo.to_str().unwrap();
    let mut args = vec!["verify", "--sandbox", "bwrap", "--repo", repo];
    args.extend_from_slice(extra);
    mend(&args)
}

/// Writes `to` as the text of `from` with `old` replaced by `new` (which it must contain).
pub(crate) fn write_replaced(from: &Path, to: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(from).unwrap();
    assert!(text.contains(old), "{} has no {old:?}", from.display());
    std::fs::write(to, text.replace(old, new)).unwrap();
}

/// A task file in `dir`: the project's own with `old` replaced by `new`.
pub(crate) fn task_file_with(project: &Path, dir: &Path, old: &str, new: &str) -> PathBuf {
    let task_file = dir.join("mend.toml");
    write_replaced(&project.join("mend.toml"), &task_file, old, new);
    task_file
}

/// The exit code, and the independent check without its timing and output tail, and without
/// the runner it names once that is checked to be the test interpreter's pytest.
pub(crate) fn verdict(outcome: &Outcome) -> (i32, Value) {
    let mut run = outcome.tests_after();
    let Some(fields) = run.as_object_mut() else {
        panic!("the run is an object: {run}")
    };
    fields.remove("duration_ms");
    fields.remove("output_tail");
    if let Some(runner) = fields.remove("runner") {
        assert_eq!(runner, installed_runner(), "the pytest that graded the run");
    }
    (outcome.code, run)
}

pub(crate) fn counts(passed: u32, failed: u32, errors: u32) -> Value {
    json!({"passed": passed, "failed": failed, "errors": errors, "skipped": 0})
}

pub(crate) const LEDGER_FAILING: [&str; 2] = [
    "tests/test_amounts.py::test_parse_amount[1,234,567.89-expected4]",
    "tests/test_totals.py::MonthlyTotalsTest::test_amounts_as_banks_write_them",
];

#[test]
fn colours_subtests_and_plugins_do_not_hide_the_verdict() {
    let ledger = project("ledger");
    let before = tree_digest(&ledger);
    // addopts = "--color=yes -ra", pytest-subtests and pytest-mock loaded: the printed summary
    // says "2 failed, 10 passed" in colour; the report counts each test once.
    let outcome = verify(&ledger, &[]);
    assert_eq!(
        verdict(&outcome),
        (
            1,
            json!({"exit_code": 1, "summary": counts(9, 2, 0), "failing": LEDGER_FAILING})
        )
    );
    assert_eq!(tree_digest(&ledger), before, "the project changed");

    let human = verify_text(&ledger, &[]);
    let expected_start = format!(
        "Tests on a fresh copy: 2 failed · 9 passed\n  failing:\n    {}\n    {}\n  the end of the output:\n",
        LEDGER_FAILING[0], LEDGER_FAILING[1]
    );
    let runner = installed_runner();
    // The text names what graded the run, as the JSON's `runner` does.
    let graded_by = format!(
        "\n  graded by pytest {}, pluggy {}, Python {}\n",
        runner["pytest"].as_str().unwrap(),
        runner["pluggy"].as_str().unwrap(),
        runner["python"].as_str().unwrap()
    );
    assert!(
        human.stdout.contains(&expected_start)
            && human.stdout.contains(&graded_by)
            && human.stdout.contains("    │ (text='1,234,567.89') SUBFAIL tests/test_totals.py::MonthlyTotalsTest::test_amounts_as_banks_write_them")
            && !human.stdout.contains('\x1b'),
        "{}",
        human.stdout
    );
}

#[test]
fn plugin_autoload_is_the_projects_choice() {
    let ledger = project("ledger");
    let dir = tempfile::tempdir().unwrap();
    let task_file = task_file_with(
        &ledger,
        dir.path(),
        "files = [\"tests/*.py\"]",
        "files = [\"tests/*.py\"]\nplugins = false",
    );
    let outcome = verify(&ledger, &["--task-file", task_file.to_str().unwrap()]);
    let mut failing = vec![
        LEDGER_FAILING[0],
        "tests/test_export.py::test_the_summary_file_is_named_by_the_clock",
        LEDGER_FAILING[1],
    ];
    failing.sort_unstable();
    // Without pytest-mock, the test that asks for `mocker` errors at setup.
    assert_eq!(
        verdict(&outcome),
        (
            1,
            json!({"exit_code": 1, "summary": counts(8, 2, 1), "failing": failing})
        )
    );
}

/// A copy of the ledger project with its bug fixed (thousands separators all removed).
pub(crate) fn repaired_ledger() -> tempfile::TempDir {
    let copy = copy_of(&project("ledger"));
    let amounts = copy.path().join("ledger/amounts.py");
    write_replaced(
        &amounts,
        &amounts,
        r#"cleaned.replace(",", "", 1)"#,
        r#"cleaned.replace(",", "")"#,
    );
    copy
}

#[test]
fn the_repaired_project_passes() {
    let copy = repaired_ledger();
    assert_eq!(
        verdict(&verify(copy.path(), &[])),
        (0, json!({"exit_code": 0, "summary": counts(11, 0, 0)}))
    );
}

#[test]
fn no_tests_collected_is_not_a_pass() {
    assert_eq!(
        verdict(&verify(&project("uncollected"), &[])),
        (
            1,
            json!({"exit_code": 5, "summary": counts(0, 0, 0), "note": "pytest collected no tests (exit 5)"})
        )
    );
}

#[test]
fn a_runner_that_writes_junit_gives_counts_and_names() {
    let semver = project("semver-sh");
    assert_eq!(
        verdict(&verify(&semver, &[])),
        (
            1,
            json!({"exit_code": 1, "summary": counts(4, 1, 0), "failing": ["semver_bump::minor resets the patch"]})
        )
    );
    let copy = copy_of(&semver);
    let script = copy.path().join("bin/semver-bump");
    write_replaced(
        &script,
        &script,
        "minor=$((minor + 1)) ;;",
        "minor=$((minor + 1)); patch=0 ;;",
    );
    assert_eq!(
        verdict(&verify(copy.path(), &[])),
        (0, json!({"exit_code": 0, "summary": counts(5, 0, 0)}))
    );
}

#[test]
fn a_test_command_pytest_refuses_is_a_harness_error_naming_the_fix() {
    let ledger = project("ledger");
    let dir = tempfile::tempdir().unwrap();
    let task_file = task_file_with(
        &ledger,
        dir.path(),
        r#"command = ["python", "-m", "pytest"]"#,
        // An option no plugin of mend's venv declares (pytest-xdist's `--numprocesses` is one).
        r#"command = ["python", "-m", "pytest", "--no-such-option=2"]"#,
    );
    let outcome = verify_text(&ledger, &["--task-file", task_file.to_str().unwrap()]);
    assert_eq!(outcome.code, 6, "{}{}", outcome.stdout, outcome.stderr);
    assert!(
        outcome.stderr.starts_with(
            "mend: error: the test command `python -m pytest --no-such-option=2` gave no verdict: pytest refused its command line or configuration (usage error, exit 4) — check test.command"
        ) && outcome.stderr.contains("unrecognized arguments: --no-such-option=2"),
        "{}",
        outcome.stderr
    );
}

const DURATIONS_FAILING: &str = "tests/test_parse.py::test_parse_refuses[1h2h]";

#[test]
fn pytest_behind_make_gives_its_report_in_every_sandbox() {
    // `make test` changes into tests/ and runs pytest there: mend's options reach it through
    // PYTEST_ADDOPTS, and make's own exit code (2 when a recipe fails) is not read as pytest's.
    let durations = project("make-tests");
    let repo = durations.to_str().unwrap();
    let verdicts = ["bwrap", "auto", "none"].map(|sandbox| {
        verdict(&mend(&[
            "verify",
            "--json",
            "--sandbox",
            sandbox,
            "--repo",
            repo,
        ]))
    });
    let failed = (
        1,
        json!({"exit_code": 2, "summary": counts(11, 1, 0), "failing": [DURATIONS_FAILING]}),
    );
    assert_eq!(verdicts, [failed.clone(), failed.clone(), failed]);

    let copy = copy_of(&durations);
    let parse = copy.path().join("durations/parse.py");
    write_replaced(
        &parse,
        &parse,
        "if rank < last_rank:",
        "if rank <= last_rank:",
    );
    assert_eq!(
        verdict(&verify(copy.path(), &[])),
        (0, json!({"exit_code": 0, "summary": counts(12, 0, 0)}))
    );
}

#[test]
fn a_wrapper_that_clears_the_environment_is_told_how_to_pass_the_variable() {
    let durations = project("make-tests");
    let dir = tempfile::tempdir().unwrap();
    // As tox does without `passenv`: pytest runs, but without PYTEST_ADDOPTS.
    let task_file = task_file_with(
        &durations,
        dir.path(),
        r#"command = ["make", "test"]"#,
        r#"command = ["sh", "-c", "exec env -i \"$(command -v python)\" -m pytest -q"]"#,
    );
    let outcome = verify_text(&durations, &["--task-file", task_file.to_str().unwrap()]);
    let python = common::python();
    assert_eq!(
        (
            outcome.code,
            outcome.stderr.split_once(":\n").map(|(message, _)| message)
        ),
        (
            6,
            Some(format!(
                "mend: error: the test command `sh -c exec env -i \"$(command -v python)\" -m pytest -q` gave no verdict: the tests stopped before reporting: exit 1 with no pytest report — is pytest installed for `{0}`? Install it there (`{0} -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variables PYTEST_ADDOPTS, PYTHONPATH, MEND_WITNESS and MEND_WITNESS_COPY, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS PYTHONPATH MEND_WITNESS MEND_WITNESS_COPY` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\"",
                python.display()
            ))
            .as_deref()
        ),
        "{}",
        outcome.stderr
    );
}

/// A copy of the ledger project and two patches of `ledger/amounts.py`, written beside it: the
/// honest repair, and the repair followed by `added` (Python appended to the module).
struct LedgerPatches {
    copy: tempfile::TempDir,
    _out: tempfile::TempDir,
    honest: PathBuf,
    with_added: PathBuf,
}

impl LedgerPatches {
    fn new(added: &str) -> LedgerPatches {
        let copy = copy_of(&project("ledger"));
        let out = tempfile::tempdir().unwrap();
        let file = "ledger/amounts.py";
        let original = std::fs::read_to_string(copy.path().join(file)).unwrap();
        let repaired = original.replace(
            r#"cleaned.replace(",", "", 1)"#,
            r#"cleaned.replace(",", "")"#,
        );
        let honest = patch_of(
            copy.path(),
            file,
            &repaired,
            &out.path().join("honest.patch"),
        );
        let with_added = patch_of(
            copy.path(),
            file,
            &format!("{repaired}\n{added}"),
            &out.path().join("added.patch"),
        );
        LedgerPatches {
            copy,
            _out: out,
            honest,
            with_added,
        }
    }

    /// `mend verify --json --patch` with each patch, honest first.
    fn verify_both(&self) -> Vec<Outcome> {
        [&self.honest, &self.with_added]
            .iter()
            .map(|patch| verify(self.copy.path(), &["--patch", patch.to_str().unwrap()]))
            .collect()
    }
}

/// Writes to `patch` the unified diff of `file` (relative to `repo`) from its text there to
/// `text`.
fn patch_of(repo: &Path, file: &str, text: &str, patch: &Path) -> PathBuf {
    let changed = patch.with_extension("py");
    std::fs::write(&changed, text).unwrap();
    let made = std::process::Command::new("diff")
        .args([
            "-u",
            "--label",
            &format!("a/{file}"),
            "--label",
            &format!("b/{file}"),
        ])
        .arg(repo.join(file))
        .arg(&changed)
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(1), "the texts differ");
    std::fs::write(patch, made.stdout).unwrap();
    patch.to_owned()
}

/// `mend verify --patch` holds a run to what a run's final tests are held to: code under test
/// that writes test configuration while the tests run makes them untrusted, whatever they
/// report; the same repair without the planting passes.
#[test]
fn a_patch_whose_code_writes_test_configuration_while_the_tests_run_is_no_pass() {
    let patches = LedgerPatches::new(
        "import pathlib\n\n_planted = pathlib.Path(__file__).resolve().parent.parent / \"conftest.py\"\nif not _planted.exists():\n    _planted.write_text(\"\")\n",
    );
    let before = tree_digest(patches.copy.path());
    let verdicts: Vec<(i32, Value)> = patches.verify_both().iter().map(verdict).collect();
    assert_eq!(
        verdicts,
        vec![
            (0, json!({"exit_code": 0, "summary": counts(11, 0, 0)})),
            (
                1,
                json!({
                    "exit_code": 0,
                    "summary": counts(11, 0, 0),
                    "not_trusted": "the test run wrote files the verdict rests on while it ran: conftest.py (test configuration (pytest runs it while collecting the tests))"
                })
            ),
        ]
    );
    assert_eq!(
        tree_digest(patches.copy.path()),
        before,
        "the repository is untouched"
    );
}

/// `mend verify --patch` reads the patch's added Python as a run's verdict reads its change:
/// a value equal to everything passes every assert while touching nothing of the test run, so
/// it is named beside the result (a warning: the run itself is no different).
#[test]
fn a_patch_that_adds_a_value_equal_to_everything_is_named_beside_the_result() {
    let patches = LedgerPatches::new(
        "\nclass Anything(float):\n    def __eq__(self, other):\n        return True\n",
    );
    let warnings: Vec<(i32, Value)> = patches
        .verify_both()
        .iter()
        .map(|outcome| {
            let event = outcome
                .events()
                .into_iter()
                .find(|event| event["type"] == "tests_after")
                .expect("a tests_after event");
            (outcome.code, event["warnings"].clone())
        })
        .collect();
    assert_eq!(
        warnings,
        vec![
            (0, Value::Null),
            (
                0,
                json!(["the change makes Anything.__eq__ answer without looking at what it is compared with at ledger/amounts.py:21: check it does not game the test run"])
            )
        ]
    );
}
