//! `mend run` against a scripted Ollama on 127.0.0.1: the recorded repair end to end over HTTP,
//! the request bodies the server receives, and every way a server can fail.

use std::time::Duration;

use crate::common;
use crate::common::server::{closed_port_base, Ending, Reply, Script, Server};
use crate::common::turns::{recorded_lines, script, DIGEST, MODEL, NEW};
use crate::common::{fixture, mend, repo_root, tree_digest};
use crate::support::rows;
use serde_json::{json, Value};

struct Live {
    outcome: common::Outcome,
    record: Option<Value>,
    record_path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn run_against(base: &str, extra: &[&str]) -> Live {
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let sample_before = tree_digest(&repo_root().join("sample-repo"));
    let mut args = vec![
        "run",
        "--repo",
        "sample-repo",
        "--json",
        "--host",
        base,
        "--record",
        record_path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let outcome = mend(&args);
    assert_eq!(
        tree_digest(&repo_root().join("sample-repo")),
        sample_before,
        "the original sample changed"
    );
    let record = std::fs::read_to_string(&record_path)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    Live {
        outcome,
        record,
        record_path,
        _dir: dir,
    }
}

/// (exit code, stop reason, tools started): how a run ended, as one value.
fn ending(live: &Live) -> (i32, String, usize) {
    let events = live.outcome.events();
    let stop = events
        .iter()
        .find(|event| event["type"] == "stopped")
        .map(|event| event["reason"].as_str().unwrap().to_owned())
        .unwrap_or_default();
    let tools = events
        .iter()
        .filter(|event| event["type"] == "tool_start")
        .count();
    (live.outcome.code, stop, tools)
}

#[test]
fn the_recorded_repair_runs_end_to_end_over_http_and_replays() {
    let server = Server::start(script(
        recorded_lines(&fixture("repair"))
            .iter()
            .map(|lines| Reply::lines(lines))
            .collect(),
    ));
    let live = run_against(&server.base, &[]);
    assert_eq!(
        ending(&live),
        (0, "assistant_finished".to_owned(), 4),
        "{}",
        live.outcome.stderr
    );

    // Every request the server received, as (role, tool_name, tool_call_id) rows.
    let bodies = server.chat_bodies();
    assert_eq!(bodies.len(), 5);
    let start = vec![
        ("system".to_owned(), Value::Null, Value::Null),
        ("user".to_owned(), Value::Null, Value::Null),
    ];
    let mut expected = start.clone();
    let ids = [
        "call_k3m9x2qa",
        "call_p7d2w8ne",
        "call_z1c5v0rt",
        "call_h4q8y6lb",
    ];
    let names = ["read_file", "read_file", "replace_text", "run_tests"];
    for (turn, body) in bodies.iter().enumerate() {
        assert_eq!(rows(body), expected, "request {}", turn + 1);
        if turn < 4 {
            expected.push(("assistant".to_owned(), Value::Null, Value::Null));
            expected.push(("tool".to_owned(), json!(names[turn]), json!(ids[turn])));
        }
    }
    // The second request carries the first call and its result verbatim.
    let source = std::fs::read_to_string(repo_root().join("sample-repo/path_rules.py")).unwrap();
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(
        messages[2]["tool_calls"],
        json!([{"id": "call_k3m9x2qa", "function": {"index": 0, "name": "read_file", "arguments": {"path": "path_rules.py"}}}])
    );
    assert_eq!(
        messages[3]["content"],
        json!({"path": "path_rules.py", "text": source}).to_string()
    );
    // The request itself, apart from the conversation.
    let mut settings = bodies[0].clone();
    settings.as_object_mut().unwrap().remove("messages");
    settings.as_object_mut().unwrap().remove("tools");
    assert_eq!(
        settings,
        json!({"model": MODEL, "stream": true, "think": true, "keep_alive": 300,
               "options": {"temperature": 0.0, "seed": 7, "num_ctx": 16384, "num_predict": 2048}})
    );

    let record = live.record.as_ref().expect("the record is written");
    assert_eq!(
        (
            &record["model_digest"],
            &record["server_version"],
            &record["repo"]
        ),
        (
            &json!(DIGEST),
            &json!("0.33.0"),
            &json!(repo_root()
                .join("sample-repo")
                .canonicalize()
                .unwrap()
                .to_str()
                .unwrap())
        )
    );
    assert_eq!(
        record["ending"]["tests_after"]["summary"],
        json!({"passed": 4, "failed": 0, "errors": 0, "skipped": 0})
    );
    assert!(record["ending"]["diff"]
        .as_str()
        .unwrap()
        .contains(&format!("+{NEW}")));
    let patch = std::fs::read_to_string(live.record_path.with_extension("patch"))
        .expect("the patch is written next to the record");
    assert_eq!(patch, record["ending"]["diff"].as_str().unwrap());
    let replayed = mend(&["replay", live.record_path.to_str().unwrap()]);
    assert_eq!(
        replayed.code, 0,
        "the live record replays: {}{}",
        replayed.stdout, replayed.stderr
    );
}

#[test]
fn an_unreachable_server_is_named_with_the_fix() {
    let base = closed_port_base();
    let live = run_against(&base, &[]);
    assert_eq!(live.outcome.code, 5);
    assert_eq!(
        live.outcome.stderr.trim(),
        format!("mend: error: no Ollama at {base} — start `ollama serve` or set OLLAMA_HOST (or --host)")
    );
    assert!(live.record.is_none(), "nothing ran, so nothing is recorded");
}

#[test]
fn a_model_that_is_not_pulled_is_named_with_the_fix() {
    let server = Server::start(Script {
        models: vec![("llama3.2:latest", DIGEST)],
        chats: vec![],
    });
    let live = run_against(&server.base, &[]);
    assert_eq!(live.outcome.code, 5);
    assert!(
        live.outcome.stderr.contains(&format!(
            "model {MODEL} not found at {} — run `ollama pull {MODEL}`",
            server.base
        )),
        "{}",
        live.outcome.stderr
    );
    assert!(server.chat_bodies().is_empty());
}

/// A failure case: name, the server's reply, extra flags, (exit code, stop), a message to find.
struct Case(
    &'static str,
    Reply,
    &'static [&'static str],
    (i32, &'static str),
    &'static str,
);

fn first_line(turns: &[Vec<String>]) -> String {
    turns[0][0].clone()
}

#[test]
fn every_server_failure_ends_the_turn_with_its_reason_and_runs_nothing() {
    let repair = recorded_lines(&fixture("repair"));
    let first_turn = &repair[0];
    let without_done = &first_turn[..first_turn.len() - 1];
    let text = first_line(&repair);
    let done_length = first_turn
        .last()
        .unwrap()
        .replace("\"done_reason\":\"stop\"", "\"done_reason\":\"length\"");
    let over_long = format!(
        "{{\"message\":{{\"role\":\"assistant\",\"content\":\"{}\"}},\"done\":false}}",
        "x".repeat(9 << 20)
    );
    let status = |code: u16, body: &str| Reply::Status {
        code,
        body: body.to_owned(),
    };
    let cases: Vec<Case> = vec![
        Case(
            "404 from the chat",
            status(404, r#"{"error":"model 'gemma4:e2b' not found"}"#),
            &[],
            (5, "model_error"),
            "run `ollama pull gemma4:e2b`",
        ),
        Case(
            "400 tools unsupported",
            status(
                400,
                r#"{"error":"registry.ollama.ai/library/gemma4:e2b does not support tools"}"#,
            ),
            &[],
            (5, "model_error"),
            "does not support tools — choose a model with tool support",
        ),
        Case(
            "500",
            status(500, r#"{"error":"llama runner process has terminated"}"#),
            &[],
            (5, "model_error"),
            "HTTP 500: llama runner process has terminated",
        ),
        Case(
            "an error line under 200",
            Reply::lines(&[
                text.clone(),
                r#"{"error":"an error was encountered while running the model"}"#.to_owned(),
            ]),
            &[],
            (5, "model_error"),
            "mid-stream: an error was encountered while running the model",
        ),
        Case(
            "a dropped connection",
            Reply::Stream {
                writes: vec![(Duration::ZERO, format!("{text}\n").into_bytes())],
                ending: Ending::Drop,
            },
            &[],
            (5, "model_error"),
            "the connection broke mid-stream",
        ),
        Case(
            "no done",
            Reply::lines(without_done),
            &[],
            (5, "incomplete_model_turn"),
            "ended without a `done` chunk",
        ),
        Case(
            "done_reason length",
            Reply::lines(&[without_done.to_vec(), vec![done_length]].concat()),
            &[],
            (5, "incomplete_model_turn"),
            "the model ran out of tokens: the model's output was cut off by the token limit",
        ),
        Case(
            "a malformed line",
            Reply::lines(&[text.clone(), "{\"message\":".to_owned()]),
            &[],
            (5, "model_error"),
            "malformed stream line",
        ),
        Case(
            "invalid UTF-8",
            Reply::Stream {
                writes: vec![(
                    Duration::ZERO,
                    b"{\"message\":{\"content\":\"\xff\xfe\"},\"done\":false}\n".to_vec(),
                )],
                ending: Ending::Clean,
            },
            &[],
            (5, "model_error"),
            "malformed stream line",
        ),
        Case(
            "a stall longer than the read timeout",
            Reply::Stream {
                writes: vec![(Duration::ZERO, format!("{text}\n").into_bytes())],
                ending: Ending::Stall(Duration::from_secs(4)),
            },
            &["--read-timeout", "1"],
            (5, "model_error"),
            "no data from the server for 1000 ms (read timeout)",
        ),
        Case(
            "an over-long line",
            Reply::lines(&[over_long]),
            &[],
            (5, "model_error"),
            "a stream line exceeded 8388608 bytes",
        ),
    ];
    for Case(name, reply, extra, (code, stop), message) in cases {
        let server = Server::start(script(vec![reply]));
        let live = run_against(&server.base, extra);
        assert_eq!(
            ending(&live),
            (code, stop.to_owned(), 0),
            "{name}: {}",
            live.outcome.stderr
        );
        assert!(
            live.outcome.stderr.contains(message),
            "{name}: {}",
            live.outcome.stderr
        );
        let record = live
            .record
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no record"));
        assert_eq!(record["messages"][0]["stop"]["reason"], stop, "{name}");
        assert_eq!(record["ending"]["tests_after"]["exit_code"], 1, "{name}");
    }
}

#[test]
fn lines_split_across_writes_or_packed_into_one_arrive_whole() {
    let first_turn = &recorded_lines(&fixture("bounded"))[0];
    let body = first_turn
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>()
        .into_bytes();
    // Every line cut into three writes with pauses between them.
    let mut split = Vec::new();
    for line in first_turn {
        let bytes = format!("{line}\n").into_bytes();
        let third = bytes.len() / 3;
        for piece in [
            &bytes[..third],
            &bytes[third..2 * third],
            &bytes[2 * third..],
        ] {
            split.push((Duration::from_millis(15), piece.to_vec()));
        }
    }
    let replies = [
        (
            "split",
            Reply::Stream {
                writes: split,
                ending: Ending::Clean,
            },
        ),
        (
            "packed",
            Reply::Stream {
                writes: vec![(Duration::ZERO, body)],
                ending: Ending::Clean,
            },
        ),
    ];
    for (name, reply) in replies {
        let server = Server::start(script(vec![reply]));
        let live = run_against(&server.base, &["--max-turns", "1"]);
        assert_eq!(
            ending(&live),
            (1, "max_turns".to_owned(), 1),
            "{name}: {}",
            live.outcome.stderr
        );
        let lines: Vec<String> = live.record.as_ref().unwrap()["messages"][0]["turns"][0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| line["text"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(&lines, first_turn, "{name}");
    }
}

#[test]
fn with_context_each_request_ends_with_its_hint_and_the_record_replays() {
    let server = Server::start(script(vec![Reply::lines(
        &recorded_lines(&fixture("bounded"))[0],
    )]));
    let live = run_against(&server.base, &["--max-turns", "1", "--context"]);
    assert_eq!(
        ending(&live),
        (1, "max_turns".to_owned(), 1),
        "{}",
        live.outcome.stderr
    );
    let body = &server.chat_bodies()[0];
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    let os = std::env::consts::OS;
    assert_eq!(
        last,
        json!({"role": "system", "content": format!("Context for turn 1 of 1 (working directory `sample-repo`, OS {os}).\nNo tool calls yet.")})
    );
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["read_file", "replace_text", "run_tests", "todo"]);
    let record = live.record.as_ref().unwrap();
    assert_eq!(
        record["context"],
        json!({"workdir": "sample-repo", "os": os})
    );
    let replayed = mend(&["replay", "--json", live.record_path.to_str().unwrap()]);
    let verdict = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .unwrap();
    assert_eq!(verdict["replay_matched"], true, "{}", replayed.stdout);
}

#[test]
fn a_line_just_under_the_cap_is_read_whole() {
    let text = "y".repeat((8 << 20) - 200);
    let long =
        format!("{{\"message\":{{\"role\":\"assistant\",\"content\":\"{text}\"}},\"done\":false}}");
    let done = r#"{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#
        .to_owned();
    assert!(long.len() < 8 << 20);
    let server = Server::start(script(vec![Reply::lines(&[long, done])]));
    let live = run_against(&server.base, &[]);
    assert_eq!(
        ending(&live),
        (1, "assistant_finished".to_owned(), 0),
        "{}",
        live.outcome.stderr
    );
    let streamed: usize = live
        .outcome
        .events()
        .iter()
        .filter(|event| event["type"] == "text_delta")
        .map(|event| event["text"].as_str().unwrap().len())
        .sum();
    assert_eq!(streamed, text.len());
}
