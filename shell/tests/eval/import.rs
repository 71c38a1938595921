//! `mend eval import`: instance files of SWE-bench's shape become suites, whole or not at all,
//! every refused row named with why; 500 rows take seconds.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common;

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .trim()
        .to_owned()
}

/// A mirror `repos/acme__calc` with a base commit and a later fix: returns the base's id.
fn mirror(repos: &Path) -> String {
    let dir = repos.join("acme__calc");
    fs::create_dir_all(&dir).expect("mkdir");
    git(&dir, &["init", "-q"]);
    fs::write(dir.join("calc.py"), "def add(a, b):\n    return a - b\n").expect("write");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "base"]);
    let base = git(&dir, &["rev-parse", "HEAD"]);
    fs::write(dir.join("calc.py"), "def add(a, b):\n    return a + b\n").expect("write");
    git(&dir, &["commit", "-qam", "fix"]);
    base
}

const GOLD: &str = "diff --git a/calc.py b/calc.py\nindex 1..2 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n";
const TEST_PATCH: &str = "diff --git a/test_calc.py b/test_calc.py\nnew file mode 100644\nindex 0..1\n--- /dev/null\n+++ b/test_calc.py\n@@ -0,0 +1,5 @@\n+from calc import add\n+\n+\n+def test_add():\n+    assert add(2, 3) == 5\n";

fn row(id: &str, base: &str) -> serde_json::Value {
    json!({
        "instance_id": id,
        "repo": "acme/calc",
        "base_commit": base,
        "patch": GOLD,
        "test_patch": TEST_PATCH,
        "problem_statement": "add(2, 3) returns -1.\nIt should add.",
        "FAIL_TO_PASS": "[\"test_calc.py::test_add\"]",
        "PASS_TO_PASS": [],
        "version": "1.0",
        "environment_setup_commit": base,
    })
}

fn lines(rows: &[serde_json::Value]) -> String {
    rows.iter().map(|row| format!("{row}\n")).collect()
}

/// `mend eval import FILE --out OUT`, then the `extra` arguments.
fn import(file: &Path, out: &Path, extra: &[&str]) -> common::Outcome {
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    common::mend(&[&["eval", "import", file, "--out", out], extra].concat())
}

/// Every entry directly in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn rows_become_tasks_and_every_refused_row_is_named() {
    let dir = tempfile::tempdir().expect("temp");
    let repos = dir.path().join("repos");
    let base = mirror(&repos);
    let mut bad_lists = row("acme__calc-3", &base);
    bad_lists["FAIL_TO_PASS"] = json!("[oops");
    let mut unknown = row("other__x-1", &base);
    unknown["repo"] = json!("other/x");
    let mut no_command = row("acme__calc-4", &base);
    no_command["repo"] = json!("acme/nothing");
    let mut own_command = row("acme__calc-2", &base);
    own_command["test_cmd"] = json!("python -m pytest -rA test_calc.py");
    let rows = [
        row("acme__calc-1", &base),
        own_command,
        bad_lists,
        unknown,
        row("acme__calc-1", &base),
        json!([1]),
    ];
    let file = dir.path().join("instances.jsonl");
    fs::write(&file, format!("{}\n{}", lines(&rows), "")).expect("write");
    let out = dir.path().join("suite");
    let done = import(
        &file,
        &out,
        &[
            "--repos",
            repos.to_str().unwrap(),
            "--test-command",
            "python -m pytest -q",
        ],
    );
    let _ = no_command;
    let file_name = file.display();
    let refused: Vec<&str> = done
        .stderr
        .lines()
        .filter(|line| line.contains("not imported"))
        .collect();
    assert_eq!(
        (done.code, refused),
        (
            1,
            vec![
                format!("mend: eval import: not imported: {file_name}:3: acme__calc-3: `FAIL_TO_PASS` is a string but not a JSON list of test ids: expected value at line 1 column 2").as_str(),
                format!("mend: eval import: not imported: {file_name}:4: other__x-1: no clone of other/x in {} (looked for {} and {}) and no image — clone it there, or give --image-template", repos.display(), repos.join("other__x").display(), repos.join("other/x").display()).as_str(),
                format!("mend: eval import: not imported: {file_name}:5: acme__calc-1: a row before it has the same instance_id").as_str(),
                format!("mend: eval import: not imported: {file_name}:6: not a JSON object").as_str(),
            ]
        ),
        "{}{}",
        done.stdout,
        done.stderr
    );
    assert!(done.stdout.contains(&format!("acme__calc-1                             acme/calc at {} from {}; tests: --test-command", &base[..12], repos.join("acme__calc").display())), "{}", done.stdout);
    assert!(
        done.stdout.contains("tests: the row's test_cmd"),
        "{}",
        done.stdout
    );

    let task = out.join("tasks/acme__calc-1");
    assert_eq!(
        fs::read_to_string(task.join("mend.toml")).expect("task file"),
        format!(
            "# Imported by `mend eval import` from {file_name}:1: acme__calc-1, acme/calc at {base}.\n# Test command: --test-command.\n\n\
             [task]\nprompt = \"\"\"\nadd(2, 3) returns -1.\nIt should add.\"\"\"\n\n\
             [paths]\nreadable = [\"**\"]\neditable = [\"**\"]\n\n\
             [test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 1800\nreport = \"pytest\"\nfiles = [\"test_calc.py\"]\npatch = \".mend/test.patch\"\nfail_to_pass = [\"test_calc.py::test_add\"]\npass_to_pass = []\n\n\
             [tools]\nenabled = [\"list_files\", \"grep\", \"read_file\", \"write_file\", \"replace_text\", \"run_tests\", \"shell\"]\n\n\
             [copy]\nexclude = [\".mend\", \".pytest_cache\", \"__pycache__\", \".mypy_cache\", \".ruff_cache\", \".tox\", \".nox\", \"mend.toml\"]\nhistory = \"base\"\n"
        )
    );
    assert_eq!(
        (
            fs::read_to_string(task.join(".mend/test.patch")).expect("test patch"),
            fs::read_to_string(out.join("gold/acme__calc-1.patch")).expect("gold"),
            fs::read_to_string(task.join("calc.py")).expect("checked out"),
            git(&task, &["rev-parse", "HEAD"]),
            git(&task, &["status", "--porcelain"]),
        ),
        (
            TEST_PATCH.to_owned(),
            GOLD.to_owned(),
            "def add(a, b):\n    return a - b\n".to_owned(),
            base.clone(),
            String::new()
        )
    );
    let names = names_in(dir.path());
    assert_eq!(
        names,
        ["instances.jsonl", "repos", "suite"],
        "no staging folder is left behind"
    );
    // The suite reads as one: both tasks, by their ids.
    let tasks = names_in(&out.join("tasks"));
    assert_eq!(tasks, ["acme__calc-1", "acme__calc-2"]);
}

#[test]
fn an_import_that_makes_no_task_or_meets_an_existing_folder_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp");
    let file = dir.path().join("instances.jsonl");
    fs::write(&file, "{\"instance_id\":\"a\"}\n").expect("write");
    let out = dir.path().join("suite");
    let none = import(&file, &out, &[]);
    fs::create_dir(dir.path().join("taken")).expect("mkdir");
    let taken = import(&file, &dir.path().join("taken"), &[]);
    let template = import(&file, &out, &["--image-template", "x/{nope}"]);
    let reader = import(&file, &out, &["--test-report", "xunit"]);
    assert_eq!(
        [(none.code, none.stderr.lines().last().unwrap_or("").to_owned()), (taken.code, taken.stderr.trim().to_owned()), (template.code, template.stderr.trim().to_owned()), (reader.code, reader.stderr.trim().to_owned())],
        [
            (4, format!("mend: error: no row of {} became a task (1 refused, named above); nothing was written", file.display())),
            (2, format!("mend: error: {} already exists — name a new folder for the suite (an import never writes into an existing one)", dir.path().join("taken").display())),
            (2, "mend: error: --image-template: unknown field {nope}; use {instance_id}, {docker_id}, {repo}, {owner}, {name}, {version}".to_owned()),
            (2, "mend: error: --test-report xunit: use one of pytest, pytest-ra, django, sympy, libtest, exit_code".to_owned()),
        ]
    );
    let names = names_in(dir.path());
    assert_eq!(names, ["instances.jsonl", "taken"]);
}

/// 500 instances of SWE-bench's shape (django's, sympy's and requests' repositories, each row's
/// image from the template) take seconds, and each task gets the harness's command.
#[test]
fn five_hundred_instances_import_in_seconds() {
    let dir = tempfile::tempdir().expect("temp");
    let repos_and_versions = [
        ("django/django", "3.0"),
        ("sympy/sympy", "1.12"),
        ("psf/requests", "2.4"),
    ];
    let rows: Vec<serde_json::Value> = (0..500)
        .map(|number| {
            let (repo, version) = repos_and_versions[number % 3];
            let mut row = row(
                &format!("{}-{number}", repo.replace('/', "__")),
                "0123456789abcdef",
            );
            row["repo"] = json!(repo);
            row["version"] = json!(version);
            row["problem_statement"] = json!("x".repeat(4000));
            row
        })
        .collect();
    let file = dir.path().join("instances.jsonl");
    fs::write(&file, lines(&rows)).expect("write");
    let out = dir.path().join("suite");
    let done = import(
        &file,
        &out,
        &[
            "--image-template",
            "swebench/sweb.eval.x86_64.{docker_id}:latest",
        ],
    );
    // Its time is the bench's (`eval_check`: 500 rows), not a limit asserted here.
    assert_eq!(done.code, 0, "{}", done.stderr);
    let django = fs::read_to_string(out.join("tasks/django__django-0/mend.toml")).expect("task");
    let sympy = fs::read_to_string(out.join("tasks/sympy__sympy-1/mend.toml")).expect("task");
    let pick = |text: &str, key: &str| {
        text.lines()
            .find(|line| line.starts_with(key))
            .unwrap_or("")
            .to_owned()
    };
    assert_eq!(
        [pick(&django, "command"), pick(&django, "report"), pick(&django, "image"), pick(&sympy, "command"), pick(&sympy, "env")],
        [
            "command = [\"sh\", \"-c\", 'if [ -f /opt/miniconda3/bin/activate ]; then . /opt/miniconda3/bin/activate && conda activate testbed || exit 1; fi; exec \"$@\"', \"sh\", \"python\", \"./tests/runtests.py\", \"--verbosity\", \"2\", \"--settings=test_sqlite\", \"--parallel\", \"1\", \"test_calc\"]".to_owned(),
            "report = \"django\"".to_owned(),
            "image = \"swebench/sweb.eval.x86_64.django_1776_django-0:latest\"".to_owned(),
            "command = [\"sh\", \"-c\", 'if [ -f /opt/miniconda3/bin/activate ]; then . /opt/miniconda3/bin/activate && conda activate testbed || exit 1; fi; exec \"$@\"', \"sh\", \"python\", \"bin/test\", \"-C\", \"--verbose\", \"test_calc.py\"]".to_owned(),
            "env = [\"PYTHONWARNINGS=ignore::UserWarning,ignore::SyntaxWarning\"]".to_owned(),
        ]
    );
    assert_eq!(fs::read_dir(out.join("tasks")).expect("tasks").count(), 500);
}
