//! The task's Stop hooks in `mend run`, `mend chat` and `mend resume`: when the model
//! finishes a message, a hook that blocks sends it back to work with its reason as the next
//! message; every hook's decision is in the record, and the record replays without running them.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{call, fix, say, script};
use crate::common::{args_against, bwrap_run, sample_copy, typed_into};
use crate::support::{read, replays_cleanly, resume};

const COMMAND: &str = "sh hooks/once_more.sh";

/// Sends the model back once with a reason, then lets it stop (it reads `stop_hook_active`).
const ONCE_MORE: &str = r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":false'*'"last_assistant_message":"done"'*)
    echo '{"decision": "block", "reason": "run the tests before you stop"}' ;;
esac
exit 0
"#;

/// The model fixes the sample and says "done" (the hook blocks), then runs the tests and stops.
fn fix_then_test() -> Server {
    Server::start(script(vec![
        fix("c1"),
        say("done"),
        call("c2", "run_tests", json!({})),
        say("tests pass"),
    ]))
}

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
    replays_cleanly(record);
}

/// The reason the hook blocked with was the user's message of the request after it (the third).
fn third_request_carried_the_reason(server: &Server) {
    let bodies = server.chat_bodies();
    assert_eq!(
        bodies[2]["messages"].as_array().unwrap().last().unwrap()["content"],
        json!(reason())
    );
}

#[test]
fn a_stop_hook_sends_the_model_back_once_in_a_run_and_the_record_replays() {
    let repo = sample_with_stop_hook();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let server = fix_then_test();
    let outcome = bwrap_run(&server.base, repo.path(), &record, &[]);
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let recorded = read(&record);
    assert_eq!(
        messages(&recorded),
        vec![
            json!({"text": recorded["messages"][0]["text"], "max_turns": null, "calls": ["replace_text"], "stop_hooks": blocked()}),
            json!({"text": reason(), "max_turns": null, "calls": ["run_tests"], "stop_hooks": passed()}),
        ]
    );
    third_request_carried_the_reason(&server);
    replays_without_the_hook(repo.path(), &record);
}

#[test]
fn a_stop_hook_sends_the_model_back_in_a_chat_and_the_record_replays() {
    let repo = sample_with_stop_hook();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let server = fix_then_test();
    let chat = [
        args_against("chat", &server.base, repo.path(), &record).as_slice(),
        &["--sandbox", "bwrap"],
    ]
    .concat();
    let output = typed_into(&chat, "Fix the Windows paths.\n");
    let said = &output.stdout;
    assert_eq!(output.code, 0, "{said}\n{}", output.stderr);
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
    third_request_carried_the_reason(&server);
    replays_without_the_hook(repo.path(), &record);
}

#[test]
fn a_stop_hook_sends_the_model_back_in_a_resumed_run_and_the_record_replays() {
    let repo = sample_with_stop_hook();
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    // The first run says hello and stops; the hook lets it (it blocks only after "done").
    let server = Server::start(script(vec![say("hello")]));
    let ran = bwrap_run(&server.base, repo.path(), &first, &[]);
    assert_eq!(ran.code, 1, "{}\n{}", ran.stdout, ran.stderr);
    let server = fix_then_test();
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
