//! The task's Stop hooks in `mend chat` and `mend resume`, as in `mend run`: when the model
//! finishes a message, a hook that blocks sends it back to work with its reason as the next
//! message; every hook's decision is in the record, and the record replays without running them.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{call, fix, say, script};
use crate::common::{mend, mend_command, repo_root, sample_copy};
use crate::hooks::ONCE_MORE;
use crate::support::{read, resume};

const COMMAND: &str = "sh hooks/once_more.sh";

/// The sample with a Stop hook that sends the model back once, after it said "done".
fn sample_with_stop_hook() -> tempfile::TempDir {
    let repo = sample_copy();
    std::fs::create_dir_all(repo.path().join("hooks")).unwrap();
    std::fs::write(repo.path().join("hooks/once_more.sh"), ONCE_MORE).unwrap();
    let task = std::fs::read_to_string(repo.path().join("mend.toml")).unwrap();
    let hooks =
        format!("\n[[hooks.Stop]]\nhooks = [{{ type = \"command\", command = \"{COMMAND}\" }}]\n");
    std::fs::write(repo.path().join("mend.toml"), format!("{task}{hooks}")).unwrap();
    repo
}

/// Each recorded message: what it asked, the tools it called, what the Stop hooks decided.
fn messages(record: &Value) -> Vec<Value> {
    record["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            let mut hooks = message["stop_hooks"].clone();
            for run in hooks.as_array_mut().into_iter().flatten() {
                run.as_object_mut().unwrap().remove("duration_ms");
            }
            let calls: Vec<&Value> = message["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|call| &call["name"])
                .collect();
            json!({"text": message["text"], "max_turns": message.get("max_turns"), "calls": calls, "stop_hooks": hooks})
        })
        .collect()
}

fn blocked() -> Value {
    json!([{"event": "Stop", "command": COMMAND, "decision": "block",
            "reason": "run the tests before you stop"}])
}

fn passed() -> Value {
    json!([{"event": "Stop", "command": COMMAND, "decision": "pass"}])
}

fn reason() -> String {
    format!("blocked by the Stop hook `{COMMAND}`: run the tests before you stop")
}

/// The hook made one that always blocks: a replay uses the recorded decisions, never the hook.
fn replays_without_the_hook(repo: &Path, record: &Path) {
    std::fs::write(
        repo.join("hooks/once_more.sh"),
        "echo '{\"decision\": \"block\", \"reason\": \"again\"}'\n",
    )
    .unwrap();
    let replayed = mend(&["replay", "--json", record.to_str().unwrap()]);
    assert_eq!(
        (replayed.code, replayed.stderr.as_str()),
        (0, ""),
        "{}",
        replayed.stdout
    );
}

#[test]
fn a_stop_hook_sends_the_model_back_in_a_chat_and_the_record_replays() {
    let repo = sample_with_stop_hook();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let server = Server::start(script(vec![
        fix("c1"),
        say("done"),
        call("c2", "run_tests", json!({})),
        say("tests pass"),
    ]));
    let mut child = mend_command(&repo_root())
        .args([
            "chat",
            "--sandbox",
            "bwrap",
            "--host",
            &server.base,
            "--repo",
        ])
        .arg(repo.path())
        .arg("--record")
        .arg(&record)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Fix the Windows paths.\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{said}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record_json = read(&record);
    assert_eq!(
        (
            messages(&record_json),
            record_json["ending"]["tests_after"]["exit_code"].clone()
        ),
        (
            vec![
                json!({"text": "Fix the Windows paths.", "max_turns": null, "calls": ["replace_text"], "stop_hooks": blocked()}),
                json!({"text": reason(), "max_turns": null, "calls": ["run_tests"], "stop_hooks": passed()}),
            ],
            json!(0)
        ),
        "{said}"
    );
    // The second session's last request carried the hook's reason as the user's message.
    let bodies = server.chat_bodies();
    assert_eq!(
        bodies[2]["messages"].as_array().unwrap().last().unwrap()["content"],
        json!(reason())
    );
    replays_without_the_hook(repo.path(), &record);
}

#[test]
fn a_stop_hook_sends_the_model_back_in_a_resumed_run_and_the_record_replays() {
    let repo = sample_with_stop_hook();
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    // The first run says hello and stops; the hook lets it (it blocks only after "done").
    let server = Server::start(script(vec![say("hello")]));
    let ran = mend(&[
        "run",
        "--json",
        "--sandbox",
        "bwrap",
        "--host",
        &server.base,
        "--repo",
        repo.path().to_str().unwrap(),
        "--record",
        first.to_str().unwrap(),
    ]);
    assert_eq!(ran.code, 1, "{}\n{}", ran.stdout, ran.stderr);
    let server = Server::start(script(vec![
        fix("c1"),
        say("done"),
        call("c2", "run_tests", json!({})),
        say("tests pass"),
    ]));
    let resumed = dir.path().join("resumed.json");
    let outcome = resume(
        &server.base,
        &first,
        &resumed,
        &[
            "--sandbox",
            "bwrap",
            "--message",
            "Now fix it.",
            "--max-turns",
            "5",
        ],
    );
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let record = read(&resumed);
    let first_text = read(&first)["messages"][0]["text"].clone();
    assert_eq!(
        messages(&record),
        vec![
            json!({"text": first_text, "max_turns": null, "calls": [], "stop_hooks": passed()}),
            json!({"text": "Now fix it.", "max_turns": 5, "calls": ["replace_text"], "stop_hooks": blocked()}),
            json!({"text": reason(), "max_turns": 5, "calls": ["run_tests"], "stop_hooks": passed()}),
        ]
    );
    replays_without_the_hook(repo.path(), &resumed);
}
