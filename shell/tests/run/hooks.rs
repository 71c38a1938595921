//! `[hooks]` end to end: a PreToolUse hook in the sandbox blocks a call (the model reads its
//! stderr) and lets the next through, the record keeps every decision, and a replay reuses them
//! rather than running the hook again.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{call, fix, say, script, OLD};
use crate::common::{mend, sample_copy};
use crate::support::read;

/// Blocks any call whose JSON says `hack`; leaves a mark in /tmp, which only the sandbox's is.
const GUARD: &str = r#"input=$(cat)
echo "$input" > "/tmp/mend-hook-saw-$MARK"
case "$input" in
  *hack*) echo "no hacks in this repository" >&2; exit 2 ;;
esac
exit 0
"#;

fn with_hook(repo: &Path, mark: &str) {
    std::fs::create_dir_all(repo.join("hooks")).unwrap();
    std::fs::write(repo.join("hooks/guard.sh"), GUARD.replace("$MARK", mark)).unwrap();
    let task = std::fs::read_to_string(repo.join("mend.toml")).unwrap();
    let hooks = r#"
[[hooks.PreToolUse]]
matcher = "replace_text|write_file"
hooks = [{ type = "command", command = "sh hooks/guard.sh", timeout = 20 }]
"#;
    std::fs::write(repo.join("mend.toml"), format!("{task}{hooks}")).unwrap();
}

/// The hook runs of each call of a record, their times left out.
fn decisions(record: &Value) -> Vec<Value> {
    record["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let mut hooks = call["hooks"].clone();
            for run in hooks.as_array_mut().into_iter().flatten() {
                run.as_object_mut().unwrap().remove("duration_ms");
            }
            json!({"name": call["name"], "status": call["status"], "hooks": hooks})
        })
        .collect()
}

#[test]
fn a_hook_blocks_a_call_in_the_sandbox_and_its_decision_replays() {
    let repo = sample_copy();
    let mark = format!("{}", std::process::id());
    with_hook(repo.path(), &mark);
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let hack = json!({"old": OLD, "new": "        path = hack(name)"});
    let server = Server::start(script(vec![
        call("c1", "replace_text", hack),
        fix("c2"),
        say("done"),
    ]));
    let outcome = mend(&[
        "run",
        "--json",
        "--sandbox",
        "bwrap",
        "--host",
        &server.base,
        "--repo",
        repo.path().to_str().unwrap(),
        "--record",
        record_path.to_str().unwrap(),
    ]);
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let record = read(&record_path);
    let command = "sh hooks/guard.sh";
    assert_eq!(
        decisions(&record),
        vec![
            json!({"name": "replace_text", "status": "failed", "hooks": [{
                "event": "PreToolUse", "command": command, "decision": "block",
                "reason": "no hacks in this repository"}]}),
            json!({"name": "replace_text", "status": "ok", "hooks": [{
                "event": "PreToolUse", "command": command, "decision": "pass"}]}),
        ]
    );
    // The model read the hook's reason as the blocked call's result.
    let second = &server.chat_bodies()[1];
    let told = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .map(|message| message["content"].clone());
    assert_eq!(
        told,
        Some(json!(json!({"error": format!("blocked by the PreToolUse hook `{command}`: no hacks in this repository")}).to_string()))
    );
    // The hook ran inside the sandbox: its /tmp was never this machine's.
    assert!(!Path::new(&format!("/tmp/mend-hook-saw-{mark}")).exists());
    let hook_ms: u64 = record["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|call| call["hooks"].as_array().cloned().unwrap_or_default())
        .map(|run| run["duration_ms"].as_u64().unwrap())
        .sum();
    assert_eq!(record["metrics"]["hook_ms"].as_u64().unwrap_or(0), hook_ms);

    // A hook that now blocks everything: the replay reuses the recorded decisions, so it
    // matches, and the hook never runs.
    std::fs::write(
        repo.path().join("hooks/guard.sh"),
        "echo ran > ran-in-replay; exit 2\n",
    )
    .unwrap();
    let replayed = mend(&["replay", "--json", record_path.to_str().unwrap()]);
    assert_eq!(
        (replayed.code, replayed.stderr.as_str()),
        (0, ""),
        "{}",
        replayed.stdout
    );
}

/// Sends the model back once with a reason, then lets it stop (it reads `stop_hook_active`).
pub(crate) const ONCE_MORE: &str = r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":false'*'"last_assistant_message":"done"'*)
    echo '{"decision": "block", "reason": "run the tests before you stop"}' ;;
esac
exit 0
"#;

#[test]
fn a_stop_hook_sends_the_model_back_once_and_the_record_replays() {
    let repo = sample_copy();
    std::fs::create_dir_all(repo.path().join("hooks")).unwrap();
    std::fs::write(repo.path().join("hooks/once_more.sh"), ONCE_MORE).unwrap();
    let task = std::fs::read_to_string(repo.path().join("mend.toml")).unwrap();
    let hooks = r#"
[[hooks.Stop]]
hooks = [{ type = "command", command = "sh hooks/once_more.sh" }]
"#;
    std::fs::write(repo.path().join("mend.toml"), format!("{task}{hooks}")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let server = Server::start(script(vec![
        fix("c1"),
        say("done"),
        call("c2", "run_tests", json!({})),
        say("tests pass"),
    ]));
    let outcome = mend(&[
        "run",
        "--json",
        "--sandbox",
        "bwrap",
        "--host",
        &server.base,
        "--repo",
        repo.path().to_str().unwrap(),
        "--record",
        record_path.to_str().unwrap(),
    ]);
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let record = read(&record_path);
    let command = "sh hooks/once_more.sh";
    let messages: Vec<Value> = record["messages"]
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
            json!({"text": message["text"], "calls": calls, "stop_hooks": hooks})
        })
        .collect();
    let reason = format!("blocked by the Stop hook `{command}`: run the tests before you stop");
    assert_eq!(
        messages,
        vec![
            json!({"text": record["messages"][0]["text"], "calls": ["replace_text"], "stop_hooks": [
                {"event": "Stop", "command": command, "decision": "block",
                 "reason": "run the tests before you stop"}]}),
            json!({"text": reason, "calls": ["run_tests"], "stop_hooks": [
                {"event": "Stop", "command": command, "decision": "pass"}]}),
        ]
    );
    // The last request of the second session carried the hook's reason as the user's message.
    let bodies = server.chat_bodies();
    let third = bodies[2]["messages"].as_array().unwrap();
    assert_eq!(third.last().unwrap()["content"], json!(reason));

    // The replay plays both messages; the hook, now one that always blocks, never runs.
    std::fs::write(
        repo.path().join("hooks/once_more.sh"),
        "echo '{\"decision\": \"block\", \"reason\": \"again\"}'\n",
    )
    .unwrap();
    let replayed = mend(&["replay", "--json", record_path.to_str().unwrap()]);
    assert_eq!(
        (replayed.code, replayed.stderr.as_str()),
        (0, ""),
        "{}",
        replayed.stdout
    );
}
