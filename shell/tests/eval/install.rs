//! Rows without an `eval_script` get the set-up the harness's table gives their repository,
//! and a 5.x row the install its `eval_script` runs: a project in setuptools_scm's shape
//! (fixtures/projects/scm-version: its checkout holds no `_version.py` and no metadata until it
//! is installed) imported as a pytest-dev/pytest row, as a sqlfluff/sqlfluff row and as a row
//! with an `eval_script`, then checked — the gold patch resolves and no change does not —
//! under bubblewrap and without a sandbox, with a plain interpreter and with one whose old-style
//! editable install names the imported task folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common;
use crate::import::git;

const FIXED: &str = "def entry(subject):\n    \"\"\"`fix(parser): handle tabs` -> `Parser: handle tabs`.\"\"\"\n    kind, _, text = subject.partition(\": \")\n    if kind.endswith(\"!\"):\n        kind, text = kind[:-1], text + \" (breaking)\"\n    scope = kind[kind.find(\"(\") + 1 : kind.find(\")\")] if \"(\" in kind else \"\"\n    return \"%s: %s\" % (scope.capitalize(), text) if scope else text\n";
const NEW_TEST: &str = "\n\ndef test_breaking_change():\n    assert entry(\"feat(api)!: drop v1\") == \"Api: drop v1 (breaking)\"\n";

/// The build the harness's `python -m pip install -e .` becomes in the copy.
const BUILD: &str = "python -c \"import setuptools, sys; __file__ = sys.argv[0] = 'setup.py'; exec(compile(open(__file__).read(), __file__, 'exec'))\" --quiet egg_info build_ext --inplace";

/// `repos/<owner>__<name>`: the fixture at its base commit. Returns (base, gold, test patch).
fn mirror(repos: &Path, owner_name: &str) -> (String, String, String) {
    let dir = repos.join(owner_name);
    crate::copy_tree(
        &common::repo_root().join("fixtures/projects/scm-version"),
        &dir,
    );
    fs::remove_file(dir.join("mend.toml")).expect("no task file in the repository");
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "base"]);
    let base = git(&dir, &["rev-parse", "HEAD"]);
    let entries = dir.join("src/chronicle/entries.py");
    fs::write(&entries, FIXED).expect("fix");
    let gold = git(&dir, &["diff"]) + "\n";
    git(&dir, &["checkout", "-q", "--", "."]);
    let tests = dir.join("tests/test_entries.py");
    let text = fs::read_to_string(&tests).expect("tests");
    fs::write(&tests, text + NEW_TEST).expect("new test");
    let test_patch = git(&dir, &["diff"]) + "\n";
    git(&dir, &["checkout", "-q", "--", "."]);
    (base, gold, test_patch)
}

fn row(repo: &str, version: &str, repos: &Path) -> Value {
    let (base, gold, test_patch) = mirror(repos, &repo.replace('/', "__"));
    let id = format!("{}-1", repo.replace('/', "__"));
    let test = |name: &str| format!("tests/test_entries.py::{name}");
    json!({
        "instance_id": id,
        "repo": repo,
        "version": version,
        "base_commit": base,
        "patch": gold,
        "test_patch": test_patch,
        "problem_statement": "entry() drops the breaking-change mark of `feat(api)!: drop v1`.",
        "FAIL_TO_PASS": json!([test("test_breaking_change")]).to_string(),
        "PASS_TO_PASS": json!([test("test_scoped_subject"), test("test_plain_subject"), test("test_version_is_the_installed_one")]).to_string(),
    })
}

/// A row as swebench 5.x writes it, for a repository no table knows: its `eval_script`
/// installs the project before the tests, as the harness's scripts do.
fn row_with_eval_script(repos: &Path) -> Value {
    let mut row = row("acme/chronicle", "1.0", repos);
    let base = row["base_commit"].as_str().expect("base").to_owned();
    let test_patch = row["test_patch"].as_str().expect("test patch").to_owned();
    row["eval_script"] = json!(format!(
        "#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit status\n\
         git -c core.fileMode=false diff {base}\npython -m pip install -e .\n\
         git checkout {base} tests/test_entries.py\ngit apply -v - <<'EOF_7731'\n{test_patch}EOF_7731\n\
         : '>>>>> Start Test Output'\npython -m pytest -rA tests/test_entries.py\n\
         : '>>>>> End Test Output'\ngit checkout {base} tests/test_entries.py\n"
    ));
    row["log_parser"] = json!("parse_log_pytest");
    row
}

/// The suite made of the three rows, imported from `dir/repos`.
fn imported(dir: &Path) -> PathBuf {
    let repos = dir.join("repos");
    let rows = [
        row("pytest-dev/pytest", "7.0", &repos),
        row("sqlfluff/sqlfluff", "2.0", &repos),
        row_with_eval_script(&repos),
    ];
    let file = dir.join("instances.jsonl");
    fs::write(&file, rows.map(|row| format!("{row}\n")).concat()).expect("rows");
    let out = dir.join("suite");
    let arg = |path: &Path| path.to_str().expect("utf-8").to_owned();
    let done = common::mend(&[
        "eval",
        "import",
        &arg(&file),
        "--out",
        &arg(&out),
        "--repos",
        &arg(&repos),
    ]);
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert_eq!(
        done.stdout
            .matches("; set-up: 1 step(s) of the harness's")
            .count(),
        3,
        "{}",
        done.stdout
    );
    out
}

/// Each task's (status, problems, failing before), as `mend eval check` wrote them. Without
/// a sandbox the `shell` tool is refused, so the tasks leave it out, as a user must.
fn checked(suite: &Path, python: &Path, sandbox: &str) -> (i32, Value) {
    if sandbox == "none" {
        for task in fs::read_dir(suite.join("tasks")).expect("tasks").flatten() {
            let path = task.path().join("mend.toml");
            let text = fs::read_to_string(&path).expect("task file");
            fs::write(&path, text.replace(", \"shell\"]", "]")).expect("task file");
        }
    }
    let done = common::mend(&[
        "eval",
        "check",
        suite.join("suite.toml").to_str().expect("utf-8"),
        "--python",
        python.to_str().expect("utf-8"),
        "--sandbox",
        sandbox,
    ]);
    let tasks = crate::swebench::check_of(suite);
    (done.code, tasks)
}

fn all_valid() -> (i32, Value) {
    let failing = json!(["tests/test_entries.py::test_breaking_change"]);
    (
        0,
        json!([
            ["acme__chronicle-1", "valid", [], failing],
            ["pytest-dev__pytest-1", "valid", [], failing],
            ["sqlfluff__sqlfluff-1", "valid", [], failing],
        ]),
    )
}

#[test]
fn a_pytest_shaped_row_gets_the_install_as_its_set_up_and_its_gold_patch_resolves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = imported(dir.path());
    let task_file = suite.join("tasks/pytest-dev__pytest-1/mend.toml");
    let task: toml::Table = fs::read_to_string(&task_file)
        .expect("task file")
        .parse()
        .expect("TOML");
    let mut environment = toml::Table::new();
    environment.insert("setup".to_owned(), toml::Value::Array(vec![BUILD.into()]));
    assert_eq!(task["environment"], toml::Value::Table(environment));
    for sandbox in ["bwrap", "none"] {
        assert_eq!(
            checked(&suite, &common::python(), sandbox),
            all_valid(),
            "{sandbox}"
        );
    }
    // Without the set-up, the package cannot be imported: the gold patch does not pass.
    for task in fs::read_dir(suite.join("tasks")).expect("tasks").flatten() {
        let path = task.path().join("mend.toml");
        let text = fs::read_to_string(&path).expect("task file");
        let without = &text[..text.find("\n[environment]").expect("a set-up")];
        fs::write(&path, format!("{without}\n")).expect("task file");
    }
    let (code, statuses) = checked(&suite, &common::python(), "bwrap");
    assert_eq!(
        statuses
            .as_array()
            .expect("tasks")
            .iter()
            .map(|task| task[1].clone())
            .collect::<Vec<_>>(),
        [json!("invalid"), json!("invalid"), json!("invalid")],
        "{statuses}"
    );
    assert_ne!(code, 0);
}

fn python_says(python: &Path, code: &str) -> String {
    let output = Command::new(python)
        .args(["-c", code])
        .output()
        .expect("python");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A venv (outside /tmp, which bubblewrap hides) whose old-style editable install names
/// `folders`' `src/`, as `setup.py develop` run in each writes it, with mend's pytest (and
/// setuptools) reachable through one more `.pth`.
fn developed_venv(venv: &Path, folders: &[PathBuf]) -> PathBuf {
    let made = Command::new(common::python())
        .args(["-m", "venv", "--without-pip", venv.to_str().expect("utf-8")])
        .output()
        .expect("venv");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let python = venv.join("bin/python");
    let site = PathBuf::from(python_says(
        &python,
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ));
    let sources: Vec<String> = folders
        .iter()
        .map(|folder| folder.join("src").display().to_string())
        .collect();
    fs::write(
        site.join("chronicle.egg-link"),
        format!("{}\n.", sources[0]),
    )
    .expect("link");
    fs::write(site.join("easy-install.pth"), sources.join("\n") + "\n").expect("pth");
    let ours = python_says(
        &common::python(),
        "import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))",
    );
    fs::write(site.join("mend-pytest.pth"), format!("{ours}\n")).expect("pth");
    python
}

#[test]
fn an_old_style_editable_install_of_the_task_folder_imports_the_set_up_copy() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("eval-install");
    fs::create_dir_all(&scratch).expect("scratch");
    let dir = tempfile::tempdir_in(&scratch).expect("temp dir");
    let suite = imported(dir.path());
    let tasks = [
        "pytest-dev__pytest-1",
        "sqlfluff__sqlfluff-1",
        "acme__chronicle-1",
    ]
    .map(|id| suite.join("tasks").join(id));
    let python = developed_venv(&dir.path().join("venv"), &tasks);
    // The venv imports the task folder, where nothing was built: no version file, no metadata.
    assert_eq!(
        python_says(
            &python,
            "import importlib.util as u; print(u.find_spec('chronicle').origin)"
        ),
        tasks[0]
            .join("src/chronicle/__init__.py")
            .display()
            .to_string()
    );
    for sandbox in ["bwrap", "none"] {
        assert_eq!(checked(&suite, &python, sandbox), all_valid(), "{sandbox}");
    }
    for task in &tasks {
        assert!(
            !task.join("src/chronicle/_version.py").exists(),
            "the original was written"
        );
    }
}
