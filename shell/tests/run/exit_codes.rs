//! Every exit path of `mend run`, `replay`, `verify` and `apply`: each ends with the code whose
//! documented meaning (README "Exit codes") fits, and with the message that says why.

use std::path::Path;
use std::process::Stdio;
use std::thread;
use std::time::Duration;

use crate::common::server::{closed_port_base, Server};
use crate::common::turns::{fix, say, script, stalls_after};
use crate::common::{
    fixture, live_args, live_run, mend, mend_command, repo_root, sample_copy, sigint, wait_until,
    Outcome,
};
use serde_json::{json, Value};

/// `(case, code, the expected part of the output)`; the whole output when it is not there.
type Seen = (&'static str, i32, String);

fn seen(case: &'static str, outcome: &Outcome, expected: &str) -> Seen {
    let output = format!("{}{}", outcome.stdout, outcome.stderr);
    let shown = if output.contains(expected) {
        expected.to_owned()
    } else {
        output
    };
    (case, outcome.code, shown)
}

/// `mend run` against a server that goes silent, cut by Ctrl-C once the request is in.
fn interrupted_run(repo: &Path, record: &Path) -> Outcome {
    let server = Server::start(script(vec![stalls_after("Let me")]));
    let child = mend_command(&repo_root())
        .args(live_args("run", &server.base, repo, record))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the run reaches the model", || {
        !server.write_times().is_empty()
    });
    thread::sleep(Duration::from_millis(200));
    sigint(&child);
    let output = child.wait_with_output().unwrap();
    Outcome::from(output)
}

fn stop_reason(record: &Path) -> Value {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    serde_json::from_str::<Value>(&text).unwrap_or_default()["messages"][0]["stop"]["reason"]
        .clone()
}

#[test]
fn every_exit_path_has_its_documented_code_and_message() {
    let runs = tempfile::tempdir().unwrap();
    let record = |name: &str| runs.path().join(name);
    let sample = sample_copy();
    let repo = sample.path();
    let repo_arg = repo.to_str().unwrap();
    let mut all: Vec<Seen> = Vec::new();
    std::fs::write(record("garbage.json"), "{\"format\": ").unwrap();

    // mend run
    let fixing = Server::start(script(vec![fix("c1"), say("Fixed.")]));
    let passed = live_run(&fixing.base, repo, &record("pass.json"), &[]);
    all.push(seen("run: the repair passes", &passed, "record written to"));
    let idle = Server::start(script(vec![say("All good, nothing to do.")]));
    let failed = live_run(&idle.base, repo, &record("fail.json"), &[]);
    all.push(seen(
        "run: the tests still fail",
        &failed,
        "record written to",
    ));
    all.push(seen(
        "run: a bad flag",
        &live_run(&idle.base, repo, &record("x.json"), &["--max-turns", "0"]),
        "invalid value '0' for '--max-turns <MAX_TURNS>'",
    ));
    all.push(seen(
        "run: no server",
        &live_run(&closed_port_base(), repo, &record("x.json"), &[]),
        "mend: error: no Ollama at",
    ));
    let unused = Server::start(script(vec![]));
    all.push(seen(
        "run: no interpreter",
        &live_run(
            &unused.base,
            repo,
            &record("x.json"),
            &["--python", "/nonexistent/python3"],
        ),
        "mend: error: cannot start `/nonexistent/python3`",
    ));
    let cut = interrupted_run(repo, &record("cut.json"));
    all.push(seen("run: Ctrl-C", &cut, "record written to"));

    // mend apply: the run's repair comes home to the copy of the sample
    all.push(seen(
        "apply: applied",
        &mend(&[
            "apply",
            record("pass.json").to_str().unwrap(),
            "--repo",
            repo_arg,
        ]),
        "Applied the run's change to",
    ));
    all.push(seen(
        "apply: already applied",
        &mend(&[
            "apply",
            record("pass.json").to_str().unwrap(),
            "--repo",
            repo_arg,
        ]),
        "is already applied in",
    ));
    // The idle run started from the pristine sample, which the copy no longer is.
    all.push(seen(
        "apply: the repository changed",
        &mend(&[
            "apply",
            record("fail.json").to_str().unwrap(),
            "--repo",
            repo_arg,
        ]),
        "path_rules.py changed; nothing was applied",
    ));
    all.push(seen(
        "apply: no record given",
        &mend(&["apply"]),
        "the following required arguments were not provided",
    ));
    all.push(seen(
        "apply: an unreadable record",
        &mend(&["apply", record("garbage.json").to_str().unwrap()]),
        "is not a mend record",
    ));

    // mend replay
    let replay = |args: &[&str]| mend(&[&["replay", "--sandbox", "none"], args].concat());
    all.push(seen(
        "replay: matched and passing",
        &replay(&["fixtures/repair.json"]),
        "Independent final tests: 4 passed",
    ));
    all.push(seen(
        "replay: matched, tests fail",
        &replay(&["fixtures/bounded.json"]),
        "Independent final tests: 1 failed · 3 passed",
    ));
    all.push(seen(
        "replay: a bad flag",
        &replay(&["--no-such-flag"]),
        "unexpected argument '--no-such-flag'",
    ));
    let mut tampered = fixture("repair");
    tampered["tool_calls"][2]["result"]["replaced"] = json!(2);
    std::fs::write(record("tampered.json"), tampered.to_string()).unwrap();
    all.push(seen(
        "replay: diverged",
        &replay(&[record("tampered.json").to_str().unwrap()]),
        "turn 3, tool call 0 (`replace_text`)",
    ));
    all.push(seen(
        "replay: an unreadable record",
        &replay(&[record("garbage.json").to_str().unwrap()]),
        "is not a mend record",
    ));
    all.push(seen(
        "replay: the repository changed",
        &replay(&["fixtures/repair.json", "--repo", repo_arg]),
        "changed since this run was recorded",
    ));
    all.push(seen(
        "replay: no interpreter",
        &replay(&["fixtures/repair.json", "--python", "/nonexistent/python3"]),
        "mend: error: cannot start `/nonexistent/python3`",
    ));

    // mend verify (the copy of the sample holds the repair by now)
    let verify = |args: &[&str]| mend(&[&["verify", "--sandbox", "none"], args].concat());
    all.push(seen(
        "verify: passing",
        &verify(&["--repo", repo_arg]),
        "Tests on a fresh copy: 4 passed",
    ));
    all.push(seen(
        "verify: failing",
        &verify(&["--repo", "sample-repo"]),
        "Tests on a fresh copy: 1 failed · 3 passed",
    ));
    let empty = tempfile::tempdir().unwrap();
    all.push(seen(
        "verify: no task file",
        &verify(&["--repo", empty.path().to_str().unwrap()]),
        "mend.toml does not exist",
    ));
    all.push(seen(
        "verify: no interpreter",
        &verify(&["--repo", "sample-repo", "--python", "/nonexistent/python3"]),
        "mend: error: cannot start `/nonexistent/python3`",
    ));

    let expected: Vec<Seen> = [
        ("run: the repair passes", 0, "record written to"),
        ("run: the tests still fail", 1, "record written to"),
        (
            "run: a bad flag",
            2,
            "invalid value '0' for '--max-turns <MAX_TURNS>'",
        ),
        ("run: no server", 5, "mend: error: no Ollama at"),
        (
            "run: no interpreter",
            6,
            "mend: error: cannot start `/nonexistent/python3`",
        ),
        ("run: Ctrl-C", 130, "record written to"),
        ("apply: applied", 0, "Applied the run's change to"),
        ("apply: already applied", 0, "is already applied in"),
        (
            "apply: the repository changed",
            4,
            "path_rules.py changed; nothing was applied",
        ),
        (
            "apply: no record given",
            2,
            "the following required arguments were not provided",
        ),
        ("apply: an unreadable record", 4, "is not a mend record"),
        (
            "replay: matched and passing",
            0,
            "Independent final tests: 4 passed",
        ),
        (
            "replay: matched, tests fail",
            1,
            "Independent final tests: 1 failed · 3 passed",
        ),
        (
            "replay: a bad flag",
            2,
            "unexpected argument '--no-such-flag'",
        ),
        (
            "replay: diverged",
            3,
            "turn 3, tool call 0 (`replace_text`)",
        ),
        ("replay: an unreadable record", 4, "is not a mend record"),
        (
            "replay: the repository changed",
            4,
            "changed since this run was recorded",
        ),
        (
            "replay: no interpreter",
            6,
            "mend: error: cannot start `/nonexistent/python3`",
        ),
        ("verify: passing", 0, "Tests on a fresh copy: 4 passed"),
        (
            "verify: failing",
            1,
            "Tests on a fresh copy: 1 failed · 3 passed",
        ),
        ("verify: no task file", 2, "mend.toml does not exist"),
        (
            "verify: no interpreter",
            6,
            "mend: error: cannot start `/nonexistent/python3`",
        ),
    ]
    .into_iter()
    .map(|(case, code, message)| (case, code, message.to_owned()))
    .collect();
    assert_eq!(all, expected);
    // The runs that got as far as the model left a record that says how they stopped.
    assert_eq!(
        [
            stop_reason(&record("pass.json")),
            stop_reason(&record("fail.json")),
            stop_reason(&record("cut.json")),
        ],
        [
            json!("assistant_finished"),
            json!("assistant_finished"),
            json!("cancelled")
        ]
    );
}
