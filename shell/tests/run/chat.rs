//! `mend chat` with scripted input against a scripted Ollama on 127.0.0.1: a conversation that
//! repairs the sample, the commands on its copy, a follow-up in the same conversation, and a
//! Ctrl-C that ends one turn but not the session.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::server::{Ending, Reply, Server};
use crate::common::turns::{recorded_replies, script, MODEL};
use crate::common::{fixture, live_args, mend_command, repo_root, sigint, tree_digest};
use serde_json::{json, Value};
use sha2::Digest;

/// A one-chunk answer without tool calls.
fn answer(text: &str) -> Reply {
    let line = |message: Value, done: bool| {
        json!({"model": MODEL, "created_at": "2026-12-02T10:00:00Z", "message": message, "done": done})
            .to_string()
    };
    let mut done =
        serde_json::from_str::<Value>(&line(json!({"role": "assistant", "content": ""}), true))
            .unwrap();
    done["done_reason"] = json!("stop");
    Reply::lines(&[
        line(json!({"role": "assistant", "content": text}), false),
        done.to_string(),
    ])
}

/// A server that plays the recorded repair's turns, then answers one follow-up.
fn repair_then_answer(repair: &Value) -> Server {
    let mut chats = recorded_replies(repair);
    chats.push(answer("Nothing else: the four tests pass."));
    Server::start(script(chats))
}

/// The `num_ctx` each request carried.
fn num_ctx_of(bodies: &[Value]) -> Vec<Value> {
    bodies
        .iter()
        .map(|body| body["options"]["num_ctx"].clone())
        .collect()
}

fn spawn_chat(base: &str, repo: &std::path::Path, record: &std::path::Path) -> Child {
    mend_command(&repo_root())
        .args(live_args("chat", base, repo, record))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mend starts")
}

/// Everything the child has written to stdout so far, collected on a thread.
fn collect_stdout(child: &mut Child) -> Arc<Mutex<String>> {
    let seen = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&seen);
    thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    });
    seen
}

fn wait_for(seen: &Mutex<String>, text: &str) {
    let give_up = Instant::now() + Duration::from_secs(30);
    while !seen.lock().unwrap().contains(text) {
        assert!(
            Instant::now() < give_up,
            "gave up waiting for {text:?} in:\n{}",
            seen.lock().unwrap()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

fn finish(mut child: Child, seen: &Mutex<String>) -> (i32, String, String) {
    let code = child.wait().unwrap().code().unwrap_or(-1);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    // The reader thread ends at the pipe's end; give it a moment to hand over the last bytes.
    thread::sleep(Duration::from_millis(100));
    (code, seen.lock().unwrap().clone(), stderr)
}

#[test]
fn a_conversation_repairs_the_sample_and_goes_on_in_the_same_history() {
    let repair = fixture("repair");
    let server = repair_then_answer(&repair);
    let sample = repo_root().join("sample-repo");
    let sample_before = tree_digest(&sample);
    let dir = tempfile::tempdir().unwrap();
    let patch = dir.path().join("fix.patch");
    let record = dir.path().join("chat.json");

    let mut child = spawn_chat(&server.base, &sample, &record);
    let seen = collect_stdout(&mut child);
    let nowhere = dir.path().join("no/such/folder/fix.patch");
    let script = format!(
        "Fix the Windows paths.\n/diff\n/verify\n/save\n/save {}\n/save {}\n/frobnicate\nAnything else?\n",
        nowhere.display(),
        patch.display()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap(); // dropped here: the end of input ends the session
    let (code, stdout, stderr) = finish(child, &seen);

    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(tree_digest(&sample), sample_before, "the original changed");
    let diff = repair["diff"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(&patch).unwrap(), diff);
    assert!(!dir.path().join("no").exists(), "/save created a folder");
    let wrote = format!("Wrote the change to {}.", patch.display());
    let refused = format!(
        "mend: cannot write {}: the folder {} does not exist (mend creates no folders) — create it or choose another path; nothing was written",
        nowhere.display(),
        nowhere.parent().unwrap().display()
    );
    let saved = format!(
        "The copy is discarded; its change is saved in {}.",
        patch.display()
    );
    let commands_said: Vec<&str> = [
        diff,
        "Independent final tests: 4 passed",
        "/save PATH writes the change as a patch file, e.g. `/save fix.patch`; the folder must exist (mend creates none)",
        &refused,
        &wrote,
        "`/frobnicate` is not a command of mend chat; type /help for the list",
        "Nothing else: the four tests pass.",
        "Independent final tests: 4 passed",
        &saved,
    ]
    .into_iter()
    .filter(|said| !stdout.contains(said))
    .collect();
    assert_eq!(commands_said, Vec::<&str>::new(), "missing from:\n{stdout}");
    assert_eq!(stdout.matches("Stopped: assistant_finished").count(), 2);
    commands_are_recorded_shown_and_replayed(&record, &patch, &nowhere, diff);
    assert!(!stdout.contains("not saved"), "{stdout}");
    assert!(!stdout.contains("`/save` is not a command"), "{stdout}");

    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 6, "five turns, then one for the follow-up");
    // Before the first message: the window, why, and the opening's estimate, which is the
    // first request measured from scratch without what the user typed.
    let mut opening: Vec<mend_core::Message> =
        serde_json::from_value(bodies[0]["messages"].clone()).unwrap();
    for message in &mut opening {
        if message.content == "Fix the Windows paths." {
            message.content.clear();
        }
    }
    let opening: Vec<Arc<mend_core::Message>> = opening.into_iter().map(Arc::new).collect();
    let tools: Vec<mend_core::ToolSpec> =
        serde_json::from_value(bodies[0]["tools"].clone()).unwrap();
    let tokens = mend_core::estimate_prompt_tokens(&opening, &tools);
    let window_line = format!(
        "Context window: 16384 tokens, the num_ctx of every request (mend's default for small \
         machines; the server did not say the model's length)\nBefore your first message: about \
         {tokens} tokens (the system prompt, the instructions and the tools: {} % of the window; \
         a conservative estimate)\n",
        tokens * 100 / 16384
    );
    assert!(
        stdout.contains(&window_line),
        "{window_line:?} missing from:\n{stdout}"
    );
    assert_eq!(num_ctx_of(&bodies), vec![json!(16384); 6]);
    assert_eq!(
        bodies[0]["messages"][1],
        json!({"role": "user", "content": "Fix the Windows paths."})
    );
    let before: &Vec<Value> = bodies[4]["messages"].as_array().unwrap();
    let after: &Vec<Value> = bodies[5]["messages"].as_array().unwrap();
    let summary = repair["turns"][4]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|line| {
            serde_json::from_str::<Value>(line["text"].as_str().unwrap()).ok()?["message"]
                ["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect::<String>();
    let mut expected = before.clone();
    expected.push(after[before.len()].clone());
    expected.push(json!({"role": "user", "content": "Anything else?"}));
    assert_eq!(after, &expected);
    assert_eq!(
        (
            after[before.len()]["role"].as_str(),
            after[before.len()]["content"].as_str()
        ),
        (Some("assistant"), Some(summary.as_str()))
    );
}

#[test]
fn ctrl_c_interrupts_the_turn_and_the_conversation_goes_on() {
    let line = json!({"model": MODEL, "created_at": "2026-12-02T10:00:00Z", "message": {"role": "assistant", "content": "Let me think"}, "done": false});
    let server = Server::start(script(vec![
        Reply::Stream {
            writes: vec![(Duration::ZERO, format!("{line}\n").into_bytes())],
            ending: Ending::Stall(Duration::from_secs(5)),
        },
        answer("Still here."),
    ]));
    let sample = repo_root().join("sample-repo");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let mut child = spawn_chat(&server.base, &sample, &record);
    let seen = collect_stdout(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"Read the source.\n").unwrap();
    wait_for(&seen, "Let me think");
    sigint(&child);
    wait_for(&seen, "Stopped: cancelled");
    stdin.write_all(b"Are you there?\n").unwrap();
    drop(stdin);
    let (code, stdout, stderr) = finish(child, &seen);

    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Still here."), "{stdout}");
    let bodies = server.chat_bodies();
    let last: Vec<Value> = bodies[1]["messages"].as_array().unwrap().clone();
    // The cut turn left no assistant message: the history is the first question, then the second.
    assert_eq!(
        last[1..].to_vec(),
        vec![
            json!({"role": "user", "content": "Read the source."}),
            json!({"role": "user", "content": "Are you there?"}),
        ]
    );

    // The recorded conversation replays, the Ctrl-C included.
    let replayed = common::mend(&["replay", "--json", record.to_str().unwrap()]);
    let stops: Vec<Value> = replayed
        .events()
        .into_iter()
        .filter(|event| event["type"] == "stopped")
        .map(|event| event["reason"].clone())
        .collect();
    let matched = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .map(|verdict| verdict["replay_matched"].clone());
    assert_eq!(
        (replayed.code, stops, matched),
        (
            1,
            vec![json!("cancelled"), json!("assistant_finished")],
            Some(json!(true))
        ),
        "{}",
        replayed.stderr
    );
}

/// The chat's /verify and /save, with their outcomes, in its record at their place; `mend show`
/// and `mend replay` tell them there.
fn commands_are_recorded_shown_and_replayed(
    record: &Path,
    patch: &Path,
    nowhere: &Path,
    diff: &str,
) {
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
    let mut commands = recorded["commands"].clone();
    // The one figure that is the machine's, not the chat's.
    commands[0]["tests"]["duration_ms"] = json!(0);
    let refused = format!(
        "cannot write {}: the folder {} does not exist (mend creates no folders) — create it or choose another path; nothing was written",
        nowhere.display(),
        nowhere.parent().unwrap().display()
    );
    let diff_sha256 = format!("{:x}", sha2::Sha256::digest(diff.as_bytes()));
    assert_eq!(
        commands,
        json!([
            {"after_messages": 1, "command": "verify", "passed": true,
             "tests": {"exit_code": 0, "duration_ms": 0,
                       "summary": {"passed": 4, "failed": 0, "errors": 0, "skipped": 0},
                       "runner": common::installed_runner()}},
            {"after_messages": 1, "command": "save", "path": nowhere.to_str().unwrap(),
             "saved": {"outcome": "failed", "error": refused}},
            {"after_messages": 1, "command": "save", "path": patch.to_str().unwrap(),
             "saved": {"outcome": "written", "diff_sha256": diff_sha256}},
        ])
    );
    let shown = common::mend(&["show", record.to_str().unwrap()]);
    let typed: Vec<&str> = shown
        .stdout
        .lines()
        .filter(|line| line.starts_with("Typed "))
        .collect();
    assert_eq!(
        typed,
        [
            "Typed /verify: 4 passed — PASS".to_owned(),
            format!("Typed /save {}: not written — {refused}", nowhere.display()),
            format!("Typed /save {}: the change was written", patch.display()),
        ],
        "{}",
        shown.stdout
    );
    let replayed = common::mend(&["replay", "--json", record.to_str().unwrap()]);
    let told: Vec<(Value, Value)> = replayed
        .events()
        .into_iter()
        .filter(|event| event["type"] == "chat_command")
        .map(|event| (event["after_messages"].clone(), event["command"].clone()))
        .collect();
    assert_eq!(
        (replayed.code, told),
        (
            0,
            vec![
                (json!(1), json!("verify")),
                (json!(1), json!("save")),
                (json!(1), json!("save"))
            ]
        ),
        "{}",
        replayed.stderr
    );
}

#[test]
fn a_recorded_conversation_replays_offline_and_a_changed_answer_diverges() {
    let repair = fixture("repair");
    let server = repair_then_answer(&repair);
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let mut child = spawn_chat(&server.base, &repo_root().join("sample-repo"), &record);
    let seen = collect_stdout(&mut child);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Fix the Windows paths.\nAnything else?\n")
        .unwrap();
    let (code, stdout, stderr) = finish(child, &seen);
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    let replayed = common::mend(&["replay", "--json", record.to_str().unwrap()]);
    let verdict = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .map(|mut verdict| {
            verdict.as_object_mut().unwrap().remove("metrics");
            verdict
        });
    assert_eq!(
        (replayed.code, verdict),
        (
            0,
            Some(
                json!({"type": "verdict", "tests_pass": true, "sandbox": "none", "runner": common::installed_runner(), "replay_matched": true, "stop_reason": "assistant_finished", "exit_code": 0})
            )
        ),
        "{}",
        replayed.stderr
    );

    // A recorded tool result no longer matches what the tools do: the replay says where.
    let mut tampered: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    tampered["messages"][0]["tool_calls"][2]["result"]["replaced"] = json!(2);
    std::fs::write(&record, tampered.to_string()).unwrap();
    let diverged = common::mend(&["replay", "--json", record.to_str().unwrap()]);
    let what: Vec<Value> = diverged
        .events()
        .into_iter()
        .filter(|event| event["type"] == "divergence")
        .map(|event| event["what"].clone())
        .collect();
    assert_eq!(
        (diverged.code, what),
        (
            3,
            vec![json!("message 1, turn 3, tool call 0 (`replace_text`)")]
        )
    );
}

#[test]
fn ctrl_c_at_the_prompt_gives_a_fresh_one_and_ctrl_d_ends_on_its_own_line() {
    let server = repair_then_answer(&fixture("repair"));
    let sample = repo_root().join("sample-repo");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");

    let mut child = spawn_chat(&server.base, &sample, &record);
    let seen = collect_stdout(&mut child);
    wait_for(&seen, "Working on a copy of");
    // Twice: before, the second Ctrl-C at an idle prompt ended mend with 130.
    for _ in 0..2 {
        // Time to reach the prompt's read after the greeting.
        thread::sleep(Duration::from_millis(500));
        sigint(&child);
    }
    thread::sleep(Duration::from_millis(300));
    drop(child.stdin.take());
    let (code, stdout, stderr) = finish(child, &seen);

    // After the first prompt: a fresh one for each Ctrl-C, and the line Ctrl-D ends.
    let after_first_prompt = stderr.split_once("mend> ").map(|(_, after)| after);
    assert_eq!(
        (code, after_first_prompt),
        (0, Some("\nmend> \nmend> \n")),
        "{stdout}\n{stderr}"
    );
}
