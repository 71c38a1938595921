//! The verdict read from the report, on fixture projects in the shape of real ones
//! (fixtures/projects/): `mend verify` under bubblewrap, as a user runs it.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

mod common;

use std::path::Path;

use common::{copy_of, mend, repo_root, tree_digest, Outcome};
use serde_json::{json, Value};

fn project(name: &str) -> std::path::PathBuf {
    repo_root().join("fixtures/projects").join(name)
}

/// `mend verify --json` on `repo` under bubblewrap, with extra arguments.
fn verify(repo: &Path, extra: &[&str]) -> Outcome {
    let repo = repo.to_str().unwrap();
    let mut args = vec!["verify", "--json", "--sandbox", "bwrap", "--repo", repo];
    args.extend_from_slice(extra);
    mend(&args)
}

/// The exit code, and the independent check without its timing and output tail.
fn verdict(outcome: &Outcome) -> (i32, Value) {
    let mut run = outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == "tests_after")
        .map(|event| event["run"].clone())
        .unwrap_or_else(|| {
            panic!(
                "no tests_after event:\n{}{}",
                outcome.stdout, outcome.stderr
            )
        });
    let Some(fields) = run.as_object_mut() else {
        panic!("the run is an object: {run}")
    };
    fields.remove("duration_ms");
    fields.remove("output_tail");
    (outcome.code, run)
}

fn counts(passed: u32, failed: u32, errors: u32) -> Value {
    json!({"passed": passed, "failed": failed, "errors": errors, "skipped": 0})
}

const LEDGER_FAILING: [&str; 2] = [
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

    let human = mend(&[
        "verify",
        "--sandbox",
        "bwrap",
        "--repo",
        ledger.to_str().unwrap(),
    ]);
    let expected_start = format!(
        "Independent final tests: 2 failed · 9 passed\n  failing:\n    {}\n    {}\n  the end of the output:\n",
        LEDGER_FAILING[0], LEDGER_FAILING[1]
    );
    assert!(
        human.stdout.contains(&expected_start)
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
    let task_file = dir.path().join("mend.toml");
    let task = std::fs::read_to_string(ledger.join("mend.toml")).unwrap();
    std::fs::write(
        &task_file,
        task.replace(
            "files = [\"tests/*.py\"]",
            "files = [\"tests/*.py\"]\nplugins = false",
        ),
    )
    .unwrap();
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

#[test]
fn the_repaired_project_passes() {
    let copy = copy_of(&project("ledger"));
    let amounts = copy.path().join("ledger/amounts.py");
    let text = std::fs::read_to_string(&amounts).unwrap();
    std::fs::write(
        &amounts,
        text.replace(
            r#"cleaned.replace(",", "", 1)"#,
            r#"cleaned.replace(",", "")"#,
        ),
    )
    .unwrap();
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
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        text.replace(
            "minor=$((minor + 1)) ;;",
            "minor=$((minor + 1)); patch=0 ;;",
        ),
    )
    .unwrap();
    assert_eq!(
        verdict(&verify(copy.path(), &[])),
        (0, json!({"exit_code": 0, "summary": counts(5, 0, 0)}))
    );
}

#[test]
fn a_test_command_pytest_refuses_is_a_harness_error_naming_the_fix() {
    let ledger = project("ledger");
    let dir = tempfile::tempdir().unwrap();
    let task_file = dir.path().join("mend.toml");
    let task = std::fs::read_to_string(ledger.join("mend.toml")).unwrap();
    std::fs::write(
        &task_file,
        task.replace(
            r#"command = ["python", "-m", "pytest"]"#,
            r#"command = ["python", "-m", "pytest", "--numprocesses=2"]"#,
        ),
    )
    .unwrap();
    let outcome = mend(&[
        "verify",
        "--sandbox",
        "bwrap",
        "--repo",
        ledger.to_str().unwrap(),
        "--task-file",
        task_file.to_str().unwrap(),
    ]);
    assert_eq!(outcome.code, 6, "{}{}", outcome.stdout, outcome.stderr);
    assert!(
        outcome.stderr.starts_with(
            "mend: error: the test command `python -m pytest --numprocesses=2` gave no verdict: pytest refused its command line or configuration (usage error, exit 4) — check test.command"
        ) && outcome.stderr.contains("unrecognized arguments: --numprocesses=2"),
        "{}",
        outcome.stderr
    );
}
