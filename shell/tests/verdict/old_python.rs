//! A Python without audit hooks (3.6 and 3.7, which real task environments still run), forced
//! here on the test interpreter by a `sitecustomize` that removes `sys.addaudithook`: the witness
//! stands in for what it can, and the verdict names the check it could not make, in its JSON and
//! in its text, while a frame read by the code under test is still caught.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{installed_runner, mend, python_with_first, sample_copy};

/// An interpreter that is the test interpreter without `sys.addaudithook`: a script that puts a
/// `sitecustomize` removing it first on the path. Its folder is named as an installed package's
/// is, so the witness does not count it as the project's code.
fn without_audit_hooks(dir: &Path) -> PathBuf {
    let site = dir.join("lib/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("sitecustomize.py"),
        "import sys\n\ndel sys.addaudithook\n",
    )
    .unwrap();
    python_with_first(dir, &site)
}

/// `mend verify` of `repo` with `python`, without a sandbox; `--json` when `json`.
pub(crate) fn verify(repo: &Path, python: &Path, json: bool) -> crate::common::Outcome {
    let mut args = vec![
        "verify",
        // (The interpreter's script lives in a temporary folder bubblewrap does not show; the
        // witness's checks do not depend on the sandbox.)
        "--sandbox",
        "none",
        "--repo",
        repo.to_str().unwrap(),
        "--python",
        python.to_str().unwrap(),
    ];
    if json {
        args.push("--json");
    }
    mend(&args)
}

/// The check a Python without audit hooks cannot make, as the verdict names it.
pub(crate) fn not_checked() -> String {
    let runner = installed_runner();
    format!(
        "the audit hook (frame reads through tracebacks, generators and coroutines, ctypes, the socket opened, moved or removed other than by open, io.open or os.open; code and functions made with types.CodeType and types.FunctionType under another file's name; the witness's own state kept out of reach) (Python {} has no audit hooks (they came with 3.8); sys._getframe, sys._current_frames, sys.settrace, sys.setprofile, gc's object walks, open, io.open and os.open, compile, exec and marshal.loads are watched in their stead)",
        runner["python"].as_str().unwrap()
    )
}

#[test]
fn without_audit_hooks_the_check_not_made_is_named_and_a_frame_read_still_caught() {
    let interpreter = tempfile::tempdir().unwrap();
    let python = without_audit_hooks(interpreter.path());
    let sample = sample_copy();
    let outcome = verify(sample.path(), &python, true);
    let mut run = outcome.tests_after();
    let fields = run.as_object_mut().unwrap();
    fields.remove("duration_ms");
    fields.remove("output_tail");
    assert_eq!(
        (outcome.code, run),
        (
            1,
            json!({
                "exit_code": 1,
                "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0},
                "failing": ["tests/test_path_rules.py::test_accepts_windows_separators"],
                "runner": installed_runner(),
                "unchecked": [not_checked()],
            })
        )
    );
    let text = verify(sample.path(), &python, false);
    assert!(
        text.stdout.contains(&format!(
            "Tests on a fresh copy: 1 failed · 3 passed — not checked: {}\n",
            not_checked()
        )),
        "{}",
        text.stdout
    );

    // The module under test reads its caller's frame as it is imported: sys._getframe stands
    // in for the audit hook.
    let rules = sample.path().join("path_rules.py");
    let source = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(
        &rules,
        format!("import inspect\n\n_CALLER = inspect.stack()[1]\n{source}"),
    )
    .unwrap();
    let outcome = verify(sample.path(), &python, true);
    let not_trusted: Value = outcome.tests_after()["not_trusted"].clone();
    assert!(
        not_trusted
            .as_str()
            .is_some_and(|said| said.contains("sys._getframe at path_rules.py:3")),
        "{}",
        outcome.stdout
    );
}
