//! Builders shared by the core's tests: wire chunks as values, the sample's tools, and feeding.
#![allow(dead_code)]

pub mod rules;
pub mod steps;

use mend_core::{Action, Config, Input, JsonType, Millis, Session, StreamLine, ToolSpec};
use serde_json::{json, Value};

pub const SYSTEM: &str = "You repair code.";
pub const TASK: &str = "Fix the failing test.";

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::function(
            "read_file",
            "Read one allowed file",
            &[("path", JsonType::String, "relative path")],
            &["path"],
        ),
        ToolSpec::function(
            "replace_text",
            "Replace one exact occurrence",
            &[
                ("old", JsonType::String, "text to find"),
                ("new", JsonType::String, "replacement"),
            ],
            &["old", "new"],
        ),
        ToolSpec::function("run_tests", "Run the test suite", &[], &[]),
    ]
}

pub fn config(max_turns: u32) -> Config {
    Config {
        max_turns,
        ..Config::new("gemma4:e2b", SYSTEM, TASK, tools())
    }
}

/// A chunk line of Ollama's stream: `message` fields plus top-level extras.
pub fn chunk(message: Value, done: bool) -> Value {
    json!({"model": "gemma4:e2b", "created_at": "2026-12-02T12:00:00.000000001Z", "message": message, "done": done})
}

pub fn text(content: &str) -> Value {
    chunk(json!({"role": "assistant", "content": content}), false)
}

pub fn thinking(fragment: &str) -> Value {
    chunk(
        json!({"role": "assistant", "content": "", "thinking": fragment}),
        false,
    )
}

/// A whole call as Ollama sends it; `id` is absent on servers before v0.12.10.
pub fn call(id: Option<&str>, name: &str, arguments: Value) -> Value {
    let mut call = json!({"function": {"name": name, "arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    call
}

pub fn tool_calls(calls: Vec<Value>) -> Value {
    chunk(
        json!({"role": "assistant", "content": "", "tool_calls": calls}),
        false,
    )
}

pub fn done_with(reason: &str, message: Value) -> Value {
    let mut line = chunk(message, true);
    line["done_reason"] = json!(reason);
    line["total_duration"] = json!(1_000_000);
    line["prompt_eval_count"] = json!(120);
    line["eval_count"] = json!(30);
    line
}

pub fn done() -> Value {
    done_with("stop", json!({"role": "assistant", "content": ""}))
}

pub fn done_length() -> Value {
    done_with("length", json!({"role": "assistant", "content": ""}))
}

pub fn error_line(message: &str) -> Value {
    json!({"error": message})
}

pub fn line(value: &Value) -> Input {
    raw(value.to_string().as_bytes())
}

pub fn raw(bytes: &[u8]) -> Input {
    Input::StreamLine(StreamLine::new(bytes.to_vec(), Millis(0)))
}

/// Feeds each chunk of a stream and returns all actions, in order.
pub fn feed(session: &mut Session, chunks: &[Value]) -> Vec<Action> {
    chunks
        .iter()
        .flat_map(|chunk| session.handled(Millis(0), line(chunk)))
        .collect()
}

/// A new session and the first actions it queued, taken.
pub fn start(config: Config) -> (Session, Vec<Action>) {
    match Session::new(config) {
        Ok(session) => taken(session),
        Err(error) => panic!("config refused: {error}"),
    }
}

/// A session and every action it has queued, taken: what a caller that drains at once sees.
pub fn taken(mut session: Session) -> (Session, Vec<Action>) {
    let actions = session.drain_actions().collect();
    (session, actions)
}

/// `handle` followed by taking what it queued: the tests compare whole action lists.
pub trait Handled {
    /// Feeds `input` at `now` and takes every action queued.
    fn handled(&mut self, now: Millis, input: Input) -> Vec<Action>;
}

impl Handled for Session {
    fn handled(&mut self, now: Millis, input: Input) -> Vec<Action> {
        self.handle(now, input);
        self.drain_actions().collect()
    }
}
