//! `mend run --provider openai|anthropic` against the scripted server: real SSE framing, history
//! in each protocol's shape, keys sent as headers and nowhere else, and records that replay.

use crate::common::server::{Ending, Reply, Script, Server};
use crate::common::{mend_with_env, repo_root};
use serde_json::{json, Value};

const KEY: &str = "sk-mend-test-secret-0042";

/// SSE lines for these events, with `data: [DONE]` at the end when `done`.
fn sse(events: &[Value], named: bool, done: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for event in events {
        if named {
            lines.push(format!("event: {}", event["type"].as_str().unwrap()));
        }
        lines.push(format!("data: {event}"));
        lines.push(String::new());
    }
    if done {
        lines.extend(["data: [DONE]".to_owned(), String::new()]);
    }
    lines
}

fn openai_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn openai_turns() -> Vec<Vec<String>> {
    let call = |fragment: Value| openai_chunk(json!({"tool_calls": [fragment]}), None);
    let first = sse(
        &[
            openai_chunk(json!({"role": "assistant", "content": "Reading."}), None),
            call(
                json!({"index": 0, "id": "call_o1", "type": "function", "function": {"name": "read_file", "arguments": ""}}),
            ),
            call(json!({"index": 0, "function": {"arguments": "{\"path\": \"path_"}})),
            call(json!({"index": 0, "function": {"arguments": "rules.py\"}"}})),
            openai_chunk(json!({}), Some("tool_calls")),
            json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 9}}),
        ],
        false,
        true,
    );
    let second = sse(
        &[
            openai_chunk(json!({"content": "I read it."}), None),
            openai_chunk(json!({}), Some("stop")),
        ],
        false,
        true,
    );
    vec![first, second]
}

fn anthropic_turns() -> Vec<Vec<String>> {
    let first = sse(
        &[
            json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 900}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Reading."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"path_"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "rules.py\"}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
            json!({"type": "message_stop"}),
        ],
        true,
        false,
    );
    let second = sse(
        &[
            json!({"type": "message_start", "message": {"id": "msg_2", "usage": {"input_tokens": 1100}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "I read it."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
            json!({"type": "message_stop"}),
        ],
        true,
        false,
    );
    vec![first, second]
}

struct Run {
    code: i32,
    stop: String,
    text: String,
    record: Value,
    record_path: std::path::PathBuf,
    all_output: String,
    server: Server,
    _dir: tempfile::TempDir,
}

fn run(provider: &str, turns: Vec<Vec<String>>, key_variable: &str) -> Run {
    let server = Server::start(Script {
        models: vec![],
        chats: turns.iter().map(|lines| Reply::lines(lines)).collect(),
    });
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let args = [
        "run",
        "--repo",
        "sample-repo",
        "--json",
        "--provider",
        provider,
        "--model",
        "m",
        "--host",
        &server.base,
        "--record",
        record_path.to_str().unwrap(),
    ];
    let outcome = mend_with_env(&repo_root(), &args, &[(key_variable, KEY)]);
    let events = outcome.events();
    let stop = events
        .iter()
        .find(|e| e["type"] == "stopped")
        .map(|e| e["reason"].as_str().unwrap().to_owned())
        .unwrap_or_default();
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "text_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    let record_text = std::fs::read_to_string(&record_path).unwrap_or_default();
    Run {
        code: outcome.code,
        stop,
        text,
        record: serde_json::from_str(&record_text).unwrap_or(Value::Null),
        record_path,
        all_output: format!("{}{}{record_text}", outcome.stdout, outcome.stderr),
        server,
        _dir: dir,
    }
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
}

/// What every provider run must show: the finished exchange, the endpoint used for both
/// requests, and the key nowhere but in the headers.
fn assert_finished_at(run: &Run, path: &str) {
    assert_eq!(
        (run.code, run.stop.as_str(), run.text.as_str()),
        (1, "assistant_finished", "Reading.I read it.")
    );
    let paths: Vec<String> = run
        .server
        .chat_requests()
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    assert_eq!(paths, [path; 2]);
    assert!(
        !run.all_output.contains(KEY),
        "the key leaked into the output or the record"
    );
}

fn replays(path: &std::path::Path) -> bool {
    let outcome = mend_with_env(
        &repo_root(),
        &["replay", "--json", path.to_str().unwrap()],
        &[],
    );
    outcome
        .events()
        .iter()
        .any(|event| event["type"] == "verdict" && event["replay_matched"] == json!(true))
}

#[test]
fn openai_streams_run_end_to_end_and_the_history_has_openai_shape() {
    let run = run("openai", openai_turns(), "OPENAI_API_KEY");
    assert_finished_at(&run, "/v1/chat/completions");
    let requests = run.server.chat_requests();
    assert_eq!(
        header(&requests[0].1, "authorization"),
        Some(format!("Bearer {KEY}"))
    );

    let second = &run.server.chat_bodies()[1];
    let history: Vec<Value> = second["messages"].as_array().unwrap()[2..].to_vec();
    let source = std::fs::read_to_string(repo_root().join("sample-repo/path_rules.py")).unwrap();
    assert_eq!(
        history,
        vec![
            json!({"role": "assistant", "content": "Reading.", "tool_calls": [
                {"id": "call_o1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"path_rules.py\"}"}}]}),
            json!({"role": "tool", "content": json!({"path": "path_rules.py", "text": source}).to_string(), "tool_call_id": "call_o1", "name": "read_file"}),
        ]
    );
    assert_eq!(second["stream_options"], json!({"include_usage": true}));
    assert_eq!(run.record["provider"], "openai");
    assert!(replays(&run.record_path), "the openai record replays");
}

#[test]
fn anthropic_streams_run_end_to_end_and_the_history_has_anthropic_shape() {
    let run = run("anthropic", anthropic_turns(), "ANTHROPIC_API_KEY");
    assert_finished_at(&run, "/v1/messages");
    let requests = run.server.chat_requests();
    assert_eq!(
        (
            header(&requests[0].1, "x-api-key"),
            header(&requests[0].1, "anthropic-version")
        ),
        (Some(KEY.to_owned()), Some("2023-06-01".to_owned()))
    );

    let second = &run.server.chat_bodies()[1];
    let source = std::fs::read_to_string(repo_root().join("sample-repo/path_rules.py")).unwrap();
    assert_eq!(
        second["messages"].as_array().unwrap()[1..].to_vec(),
        vec![
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "path_rules.py"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                "content": json!({"path": "path_rules.py", "text": source}).to_string()}]}),
        ]
    );
    assert_eq!(run.record["provider"], "anthropic");
    assert!(replays(&run.record_path), "the anthropic record replays");
}

#[test]
fn an_openai_stream_without_done_is_incomplete() {
    let mut turn = openai_turns().remove(0);
    turn.truncate(turn.len() - 2);
    let server = Server::start(Script {
        models: vec![],
        chats: vec![Reply::Stream {
            writes: turn
                .iter()
                .map(|line| (std::time::Duration::ZERO, format!("{line}\n").into_bytes()))
                .collect(),
            ending: Ending::Clean,
        }],
    });
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let args = [
        "run",
        "--repo",
        "sample-repo",
        "--json",
        "--provider",
        "openai",
        "--host",
        &server.base,
        "--record",
        record.to_str().unwrap(),
    ];
    let outcome = mend_with_env(&repo_root(), &args, &[]);
    let stop = outcome
        .events()
        .into_iter()
        .find(|e| e["type"] == "stopped")
        .unwrap();
    assert_eq!(
        (outcome.code, stop["reason"].clone()),
        (5, json!("incomplete_model_turn"))
    );
}
