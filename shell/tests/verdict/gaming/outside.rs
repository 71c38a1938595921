//! Files pytest finds by walking up from the tests, planted above the copy: a configuration where
//! the project keeps none, and a `conftest.py` (pytest 6.x loads those of every folder above the
//! tests). Whoever can write the folders above every copy writes them there — without a sandbox,
//! the code under test of an earlier run, writing into the temporary folder — and each shapes the
//! final run while being no file of the repository's: the witness names it, and the run is no
//! pass. Here the folder above the copies is one of the test's own (mend's `TMPDIR`), outside
//! /tmp so that bubblewrap shows it as it is, and the files are written there directly.

use std::path::Path;

use serde_json::Value;

use super::game::{init, Project, TAX_TEST};
use crate::common::{copy_of, installed_runner, mend_with_env, repo_root, Outcome};

/// A module put in place of the project's, fixed: every test of it then passes.
const SUBSTITUTING_CONFTEST: &str = "import sys, types\n\
    _fixed = types.ModuleType('invoice.totals')\n\
    exec('def tax(subtotal_cents, rate_percent):\\n    return (subtotal_cents * rate_percent + 50) // 100\\n', _fixed.__dict__)\n\
    sys.modules['invoice.totals'] = _fixed\n";

/// `mend verify --json` of the invoice project, whose pyproject.toml keeps no pytest section
/// (so pytest looks for its configuration above the copy), with `planted` written into the folder
/// mend makes its copies in, and the task's test command made by `command` from that folder
/// (the TOML array), when given. Returns the outcome and that folder.
fn verify_beneath(
    sandbox: &str,
    planted: &[(&str, &str)],
    command: Option<&dyn Fn(&Path) -> String>,
) -> (Outcome, tempfile::TempDir) {
    let repo = copy_of(&Project::Invoice.folder());
    let pyproject = repo.path().join("pyproject.toml");
    let own = std::fs::read_to_string(&pyproject).unwrap();
    let section = "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n";
    assert!(own.contains(section), "the fixture's pytest section moved");
    std::fs::write(&pyproject, own.replace(section, "")).unwrap();
    init(repo.path());
    let repo_arg = repo.path().to_str().unwrap();
    let above = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for (name, text) in planted {
        std::fs::write(above.path().join(name), text).unwrap();
    }
    if let Some(command) = command {
        let task_file = repo.path().join("mend.toml");
        let task = std::fs::read_to_string(&task_file).unwrap();
        let init_wrote = "command = [\"python\", \"-m\", \"pytest\", \"-q\"]";
        assert!(
            task.contains(init_wrote),
            "mend init's test command changed"
        );
        let ours = format!("command = {}", command(above.path()));
        std::fs::write(&task_file, task.replace(init_wrote, &ours)).unwrap();
    }
    let outcome = mend_with_env(
        &repo_root(),
        &["verify", "--json", "--sandbox", sandbox, "--repo", repo_arg],
        &[("TMPDIR", above.path().to_str().unwrap())],
    );
    (outcome, above)
}

/// What a verify said: its exit code, the failing ids of its run and why the run is not trusted.
fn verdict(outcome: &Outcome) -> (i32, Value, Value) {
    let run = outcome.tests_after();
    (
        outcome.code,
        run["failing"].clone(),
        run["not_trusted"].clone(),
    )
}

fn outside(above: &Path, what: &str) -> Value {
    Value::from(format!(
        "pytest read a file from outside the copy: {what} {}",
        above.display()
    ))
}

fn configuration_above_the_copy(sandbox: &str) {
    let ini = format!("[pytest]\naddopts = --deselect {TAX_TEST}\n");
    let (outcome, above) = verify_beneath(sandbox, &[("pytest.ini", &ini)], None);
    let (code, _, not_trusted) = verdict(&outcome);
    // (The failing ids are named from the rootdir the planted file made: its own folder.)
    assert_eq!(
        (code, not_trusted),
        (
            1,
            outside(&above.path().join("pytest.ini"), "its configuration")
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
}

fn conftest_above_the_copy(sandbox: &str) {
    let (outcome, above) = verify_beneath(sandbox, &[("conftest.py", SUBSTITUTING_CONFTEST)], None);
    let loads_conftests_above = installed_runner()["pytest"]
        .as_str()
        .is_some_and(|version| version.starts_with("6."));
    let (code, failing, not_trusted) = verdict(&outcome);
    if loads_conftests_above {
        // What the substituted module leaves of the tests is not the point: the run is no pass.
        assert_eq!(
            (code, not_trusted),
            (
                1,
                outside(&above.path().join("conftest.py"), "the conftest")
            ),
            "{}\n{}",
            outcome.stdout,
            outcome.stderr
        );
    } else {
        // pytest 7 and later stop at the rootdir: the conftest above is never read, and the
        // bug the project holds fails its test.
        assert_eq!(
            (code, failing, not_trusted),
            (1, serde_json::json!([TAX_TEST]), Value::Null),
            "{}\n{}",
            outcome.stdout,
            outcome.stderr
        );
    }
}

/// The task's own command names a configuration outside the copy with `-c`: the user's choice,
/// not a plant, but what the file holds is not the repository's, so the verdict names the check
/// it could not make.
fn configuration_named_outside_the_copy(sandbox: &str) {
    let with_c = |above: &Path| {
        let ini = above.join("ci.ini");
        format!(
            "[\"python\", \"-m\", \"pytest\", \"-q\", \"-c\", {:?}]",
            ini.to_str().unwrap()
        )
    };
    let (outcome, above) = verify_beneath(sandbox, &[("ci.ini", "[pytest]\n")], Some(&with_c));
    let run = outcome.tests_after();
    let named = format!(
        "pytest's configuration {} (the test command names it with -c, outside the copy: what it \
         holds is not the repository's)",
        above.path().join("ci.ini").display()
    );
    assert_eq!(
        (outcome.code, &run["not_trusted"], outside_checks(&run)),
        (1, &Value::Null, vec![named.as_str()]),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
}

/// The checks not made that are about files outside the copy (Python 3.6 and 3.7 name the
/// audit hook as one as well).
fn outside_checks(run: &Value) -> Vec<&str> {
    run["unchecked"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|check| {
            check.starts_with("pytest's configuration") || check.contains("above the copy")
        })
        .collect()
}

/// A wrapper that passes mend's variables on but the copy's folder: the witness cannot tell what
/// lies outside the copy, and says so.
fn copy_not_passed_on(sandbox: &str) {
    let wrapper = |_: &Path| {
        "[\"sh\", \"-c\", \"exec env -u MEND_WITNESS_COPY python -m pytest -q\"]".to_owned()
    };
    let (outcome, _above) = verify_beneath(sandbox, &[], Some(&wrapper));
    let run = outcome.tests_after();
    assert_eq!(
        (outcome.code, &run["failing"], outside_checks(&run)),
        (
            1,
            &serde_json::json!([TAX_TEST]),
            vec![
                "the files pytest read from above the copy (its configuration, conftest.py) \
                 (MEND_WITNESS_COPY did not reach pytest: a wrapper that passes variables on \
                 must pass it too)"
            ]
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
}

in_both_sandboxes! {
    copy_not_passed_on,
    configuration_above_the_copy,
    conftest_above_the_copy,
    configuration_named_outside_the_copy,
}
