//! Other toolchains inside bubblewrap: a cargo crate (rustup's cargo, whose homes bubblewrap
//! hides) and an npm package (npm needs node on PATH), each read FAIL as written and PASS once
//! fixed; and a test command that cannot start is a harness error that names it.

use std::path::Path;

use crate::common::{copy_of, mend, repo_root};
use serde_json::{json, Value};

/// `mend verify` under bubblewrap: its exit code and the final run's exit code.
fn verify(repo: &Path) -> (i32, Value) {
    let outcome = mend(&[
        "verify",
        "--json",
        "--sandbox",
        "bwrap",
        "--repo",
        repo.to_str().unwrap(),
    ]);
    (outcome.code, outcome.tests_after()["exit_code"].clone())
}

/// Replaces `old` (which must be there) with `new` in `repo/file`.
fn fix(repo: &Path, file: &str, old: &str, new: &str) {
    let path = repo.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(old), "{file} does not contain {old:?}");
    std::fs::write(&path, text.replace(old, new)).unwrap();
}

#[test]
fn a_cargo_crate_is_judged_by_cargo_test_inside_bubblewrap() {
    let repo = copy_of(&repo_root().join("fixtures/projects/cargo-crate"));
    assert_eq!(verify(repo.path()), (1, json!(101)));
    fix(
        repo.path(),
        "src/lib.rs",
        "take(count.saturating_sub(1))",
        "take(count)",
    );
    assert_eq!(verify(repo.path()), (0, json!(0)));
}

#[test]
fn an_npm_package_is_judged_by_npm_test_inside_bubblewrap() {
    let repo = copy_of(&repo_root().join("fixtures/projects/npm-package"));
    assert_eq!(verify(repo.path()), (1, json!(1)));
    fix(
        repo.path(),
        "lib/index.js",
        "    .join(separator);",
        "    .filter(Boolean)\n    .join(separator);",
    );
    assert_eq!(verify(repo.path()), (0, json!(0)));
}

/// A repository whose test command is `command`.
fn repo_testing_with(command: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(
        repo.path().join("mend.toml"),
        format!(
            "[paths]\nreadable = [\"*.txt\"]\neditable = [\"*.txt\"]\n[test]\ncommand = {command}\ntimeout_seconds = 10\nreport = \"exit_code\"\n[tools]\nenabled = [\"run_tests\"]\n"
        ),
    )
    .unwrap();
    repo
}

#[test]
fn a_test_program_that_is_not_on_path_is_a_harness_error_naming_it() {
    let repo = repo_testing_with(r#"["no-such-runner-xyz", "--all"]"#);
    let outcome = mend(&["verify", "--repo", repo.path().to_str().unwrap()]);
    let last = outcome.stderr.lines().last().unwrap_or_default().to_owned();
    assert_eq!(
        (outcome.code, last.starts_with("mend: error: the test command cannot start: `no-such-runner-xyz` is not on your PATH (")),
        (6, true),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_program_missing_inside_the_sandbox_is_a_harness_error_not_a_failing_verdict() {
    // What `npm test` does when its script names a runner that is not installed.
    let repo = repo_testing_with(r#"["/bin/sh", "-c", "no-such-runner-xyz --all"]"#);
    let outcome = mend(&[
        "verify",
        "--sandbox",
        "bwrap",
        "--repo",
        repo.path().to_str().unwrap(),
    ]);
    let first = outcome
        .stderr
        .lines()
        .find(|line| line.starts_with("mend: error:"));
    assert_eq!(
        (outcome.code, first),
        (
            6,
            Some("mend: error: the test command `/bin/sh -c no-such-runner-xyz --all` exited 127: a program it runs was not found or cannot run inside the sandbox (install it, add its folder to sandbox.read_only, or pass the variables it needs with test.env):")
        ),
        "{}",
        outcome.stderr
    );
}
