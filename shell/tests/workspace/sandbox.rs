//! The sandbox against a hostile test suite (fixtures/hostile-repo): network, files outside the
//! workspace, the harness's secrets.

use std::net::TcpListener;

use crate::common;
use crate::common::{copy_of, mend_with_env, repo_root};
use serde_json::{json, Value};

struct Escape {
    summary: Value,
    connections: usize,
    wrote_outside: bool,
}

/// Runs the hostile suite under `sandbox` and reports what got out.
fn attack(sandbox: &str) -> Escape {
    let repo = copy_of(&repo_root().join("fixtures/hostile-repo"));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    std::fs::write(repo.path().join("listener_port.txt"), &port).unwrap();
    std::fs::write(
        repo.path().join("outside_path.txt"),
        target.to_str().unwrap(),
    )
    .unwrap();

    let args = [
        "verify",
        "--json",
        "--sandbox",
        sandbox,
        "--repo",
        repo.path().to_str().unwrap(),
    ];
    let outcome = mend_with_env(
        &repo_root(),
        &args,
        &[("MEND_FAKE_API_KEY", "sk-mend-test-0000")],
    );
    let after = outcome.tests_after();
    // A connection that got through waits in the listener's backlog.
    let connections = std::iter::from_fn(|| listener.accept().ok()).count();
    Escape {
        summary: after["summary"].clone(),
        connections,
        wrote_outside: target.exists(),
    }
}

#[test]
fn bubblewrap_stops_all_three_escapes() {
    let escape = attack("bwrap");
    assert_eq!(
        (escape.summary, escape.connections, escape.wrote_outside),
        (
            json!({"passed": 0, "failed": 3, "errors": 0, "skipped": 0}),
            0,
            false
        )
    );
}

#[test]
fn without_a_sandbox_the_same_escapes_succeed() {
    let escape = attack("none");
    assert_eq!(
        (escape.summary, escape.connections, escape.wrote_outside),
        (
            json!({"passed": 3, "failed": 0, "errors": 0, "skipped": 0}),
            1,
            true
        )
    );
}

/// A repository outside /tmp (which bubblewrap hides anyway) with its venv inside it, as
/// `python -m venv .venv` makes it. The task's command passes only when the original is out
/// of sight while its venv still runs.
fn original_hidden_venv_shown(sandbox: &str) -> (i32, Value) {
    let scratch = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hidden");
    std::fs::create_dir_all(&scratch).unwrap();
    let original = tempfile::tempdir_in(&scratch).unwrap();
    let root = original.path();
    let made = std::process::Command::new(common::python())
        .args(["-m", "venv", "--without-pip"])
        .arg(root.join(".venv"))
        .status()
        .unwrap();
    assert!(made.success());
    let probe = format!(
        "test ! -e {root}/mend.toml && python -c 'import sys; assert sys.prefix == {venv:?}'",
        root = root.display(),
        venv = root.join(".venv").display().to_string(),
    );
    std::fs::write(
        root.join("mend.toml"),
        format!(
            "[paths]\nreadable = [\"*.txt\"]\neditable = [\"*.txt\"]\n[test]\ncommand = [\"/bin/sh\", \"-c\", {probe:?}]\ntimeout_seconds = 30\nreport = \"exit_code\"\n[tools]\nenabled = [\"run_tests\"]\n"
        ),
    )
    .unwrap();
    let python = root.join(".venv/bin/python");
    let outcome = common::mend(&[
        "verify",
        "--json",
        "--sandbox",
        sandbox,
        "--python",
        python.to_str().unwrap(),
        "--repo",
        root.to_str().unwrap(),
    ]);
    (outcome.code, outcome.tests_after()["exit_code"].clone())
}

#[test]
fn bubblewrap_hides_the_original_but_shows_the_venv_inside_it() {
    assert_eq!(original_hidden_venv_shown("bwrap"), (0, json!(0)));
}

#[test]
fn without_a_sandbox_the_original_is_in_sight() {
    assert_eq!(original_hidden_venv_shown("none"), (1, json!(1)));
}
