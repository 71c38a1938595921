//! `mend eval check`: the shipped suite's tasks are valid and its committed check is current; a
//! task without a bug, one whose gold patch does not repair it and one whose tests flip are
//! named; and `mend eval` refuses what the check does not vouch for, unless `--unchecked`.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common;

/// `evals/local` with the repositories its suite names, at the same relative places.
fn shipped_suite_copy() -> tempfile::TempDir {
    let root = common::repo_root();
    let dir = tempfile::tempdir().expect("temp dir");
    for (from, to) in [
        ("evals/local/suite.toml", "evals/local/suite.toml"),
        ("evals/local/gold", "evals/local/gold"),
        ("evals/local/paginate", "evals/local/paginate"),
        ("sample-repo", "sample-repo"),
        ("fixtures/slugify-repo", "fixtures/slugify-repo"),
    ] {
        let (from, to) = (root.join(from), dir.path().join(to));
        if from.is_dir() {
            crate::copy_tree(&from, &to);
        } else {
            fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
            fs::copy(&from, &to).expect("copy");
        }
    }
    dir
}

#[test]
fn the_shipped_suite_passes_the_check_and_its_committed_check_is_current() {
    let dir = shipped_suite_copy();
    let suite = dir.path().join("evals/local/suite.toml");
    let outcome = common::mend(&["eval", "check", &suite.display().to_string()]);
    assert_eq!(outcome.code, 0, "{}{}", outcome.stdout, outcome.stderr);
    let written = fs::read_to_string(dir.path().join("evals/local/suite.check.json"))
        .expect("the check is written beside the suite");
    let committed = fs::read_to_string(common::repo_root().join("evals/local/suite.check.json"))
        .expect("evals/local ships its check");
    assert_eq!(
        written, committed,
        "evals/local/suite.check.json is stale: run `mend eval check evals/local/suite.toml`"
    );
}

/// A task folder from `evals/local/paginate`, with `edit` applied to paginate.py.
fn paginate_task(suite_dir: &Path, name: &str, edit: Option<(&str, &str)>) {
    let folder = suite_dir.join("tasks").join(name);
    crate::copy_tree(&common::repo_root().join("evals/local/paginate"), &folder);
    if let Some((old, new)) = edit {
        let path = folder.join("paginate.py");
        let text = fs::read_to_string(&path).expect("paginate.py");
        assert!(text.contains(old));
        fs::write(&path, text.replace(old, new)).expect("paginate.py");
    }
}

/// A task whose test passes every other run: it counts its runs in FLIP_FILE.
fn flipping_task(suite_dir: &Path) {
    let folder = suite_dir.join("tasks/flips");
    fs::create_dir_all(folder.join("tests")).expect("mkdir");
    fs::write(
        folder.join("coin.py"),
        "def side():\n    return \"heads\"\n",
    )
    .expect("coin");
    fs::write(
        folder.join("tests/test_coin.py"),
        "import os\n\nfrom coin import side\n\n\ndef test_side():\n    path = os.environ[\"FLIP_FILE\"]\n    with open(path) as runs:\n        count = int(runs.read() or 0)\n    with open(path, \"w\") as runs:\n        runs.write(str(count + 1))\n    assert count % 2 == 1 or side() == \"tails\"\n",
    )
    .expect("test");
    fs::write(
        folder.join("mend.toml"),
        "[task]\nprompt = \"side() must say tails.\"\n[paths]\nreadable = [\"coin.py\", \"tests/*.py\"]\neditable = [\"coin.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\nplugins = false\nenv = [\"FLIP_FILE\"]\n[tools]\nenabled = [\"read_file\", \"replace_text\", \"run_tests\"]\n",
    )
    .expect("task file");
}

const BROKEN_START: &str = "    start = number * size\n";

/// The check file's verdicts, without the digests.
fn verdicts(check_file: &Path) -> Value {
    let check: Value =
        serde_json::from_str(&fs::read_to_string(check_file).expect("the check")).expect("JSON");
    let tasks: Vec<Value> = check["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|task| {
            json!({
                "task": task["task"],
                "status": task["status"],
                "problems": task["problems"],
                "failing_before": task["failing_before"],
            })
        })
        .collect();
    Value::from(tasks)
}

#[test]
fn tasks_without_a_bug_with_a_gold_patch_that_fails_or_with_flipping_tests_are_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    paginate_task(
        dir.path(),
        "already-fixed",
        Some((BROKEN_START, "    start = (number - 1) * size\n")),
    );
    paginate_task(dir.path(), "wrong-gold", None);
    // A binary file the tools may read: named once for the whole check, not once per run.
    let wrong_gold = dir.path().join("tasks/wrong-gold");
    fs::create_dir_all(wrong_gold.join("assets")).expect("mkdir");
    fs::write(wrong_gold.join("assets/logo.png"), b"\x89PNG\r\n\x1a\n\0\0").expect("png");
    let task_file = wrong_gold.join("mend.toml");
    let text = fs::read_to_string(&task_file).expect("mend.toml");
    fs::write(
        &task_file,
        text.replace(
            "readable = [\"paginate.py\", ",
            "readable = [\"assets/*\", \"paginate.py\", ",
        ),
    )
    .expect("mend.toml");
    flipping_task(dir.path());
    fs::create_dir_all(dir.path().join("gold")).expect("mkdir");
    fs::write(
        dir.path().join("gold/wrong-gold.patch"),
        format!("--- a/paginate.py\n+++ b/paginate.py\n@@ -10,2 +10,2 @@\n         raise ValueError(\"page number and size start at 1\")\n-{BROKEN_START}+    start = number * size - 1\n"),
    )
    .expect("gold");
    let suite = dir.path().join("suite.toml");
    fs::write(
        &suite,
        "tasks = [\"tasks/*\"]\nk = 2\n[model]\nhost = \"http://127.0.0.1:9\"\n",
    )
    .expect("suite");
    let flip_file = dir.path().join("runs");
    fs::write(&flip_file, "0").expect("no run yet");
    let suite_arg = suite.display().to_string();
    let flip = flip_file.display().to_string();
    let env = [("FLIP_FILE", flip.as_str())];
    let checked = common::mend_with_env(
        dir.path(),
        &["eval", "check", &suite_arg, "--sandbox", "none"],
        &env,
    );
    assert_eq!(checked.code, 1, "{}{}", checked.stdout, checked.stderr);
    let warned: Vec<&str> = checked
        .stderr
        .lines()
        .filter(|line| line.starts_with("mend: warning: wrong-gold: "))
        .collect();
    assert_eq!(
        warned,
        ["mend: warning: wrong-gold: assets/logo.png (paths.readable) is a binary file: the tools will not read or edit it; a change to it shows as `Binary files … differ`"],
        "{}",
        checked.stderr
    );
    let first_page = "tests/test_paginate.py::test_first_page_starts_at_the_first_item";
    let last_page = "tests/test_paginate.py::test_last_page_holds_the_rest";
    assert_eq!(
        verdicts(&dir.path().join("suite.check.json")),
        json!([
            {
                "task": "already-fixed",
                "status": "invalid",
                "problems": ["without a change the tests pass (5 passed): there is no bug to fix"],
                "failing_before": [],
            },
            {
                "task": "flips",
                "status": "flaky",
                "problems": ["without a change the tests passed in 1 of 3 runs"],
                "failing_before": ["tests/test_coin.py::test_side"],
            },
            {
                "task": "wrong-gold",
                "status": "invalid",
                "problems": [format!("the gold patch does not pass (2 failed · 3 passed; failing: {first_page}, {last_page})")],
                "failing_before": [first_page, last_page],
            },
        ])
    );

    // The invalid tasks are refused before any model is asked; a task changed since its check
    // too.
    fs::write(
        dir.path().join("tasks/flips/coin.py"),
        "def side():\n    return \"edge\"\n",
    )
    .expect("coin");
    let out = dir.path().join("out").display().to_string();
    let refused = common::mend_with_env(dir.path(), &["eval", &suite_arg, "--out", &out], &env);
    assert_eq!(
        (refused.code, refused.stderr.trim_end().to_owned()),
        (
            4,
            format!(
                "mend: error: 3 task(s) of {suite_arg} are not checked as valid: already-fixed (invalid: without a change the tests pass (5 passed): there is no bug to fix), \
                 flips (changed since its check), wrong-gold (invalid: the gold patch does not pass (2 failed · 3 passed; failing: {first_page}, {last_page})) — \
                 run `mend eval check {suite_arg}` (and fix what it names), or pass --unchecked to run them anyway"
            )
        )
    );
    // --unchecked goes on, to the model server (here none).
    let forced = common::mend_with_env(
        dir.path(),
        &["eval", &suite_arg, "--out", &out, "--unchecked"],
        &env,
    );
    assert_eq!(forced.code, 5, "{}", forced.stderr);
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `mend eval check` of the suite of every task under `dir`'s `tasks/` (one run each, no
/// sandbox), which must find a task invalid.
fn check_failing_suite(dir: &Path) {
    let suite = dir.join("suite.toml");
    fs::write(&suite, "tasks = [\"tasks/*\"]\nk = 1\n").expect("suite");
    let checked = common::mend_in(
        dir,
        &[
            "eval",
            "check",
            &suite.display().to_string(),
            "--sandbox",
            "none",
        ],
    );
    assert_eq!(checked.code, 1, "{}{}", checked.stdout, checked.stderr);
}

/// A gold patch as `git diff` writes it (`diff --git`, `index`, a new file, a mode change) is a
/// gold patch; one that no longer applies is named as such, not as tests without a verdict.
#[test]
fn gold_patches_as_git_diff_writes_them_are_checked_and_one_that_does_not_apply_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    paginate_task(dir.path(), "git-gold", None);
    paginate_task(dir.path(), "stale-gold", None);
    let work = dir.path().join("work");
    crate::copy_tree(&dir.path().join("tasks/git-gold"), &work);
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "base"]);
    let text = fs::read_to_string(work.join("paginate.py")).expect("read");
    fs::write(
        work.join("paginate.py"),
        text.replace(BROKEN_START, "    start = first_index(number, size)\n"),
    )
    .expect("write");
    fs::write(
        work.join("paginate.py"),
        format!(
            "from pages import first_index\n{}",
            fs::read_to_string(work.join("paginate.py")).expect("read")
        ),
    )
    .expect("write");
    fs::write(
        work.join("pages.py"),
        "def first_index(number, size):\n    return (number - 1) * size\n",
    )
    .expect("write");
    git(&work, &["add", "-A"]);
    let gold = git(&work, &["diff", "--cached"]);
    assert!(
        gold.starts_with("diff --git a/pages.py b/pages.py\nnew file mode 100644\nindex "),
        "{gold}"
    );
    fs::create_dir_all(dir.path().join("gold")).expect("mkdir");
    fs::write(dir.path().join("gold/git-gold.patch"), &gold).expect("gold");
    fs::write(
        dir.path().join("gold/stale-gold.patch"),
        gold.replace(
            "-    start = number * size",
            "-    start = number * size * 1",
        ),
    )
    .expect("gold");
    fs::remove_dir_all(&work).expect("rm");
    check_failing_suite(dir.path());
    let first_page = "tests/test_paginate.py::test_first_page_starts_at_the_first_item";
    let last_page = "tests/test_paginate.py::test_last_page_holds_the_rest";
    assert_eq!(
        verdicts(&dir.path().join("suite.check.json")),
        json!([
            {
                "task": "git-gold",
                "status": "valid",
                "problems": [],
                "failing_before": [first_page, last_page],
            },
            {
                "task": "stale-gold",
                "status": "invalid",
                "problems": ["the gold patch does not apply, so its tests did not run: paginate.py: the hunk at line 8 matches nowhere in the file (line 11 is \"    start = number * size\\n\", the diff expects \"    start = number * size * 1\\n\")"],
                "failing_before": [first_page, last_page],
            },
        ])
    );
}

/// A gold patch is held to what a run's final tests are held to: one that repairs the bug but
/// whose code plants test configuration while the tests run is no gold patch.
#[test]
fn a_gold_patch_whose_code_writes_test_configuration_while_the_tests_run_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    paginate_task(dir.path(), "planting-gold", None);
    let original = dir.path().join("tasks/planting-gold/paginate.py");
    let text = fs::read_to_string(&original).expect("paginate.py");
    let planting = format!(
        "import pathlib\n\n_planted = pathlib.Path(__file__).resolve().parent / \"conftest.py\"\n_planted.exists() or _planted.write_text(\"\")\n{}",
        text.replace(BROKEN_START, "    start = (number - 1) * size\n")
    );
    let changed = dir.path().join("paginate.py");
    fs::write(&changed, planting).expect("write");
    let diff = std::process::Command::new("diff")
        .args(["-u", "--label", "a/paginate.py", "--label", "b/paginate.py"])
        .arg(&original)
        .arg(&changed)
        .output()
        .expect("diff runs");
    fs::remove_file(&changed).expect("rm");
    fs::create_dir_all(dir.path().join("gold")).expect("mkdir");
    fs::write(dir.path().join("gold/planting-gold.patch"), diff.stdout).expect("gold");
    check_failing_suite(dir.path());
    assert_eq!(
        verdicts(&dir.path().join("suite.check.json")),
        json!([{
            "task": "planting-gold",
            "status": "invalid",
            "problems": ["with the gold patch the tests give no verdict: the test run wrote files the verdict rests on while it ran: conftest.py (test configuration (pytest runs it while collecting the tests))"],
            "failing_before": [
                "tests/test_paginate.py::test_first_page_starts_at_the_first_item",
                "tests/test_paginate.py::test_last_page_holds_the_rest"
            ],
        }])
    );
}

/// A suite whose interpreter has no pytest (a fresh venv without it): one harness error for the
/// whole suite, said once with the fix, exit 6, and no task marked invalid nor check written.
#[test]
fn a_suite_whose_python_has_no_pytest_is_one_harness_error_not_invalid_tasks() {
    let dir = tempfile::tempdir().expect("temp dir");
    paginate_task(dir.path(), "first", None);
    paginate_task(dir.path(), "second", None);
    let venv = dir.path().join("bare");
    let made = std::process::Command::new(common::python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python runs");
    assert!(made.success(), "a venv without pip");
    let bare = venv.join("bin/python");
    let suite = dir.path().join("suite.toml");
    fs::write(&suite, "tasks = [\"tasks/*\"]\nk = 1\n").expect("suite");
    let checked = common::mend_in(
        dir.path(),
        &[
            "eval",
            "check",
            &suite.display().to_string(),
            "--sandbox",
            "none",
            "--python",
            &bare.display().to_string(),
        ],
    );
    let bare = bare.display();
    assert_eq!(
        (checked.code, checked.stdout.as_str(), checked.stderr.as_str()),
        (
            6,
            "",
            format!(
                "mend: error: the test command `python -m pytest -q` found no runner to run: {bare}: No module named pytest — install it where the tests run (for pytest: `{bare} -m pip install pytest`), or pass --python PATH to an interpreter that has it; nothing was checked or written\n"
            )
            .as_str()
        )
    );
    assert!(!dir.path().join("suite.check.json").exists());
}
