//! Ctrl-C and the deadline on a live run: SIGINT sent to `mend run` while it waits on a stalled
//! loopback server, or while a slow test suite runs.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::thread;
use std::time::Duration;

use crate::common;
use crate::common::server::Server;
use crate::common::turns::{script, stalls_after};
use crate::common::{live_args, mend_command, repo_root, sigint, wait_until};
use serde_json::{json, Value};

/// A server whose first turn sends one line and then goes silent for longer than any test.
fn stalled_server() -> Server {
    Server::start(script(vec![stalls_after("Let me think")]))
}

/// Starts `mend run` with its temporary files in `tmp`, so that what it leaves behind is visible.
fn spawn_run(base: &str, record: &Path, tmp: &Path, repo: &Path, extra: &[&str]) -> Child {
    mend_command(&repo_root())
        .args(live_args("run", base, repo, record))
        .arg("--json")
        .args(extra)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mend starts")
}

fn finish(child: Child) -> (i32, String) {
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn read_record(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the record is written")).unwrap()
}

#[test]
fn the_first_ctrl_c_stops_a_stalled_stream_and_the_record_says_cancelled() {
    let server = stalled_server();
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let record = dir.path().join("cancelled.json");
    let mut child = spawn_run(
        &server.base,
        &record,
        tmp.path(),
        &repo_root().join("sample-repo"),
        &[],
    );
    // Wait until mend has shown the streamed text: the line is in and the stream has stalled.
    let mut events = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in events.by_ref() {
        let line = line.unwrap();
        let text_arrived = line.contains("\"type\":\"text_delta\"");
        seen.push(line);
        if text_arrived {
            break;
        }
    }
    sigint(&child);
    seen.extend(events.map_while(Result::ok));
    let stdout = seen.join("\n");
    let code = child.wait().unwrap().code().unwrap_or(-1);
    assert_eq!(code, 130, "{stdout}");
    let record = read_record(&record);
    assert_eq!(record["messages"][0]["stop"]["reason"], "cancelled");
    assert_eq!(
        record["messages"][0]["turns"][0]["lines"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "the line that arrived is kept"
    );
    assert_eq!(
        record["ending"]["tests_after"]["exit_code"], 1,
        "the verdict is still taken"
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "the workspace was not discarded: {left:?}");

    // The cancelled run replays: the Ctrl-C is where the record's last turn ends.
    let record_path = dir.path().join("cancelled.json");
    let replayed = common::mend(&["replay", "--json", record_path.to_str().unwrap()]);
    let verdict = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .map(|verdict| {
            (
                verdict["stop_reason"].clone(),
                verdict["replay_matched"].clone(),
            )
        });
    assert_eq!(
        (replayed.code, verdict),
        (1, Some((json!("cancelled"), json!(true)))),
        "{}",
        replayed.stderr
    );
}

#[test]
fn the_deadline_ends_a_stalled_stream_through_the_core() {
    let server = stalled_server();
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let record = dir.path().join("deadline.json");
    let child = spawn_run(
        &server.base,
        &record,
        tmp.path(),
        &repo_root().join("sample-repo"),
        &["--deadline", "1"],
    );
    let (code, stdout) = finish(child);
    assert_eq!(code, 1, "the tests still fail: {stdout}");
    let record = read_record(&record);
    assert_eq!(
        record["messages"][0]["stop"],
        serde_json::json!({"reason": "deadline_exceeded", "detail": "the run passed its deadline at 1000 ms"})
    );
}

#[test]
fn a_second_ctrl_c_exits_at_once_and_kills_the_running_tests() {
    let server = stalled_server();
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // A repository whose single test writes its pid where this test can see it, then sleeps.
    let repo = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pytest.pid");
    std::fs::create_dir(repo.path().join("tests")).unwrap();
    std::fs::write(repo.path().join("path_rules.py"), "").unwrap();
    std::fs::copy(
        repo_root().join("sample-repo/mend.toml"),
        repo.path().join("mend.toml"),
    )
    .unwrap();
    std::fs::write(
        repo.path().join("tests/test_path_rules.py"),
        format!("import os, time\n\ndef test_slow():\n    open({:?}, 'w').write(str(os.getpid()))\n    time.sleep(40)\n", pid_file.to_str().unwrap()),
    )
    .unwrap();
    let record = dir.path().join("never.json");
    let child = spawn_run(&server.base, &record, tmp.path(), repo.path(), &[]);
    // The starting tests run before the loop and are not cut by the first Ctrl-C.
    wait_until("the slow test starts", || {
        pid_file.exists() && !std::fs::read_to_string(&pid_file).unwrap().is_empty()
    });
    sigint(&child);
    thread::sleep(Duration::from_millis(100));
    sigint(&child);
    let (code, _) = finish(child);
    assert_eq!(code, 130);
    assert!(
        !record.exists(),
        "the second Ctrl-C exits before any record is written"
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    wait_until("the killed test process is gone", || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z")
    });
}
