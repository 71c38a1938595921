//! A src-layout package installed editable into its venv (fixtures/projects/editable-src): the
//! venv imports the checkout it was installed from, yet mend's verdict is about the copy the
//! model fixed — under bubblewrap and without a sandbox.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::server::{Reply, Server};
use crate::common::turns::{script, MODEL};
use crate::common::{copy_of_in, mend, python, repo_root, tree_digest};
use serde_json::{json, Value};

/// Folders outside /tmp, which bubblewrap hides wholesale: here only mend's own hiding of the
/// original can keep the tests from reading it.
fn visible_scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("editable")
}

fn run(program: &Path, args: &[&str], dir: &Path) -> (bool, String) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// A fresh venv with the checkout at `original` installed editable, offline, and mend's
/// pytest importable. Returns the venv's python and the folder pytest lives in.
fn editable_venv(venv: &Path, original: &Path) -> (PathBuf, String) {
    let (made, output) = run(&python(), &["-m", "venv", venv.to_str().unwrap()], original);
    assert!(made, "python -m venv failed:\n{output}");
    let venv_python = venv.join("bin/python");
    // pip's own route (PEP 660) needs `wheel` (setuptools < 70.1), which an offline venv may
    // lack; `setup.py develop` is the editable install pip ran before PEP 660, and needs only
    // the setuptools that `venv` bundles up to Python 3.11. Both leave a .pth pointing here.
    let pip = run(
        &venv_python,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-build-isolation",
            "--no-deps",
            "-e",
            ".",
        ],
        original,
    );
    if !pip.0 {
        let develop = run(
            &venv_python,
            &["setup.py", "--quiet", "develop", "--no-deps"],
            original,
        );
        if !develop.0 {
            // No setuptools in this venv (Python >= 3.12): write the .pth that setuptools
            // writes for a src layout, so the venv imports the original all the same.
            eprintln!(
                "no offline editable install here ({}); writing its .pth",
                develop.1.trim()
            );
            let site = site_packages(&venv_python);
            std::fs::write(
                Path::new(&site).join("__editable__.tally-0.3.1.pth"),
                format!("{}\n", original.join("src").display()),
            )
            .unwrap();
        }
    }
    // pytest comes from mend's own venv (no network here): one more .pth.
    let (found, pytest_site) = run(
        &python(),
        &[
            "-c",
            "import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))",
        ],
        original,
    );
    assert!(found, "mend's python has no pytest: {pytest_site}");
    let pytest_site = pytest_site.trim().to_owned();
    std::fs::write(
        Path::new(&site_packages(&venv_python)).join("mend-pytest.pth"),
        format!("{pytest_site}\n"),
    )
    .unwrap();
    (venv_python, pytest_site)
}

fn site_packages(venv_python: &Path) -> String {
    let (ok, site) = run(
        venv_python,
        &[
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        Path::new("/"),
    );
    assert!(ok, "{site}");
    site.trim().to_owned()
}

fn line(message: Value, done: bool) -> String {
    let mut line = json!({
        "model": MODEL,
        "created_at": "2026-12-01T09:00:00Z",
        "message": message,
        "done": done,
    });
    if done {
        line["done_reason"] = json!("stop");
    }
    line.to_string()
}

/// A model that fixes median() with one edit, then says so.
fn fixing_model() -> Server {
    let edit = json!({"role": "assistant", "content": "", "tool_calls": [{"function": {
        "name": "replace_text",
        "arguments": {
            "path": "src/tally/stats.py",
            "old": "    return ordered[middle]\n",
            "new": "    if len(ordered) % 2:\n        return ordered[middle]\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
        },
    }}]});
    let empty = json!({"role": "assistant", "content": ""});
    let summary =
        json!({"role": "assistant", "content": "median() now averages the two middle values."});
    Server::start(script(vec![
        Reply::lines(&[line(edit, false), line(empty, true)]),
        Reply::lines(&[line(summary, true)]),
    ]))
}

struct Project {
    original: tempfile::TempDir,
    venv: tempfile::TempDir,
    python: PathBuf,
}

/// The original checkout and its venv, made once: a venv takes seconds. The runs only read
/// the original.
fn project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let scratch = visible_scratch();
        let original = copy_of_in(
            &repo_root().join("fixtures/projects/editable-src"),
            &scratch,
        );
        let venv = tempfile::tempdir_in(&scratch).unwrap();
        let (python, pytest_site) = editable_venv(&venv.path().join("venv"), original.path());
        // pytest's folder must be readable inside bubblewrap wherever mend's venv lives.
        let task = original.path().join("mend.toml");
        let mut text = std::fs::read_to_string(&task).unwrap();
        text.push_str(&format!("\n[sandbox]\nread_only = [{pytest_site:?}]\n"));
        std::fs::write(&task, text).unwrap();
        Project {
            original,
            venv,
            python,
        }
    })
}

/// The repair, run for real against a scripted model, on an original whose venv imports it.
fn repair(sandbox: &str) -> (i32, Value, Value) {
    let Project {
        original,
        venv,
        python: venv_python,
    } = project();
    // Without mend, this venv imports the buggy original: what the verdict must not read.
    let (_, imported) = run(
        venv_python,
        &["-c", "import tally; print(tally.__file__)"],
        Path::new("/"),
    );
    assert_eq!(
        PathBuf::from(imported.trim()),
        original.path().join("src/tally/__init__.py")
    );

    let before = tree_digest(original.path());
    let server = fixing_model();
    let record = venv.path().join(format!("run-{sandbox}.json"));
    let outcome = mend(&[
        "run",
        "--json",
        "--host",
        &server.base,
        "--sandbox",
        sandbox,
        "--repo",
        original.path().to_str().unwrap(),
        "--python",
        venv_python.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(tree_digest(original.path()), before, "the original changed");
    let summary = |kind: &str| {
        outcome
            .events()
            .into_iter()
            .find(|event| event["type"] == kind)
            .map(|event| event["run"]["summary"].clone())
            .unwrap_or_else(|| panic!("no {kind} in:\n{}\n{}", outcome.stdout, outcome.stderr))
    };
    (
        outcome.code,
        summary("tests_before"),
        summary("tests_after"),
    )
}

fn counts(passed: u32, failed: u32) -> Value {
    json!({"passed": passed, "failed": failed, "errors": 0, "skipped": 0})
}

#[test]
fn under_bubblewrap_the_fixed_copy_passes_though_the_venv_points_at_the_original() {
    assert_eq!(repair("bwrap"), (0, counts(5, 1), counts(6, 0)));
}

#[test]
fn without_a_sandbox_the_copys_import_roots_still_come_first() {
    assert_eq!(repair("none"), (0, counts(5, 1), counts(6, 0)));
}
