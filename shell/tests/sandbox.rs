//! The sandbox against a hostile test suite (fixtures/hostile-repo): network, files outside the
//! workspace, the harness's secrets.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

mod common;

use std::net::TcpListener;

use common::{copy_of, mend_with_env, repo_root};
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
    let events = outcome.events();
    let after = events
        .iter()
        .find(|event| event["type"] == "tests_after")
        .expect("a test result");
    // A connection that got through waits in the listener's backlog.
    let connections = std::iter::from_fn(|| listener.accept().ok()).count();
    Escape {
        summary: after["run"]["summary"].clone(),
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
