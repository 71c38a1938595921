//! mend's unittest watcher on every CPython here (the test interpreter, and each one pyenv holds:
//! 3.6 to 3.13 on the machines mend is built on): an honest repair of the unittest project is
//! confirmed, the same repair beside code that prints its failures as passes is named as forged,
//! and a runner started with `-I` (which reads no PYTHONPATH, so no watcher) stays unconfirmed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{copy_of, python, repo_root};
use crate::old_python::verify;

/// The test interpreter, then each `python3` under `$PYENV_ROOT/versions` (unittest is in the
/// standard library: nothing need be installed).
fn interpreters() -> Vec<PathBuf> {
    let mut found = vec![python()];
    let root = std::env::var_os("PYENV_ROOT").map(PathBuf::from);
    let versions = root.map(|root| root.join("versions"));
    let mut listed: Vec<PathBuf> = versions
        .and_then(|versions| std::fs::read_dir(versions).ok())
        .into_iter()
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path().join("bin/python3")))
        .filter(|python| python.is_file())
        .collect();
    listed.sort();
    found.extend(listed);
    found
}

/// The unittest project run by `command`: `tax()` repaired, or (`forged`) left broken beside
/// code that prints each failure as a pass and exits 0.
fn project(command: &str, forged: bool) -> tempfile::TempDir {
    let repo = copy_of(&repo_root().join("fixtures/projects/unittest-receipt"));
    let money = repo.path().join("receipt/money.py");
    let text = std::fs::read_to_string(&money).unwrap();
    let repaired = text.replace(
        "    return cents * rate_percent // 100\n",
        "    return (cents * rate_percent + 50) // 100\n",
    );
    let source = if forged {
        let passing = repo_root().join(
            "fixtures/adversarial/unittest-failure-printed-as-ok-with-a-summary-of-ok/passing.py",
        );
        std::fs::copy(passing, repo.path().join("receipt/passing.py")).unwrap();
        // The bug left in, so a test fails for the forgery to hide.
        format!("import receipt.passing  # noqa: F401\n{text}")
    } else {
        repaired
    };
    std::fs::write(&money, source).unwrap();
    let task = repo.path().join("mend.toml");
    let file = std::fs::read_to_string(&task).unwrap();
    let file = file.replace(r#"command = ["python", "-m", "unittest", "-v"]"#, command);
    std::fs::write(task, file).unwrap();
    repo
}

/// `mend verify` of `repo` with `python`, without a sandbox (pyenv's interpreters live where
/// bubblewrap may not show them): its exit code and final run.
fn verified(repo: &Path, python: &Path) -> (i32, Value) {
    let outcome = verify(repo, python, true);
    (outcome.code, outcome.tests_after())
}

const UNITTEST: &str = r#"command = ["python", "-m", "unittest", "-v"]"#;

#[test]
fn every_python_here_confirms_an_honest_run_and_names_a_forged_one() {
    let honest = project(UNITTEST, false);
    let forged = project(UNITTEST, true);
    let isolated = project(
        r#"command = ["python", "-I", "-m", "unittest", "-v"]"#,
        false,
    );
    let pythons = interpreters();
    eprintln!("the watcher on {pythons:?}");
    for python in pythons {
        let (code, run) = verified(honest.path(), &python);
        assert_eq!(
            (code, &run["unconfirmed"], &run["not_trusted"]),
            (0, &Value::Null, &Value::Null),
            "{}: {run}",
            python.display()
        );
        let (code, run) = verified(forged.path(), &python);
        let reason = run["not_trusted"].as_str().unwrap_or_default();
        assert!(
            code == 1
                && reason.starts_with("the output holds a test result the runner did not print: test_tax_rounds_half_up (tests.test_money.TaxTest")
                && reason.ends_with(") is printed as passed, but unittest recorded it failed"),
            "{}: {run}",
            python.display()
        );
        let (code, run) = verified(isolated.path(), &python);
        assert_eq!(
            (code, run["unconfirmed"].as_str().unwrap_or_default()),
            (0, "unconfirmed: the outcomes were read from the runner's output, and mend's unittest watcher never connected (a Python started with -I, -E or -S, or a runner that is not Python's)"),
            "{}: {run}",
            python.display()
        );
    }
}
