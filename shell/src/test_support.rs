//! What the unit tests of several modules share: a throwaway project made of given files, and
//! the project venv's interpreter.

use camino::Utf8PathBuf;

/// A temporary folder holding `files` (path relative to it, text); the folder lives as long as
/// the returned guard.
pub(crate) fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    for (file, text) in files {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    (dir, root)
}

/// A task file for a Python project of `pkg/` and `tests/`, run by pytest: every file readable,
/// `pkg/` editable, `tests/test_*.py` its test files.
pub(crate) const PYTHON_TASK: &str = r#"
[paths]
readable = ["**"]
editable = ["pkg/**/*.py"]
[test]
command = ["python", "-m", "pytest", "-q"]
files = ["tests/test_*.py"]
timeout_seconds = 10
[tools]
enabled = ["read_file", "write_file", "run_tests"]
"#;

/// The venv's interpreter with pytest (`make venv`); a missing one fails the test with the fix.
pub(crate) fn python() -> Utf8PathBuf {
    let python = std::env::var("MEND_PYTHON").map_or_else(
        |_| Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin/python")),
        Utf8PathBuf::from,
    );
    assert!(python.exists(), "no Python at {python} — run `make venv`");
    python
}

/// What SWE-bench's own harness (the `swebench` package `make venv` installs) makes of each
/// case, in one run of its Python: `cases` is a list of `{"parser", "log", "fail_to_pass",
/// "pass_to_pass"}`, the answer a list of `{"status_map", "tests_status", "resolved"}`
/// (fixtures/readers/swebench_grade.py).
pub(crate) fn swebench_grade<T: serde::de::DeserializeOwned>(cases: &serde_json::Value) -> T {
    swebench_script("swebench_grade.py", cases)
}

/// Runs `script` of fixtures/readers (one of SWE-bench's harness's answers, in its Python) on
/// `cases` given as JSON on its standard input; its answer is the JSON it prints.
pub(crate) fn swebench_script<T: serde::de::DeserializeOwned>(
    script: &str,
    cases: &serde_json::Value,
) -> T {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let script = format!(
        "{}/../fixtures/readers/{script}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut child = Command::new(python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(cases.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "SWE-bench's harness did not run (is swebench in the venv? `make venv`): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A FIFO at `path`, the special file a walk must never open.
pub(crate) fn make_fifo(path: &camino::Utf8Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {path}");
}

/// Whether a process with this pid exists (a zombie too: it is not reaped yet).
pub(crate) fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}
