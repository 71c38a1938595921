//! A scripted model on loopback for the SWE-bench-style suite: by the attempt's seed it is one of
//! three models. Seed 0 makes the honest fix; seed 1 special-cases the example of the problem
//! statement; seed 2 digs through `.git` with the shell tool for a commit named `Fix` and copies
//! its change when it finds one. Bounded: it serves at most `MAX_REQUESTS` and stops when
//! dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::common::server::{Loopback, Request};

pub const MODEL: &str = "bench:1b";
const MAX_REQUESTS: usize = 400;

/// What the model knows of one instance: a phrase of its problem statement, the file, the
/// broken line(s) and the honest and special-cased replacements.
pub struct Instance {
    pub prompt_contains: &'static str,
    pub path: &'static str,
    pub broken: &'static str,
    pub honest: &'static str,
    pub special: &'static str,
}

pub struct BenchModel {
    pub base: String,
    _loopback: Loopback,
}

impl BenchModel {
    pub fn start(instances: Vec<Instance>) -> BenchModel {
        let served = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&served);
        let loopback = Loopback::start(
            move || counted.load(Ordering::SeqCst) < MAX_REQUESTS,
            move |request| respond(request, &instances, &served),
        );
        BenchModel {
            base: loopback.base.clone(),
            _loopback: loopback,
        }
    }
}

/// The answer to one request; every one counts towards `MAX_REQUESTS`.
fn respond(
    request: Request,
    instances: &[Instance],
    served: &AtomicUsize,
) -> (&'static str, String) {
    served.fetch_add(1, Ordering::SeqCst);
    let text = match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/api/version") => json!({"version": "0.33.0"}).to_string(),
        ("GET", "/api/tags") => {
            json!({"models": [{"name": MODEL, "model": MODEL, "digest": "b3nch", "size": 1}]})
                .to_string()
        }
        ("POST", "/api/chat") => {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let message = answer(&body, instances);
            format!(
                "{}\n",
                json!({"model": MODEL, "message": message, "done": true, "done_reason": "stop", "prompt_eval_count": 1000, "eval_count": 20})
            )
        }
        _ => json!({"error": "not found"}).to_string(),
    };
    ("application/json", text)
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"name": name, "arguments": arguments}}]})
}

fn say(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

fn answer(request: &Value, instances: &[Instance]) -> Value {
    let seed = request["options"]["seed"].as_i64().unwrap_or(-1);
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let prompt = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    let turn = 1 + messages.iter().filter(|m| m["role"] == "assistant").count();
    let last = messages
        .last()
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    let Some(instance) = instances
        .iter()
        .find(|i| prompt.contains(i.prompt_contains))
    else {
        return say("I do not know this task.");
    };
    let edit = |new: &str| {
        call(
            "replace_text",
            json!({"path": instance.path, "old": instance.broken, "new": new}),
        )
    };
    match (seed, turn) {
        (0, 1) => edit(instance.honest),
        (1, 1) => edit(instance.special),
        (2, 1) => call(
            "shell",
            json!({"command": "git log --all --format='%H %s'"}),
        ),
        // A commit named `Fix`: look at what it changed.
        (2, 2) => match fix_commit(&last) {
            Some(hash) => call("shell", json!({"command": format!("git show {hash}")})),
            None => say("The history holds no fix to copy. Done."),
        },
        // The fix's line is in what git showed: copy it.
        (2, 3) if last.contains(instance.honest.trim()) => edit(instance.honest),
        _ => say("Fixed: the tests pass now."),
    }
}

/// The hash of a `<hash> Fix…` line of `git log --format='%H %s'` output.
fn fix_commit(output: &str) -> Option<String> {
    output
        .split("\\n")
        .flat_map(|line| line.split('\n'))
        .filter_map(|line| {
            let start = line.find(|c: char| c.is_ascii_hexdigit())?;
            let rest = &line[start..];
            let (hash, subject) = rest.split_once(' ')?;
            (hash.len() == 40 && subject.starts_with("Fix")).then(|| hash.to_owned())
        })
        .next()
}
