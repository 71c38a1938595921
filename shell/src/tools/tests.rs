use camino::{Utf8Path, Utf8PathBuf};
use serde_json::{json, Value};

use super::*;
use crate::exec::sandbox::Sandbox;
use crate::test_support::project;

fn sample_task() -> Task {
    Task::parse(
        Utf8Path::new("mend.toml"),
        include_str!("../../../sample-repo/mend.toml"),
    )
    .unwrap()
}

/// A task with the general tools over `src/` and `tests/`.
fn general_task() -> Task {
    Task::parse(
        Utf8Path::new("mend.toml"),
        r#"
[task]
prompt = "Fix it."
[paths]
readable = ["src/**", "tests/*.py", "README.md"]
editable = ["src/**/*.py"]
[test]
command = ["python", "-m", "pytest", "-q"]
timeout_seconds = 5
files = ["tests/*.py", "src/conftest.py"]
[tools]
enabled = ["list_files", "grep", "read_file", "write_file", "replace_text", "run_tests", "shell"]
"#,
    )
    .unwrap()
}

fn sample_workspace() -> (tempfile::TempDir, Utf8PathBuf) {
    project(&[
        ("path_rules.py", "a = 1\nb = 1\nc = 2\n"),
        ("tests/test_path_rules.py", "def test(): pass\n"),
    ])
}

fn general_workspace() -> (tempfile::TempDir, Utf8PathBuf) {
    project(&[
        ("src/app/core.py", "def add(a, b):\n    return a - b\n"),
        ("src/app/util.py", "SEP = ','\n"),
        ("src/conftest.py", "# fixtures\n"),
        ("src/data.bin", "\u{0}\u{1}"),
        (
            "tests/test_core.py",
            "from app.core import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        ),
        ("README.md", "A tiny app; add() adds.\n"),
        ("secret.env", "TOKEN=add-me\n"),
    ])
}

fn call_with(
    task: &Task,
    sandbox: Sandbox,
    root: &Utf8Path,
    name: &str,
    arguments: Value,
) -> ToolOutcome {
    let runner = TestRunner::new("/bin/false".into(), sandbox);
    let context = ToolContext {
        root,
        task,
        runner: &runner,
        watch: Watch::NONE,
    };
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    match execute(&context, name, &arguments).unwrap() {
        ToolRun::Finished(outcome) => outcome,
        ToolRun::Cut(cut) => panic!("the tool was cut: {cut:?}"),
    }
}

fn call(root: &Utf8Path, name: &str, arguments: Value) -> ToolOutcome {
    call_with(&sample_task(), Sandbox::Unsandboxed, root, name, arguments)
}

fn general(root: &Utf8Path, name: &str, arguments: Value) -> ToolOutcome {
    call_with(&general_task(), Sandbox::Unsandboxed, root, name, arguments)
}

fn refused(message: &str) -> ToolOutcome {
    ToolOutcome::Failure {
        message: message.to_owned(),
    }
}

fn success(value: Value) -> ToolOutcome {
    ToolOutcome::Success { value }
}

#[test]
fn read_file_returns_allowlisted_text() {
    let (_dir, root) = sample_workspace();
    assert_eq!(
        call(
            &root,
            "read_file",
            json!({"path": "./tests/test_path_rules.py"})
        ),
        success(json!({"path": "tests/test_path_rules.py", "text": "def test(): pass\n"}))
    );
}

#[test]
fn read_file_refuses_paths_outside_the_allowlist() {
    let (_dir, root) = sample_workspace();
    let options = "use one of: path_rules.py, tests/test_path_rules.py";
    let cases = [
        ("../etc/passwd", format!("`../etc/passwd` leaves the repository; {options}")),
        ("/etc/passwd", "`/etc/passwd` is absolute; use a relative path, one of: path_rules.py, tests/test_path_rules.py".to_owned()),
        ("setup.cfg", format!("`setup.cfg` is not allowed; {options}")),
    ];
    for (path, message) in cases {
        assert_eq!(
            call(&root, "read_file", json!({"path": path})),
            refused(&message),
            "{path}"
        );
    }
}

#[test]
fn read_file_refuses_a_symlink_that_leads_out() {
    let (_dir, root) = sample_workspace();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "API_KEY=hunter2").unwrap();
    std::fs::remove_file(root.join("path_rules.py")).unwrap();
    std::os::unix::fs::symlink(&secret, root.join("path_rules.py")).unwrap();
    assert_eq!(
        call(&root, "read_file", json!({"path": "path_rules.py"})),
        refused("`path_rules.py` is a link that leads out of the repository; it cannot be opened")
    );
}

#[test]
fn read_file_refuses_files_over_the_cap() {
    let (_dir, root) = sample_workspace();
    std::fs::write(root.join("path_rules.py"), "#".repeat(300 * 1024)).unwrap();
    assert_eq!(
        call(&root, "read_file", json!({"path": "path_rules.py"})),
        refused("`path_rules.py` is 307200 bytes, over the 262144-byte limit of read_file")
    );
}

#[test]
fn read_file_reads_a_line_range_of_a_big_file() {
    let (_dir, root) = general_workspace();
    let big: String = (1..=40_000).map(|n| format!("line {n}\n")).collect();
    std::fs::write(root.join("src/big.py"), &big).unwrap();
    assert_eq!(
        general(&root, "read_file", json!({"path": "src/big.py"})),
        refused("`src/big.py` is 428894 bytes, over the 262144-byte limit of read_file; read it in parts with start_line and end_line")
    );
    assert_eq!(
        general(
            &root,
            "read_file",
            json!({"path": "src/big.py", "start_line": 39_999, "end_line": 50_000})
        ),
        success(
            json!({"path": "src/big.py", "start_line": 39_999, "end_line": 40_000, "total_lines": 40_000, "text": "line 39999\nline 40000\n"})
        )
    );
    let cases = [
        (
            json!({"path": "src/big.py", "start_line": 0}),
            "`start_line` must be a line number, 1 or more",
        ),
        (
            json!({"path": "src/big.py", "start_line": 9, "end_line": 3}),
            "end_line 3 is before start_line 9",
        ),
        (
            json!({"path": "src/big.py", "start_line": 40_001}),
            "`src/big.py` has 40000 lines; start_line 40001 is past the end",
        ),
    ];
    for (arguments, message) in cases {
        assert_eq!(
            general(&root, "read_file", arguments.clone()),
            refused(message),
            "{arguments}"
        );
    }
}

#[test]
fn replace_text_edits_exactly_one_occurrence() {
    let (_dir, root) = sample_workspace();
    assert_eq!(
        call(
            &root,
            "replace_text",
            json!({"old": "c = 2", "new": "c = 3"})
        ),
        success(json!({"path": "path_rules.py", "replaced": 1}))
    );
    assert_eq!(
        std::fs::read_to_string(root.join("path_rules.py")).unwrap(),
        "a = 1\nb = 1\nc = 3\n"
    );
}

#[test]
fn replace_text_lands_near_misses_and_says_which_rule_placed_them() {
    let (_dir, root) = sample_workspace();
    assert_eq!(
        call(
            &root,
            "replace_text",
            json!({"old": "b = 1  \nc = 2", "new": "b = 1\nc = 5"})
        ),
        success(json!({"path": "path_rules.py", "replaced": 1,
                       "matched": "ignoring trailing whitespace", "lines": "2-3"}))
    );
    assert_eq!(
        call(
            &root,
            "replace_text",
            json!({"old": "    c = 5\n", "new": "    c = 6\n"})
        ),
        success(json!({"path": "path_rules.py", "replaced": 1,
                       "matched": "ignoring a shift of indentation (the replacement shifted the same way)",
                       "lines": "3-3"}))
    );
    assert_eq!(
        std::fs::read_to_string(root.join("path_rules.py")).unwrap(),
        "a = 1\nb = 1\nc = 6\n"
    );
    assert_eq!(
        call(&root, "replace_text", json!({"old": "c = 7", "new": "x"})),
        refused("`old` occurs 0 times in path_rules.py, not even ignoring trailing whitespace or indentation; the closest lines are 3-3:\n    3| c = 6\ncopy the exact text from there (without the line numbers), or read the file again with read_file and copy the exact text")
    );
}

#[test]
fn replace_text_refuses_ambiguous_missing_and_empty_text() {
    let (_dir, root) = sample_workspace();
    let cases = [
        ("= 1", "`old` occurs 2 times in path_rules.py, it must occur exactly once; read the file again with read_file and copy the exact text, with enough surrounding lines to be unique"),
        ("d = 4", "`old` occurs 0 times in path_rules.py, it must occur exactly once; read the file again with read_file and copy the exact text"),
        ("", "`old` is empty; copy the exact text to replace from path_rules.py (read it again with read_file)"),
    ];
    for (old, message) in cases {
        assert_eq!(
            call(&root, "replace_text", json!({"old": old, "new": "x"})),
            refused(message),
            "{old:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("path_rules.py")).unwrap(),
        "a = 1\nb = 1\nc = 2\n"
    );
}

#[test]
fn replace_text_takes_a_path_when_several_files_are_editable() {
    let (_dir, root) = general_workspace();
    assert_eq!(
        general(
            &root,
            "replace_text",
            json!({"path": "src/app/core.py", "old": "a - b", "new": "a + b"})
        ),
        success(json!({"path": "src/app/core.py", "replaced": 1}))
    );
    assert_eq!(
        general(&root, "replace_text", json!({"old": "SEP", "new": "X"})),
        refused("name the file to edit in `path`: src/**/*.py")
    );
    assert_eq!(
        general(
            &root,
            "replace_text",
            json!({"path": "tests/test_core.py", "old": "3", "new": "-1"})
        ),
        refused("`tests/test_core.py` is one of the task's test files, which no tool may change; change the code under test instead")
    );
}

#[test]
fn write_file_creates_and_overwrites_editable_files_only() {
    let (_dir, root) = general_workspace();
    assert_eq!(
        general(
            &root,
            "write_file",
            json!({"path": "src/app/new/mod.py", "text": "X = 1\n"})
        ),
        success(json!({"path": "src/app/new/mod.py", "bytes": 6, "created": true}))
    );
    assert_eq!(
        general(
            &root,
            "write_file",
            json!({"path": "src/app/util.py", "text": "SEP = ';'\n"})
        ),
        success(json!({"path": "src/app/util.py", "bytes": 10, "created": false}))
    );
    let files: Vec<String> = ["src/app/new/mod.py", "src/app/util.py"]
        .iter()
        .map(|file| std::fs::read_to_string(root.join(file)).unwrap())
        .collect();
    assert_eq!(files, ["X = 1\n", "SEP = ';'\n"]);
    let cases = [
        (
            "tests/test_core.py",
            "`tests/test_core.py` is one of the task's test files, which no tool may change; change the code under test instead",
        ),
        (
            "src/conftest.py",
            "`src/conftest.py` is one of the task's test files, which no tool may change; change the code under test instead",
        ),
        (
            "src/app/conftest.py",
            "`src/app/conftest.py` is test configuration (pytest runs it while collecting the tests), which no tool may change; change the code under test instead (a task that must change it names it in test.config_editable)",
        ),
        (
            "src/sitecustomize.py",
            "`src/sitecustomize.py` is test configuration (Python runs it whenever it starts), which no tool may change; change the code under test instead (a task that must change it names it in test.config_editable)",
        ),
        (
            "src/../secret.py",
            "`src/../secret.py` leaves the repository; use one of: src/**/*.py",
        ),
        (
            "src/notes.txt",
            "`src/notes.txt` is not allowed; use one of: src/**/*.py",
        ),
    ];
    for (path, message) in cases {
        assert_eq!(
            general(&root, "write_file", json!({"path": path, "text": "x"})),
            refused(message),
            "{path}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("src/conftest.py")).unwrap(),
        "# fixtures\n"
    );
}

#[test]
fn write_file_will_not_follow_a_link_out_of_the_copy() {
    let (_dir, root) = general_workspace();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("src/out")).unwrap();
    assert_eq!(
        general(
            &root,
            "write_file",
            json!({"path": "src/out/evil.py", "text": "x"})
        ),
        refused("`src/out` is a link that leads out of the repository; it cannot be opened")
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

mod links_and_shell;
mod search;
mod survivable;
