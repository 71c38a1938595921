//! A scripted Ollama on loopback for `mend eval`: it answers by the request's seed and task, so
//! which attempts repair is known in advance whatever order and process they run in. One thread
//! per connection (shards and --jobs talk to it at once); it stops when dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::common::server::{Loopback, Request};

pub const MODEL: &str = "scripted:1b";
pub const DIGEST: &str = "5c1e9d0a7b";
/// What the server counts for each prompt: about what the task's prompts and tool schemas hold
/// (a count far under what was sent would read as a prompt cut to fit the window).
pub const PROMPT_TOKENS: u64 = 1000;
/// Tokens each scripted turn reports: the prompt and 20 generated.
pub const TURN_TOKENS: u64 = PROMPT_TOKENS + 20;

/// One task the server can repair: a phrase of its prompt, and the edit that fixes it.
pub struct Fix {
    pub prompt_contains: &'static str,
    pub old: &'static str,
    pub new: &'static str,
    /// Attempts whose seed is a multiple of this repair; the others give up at once.
    pub every: i64,
}

pub struct SeededServer {
    pub base: String,
    _loopback: Loopback,
    pub chats: Arc<AtomicUsize>,
}

impl SeededServer {
    pub fn start(fixes: Vec<Fix>) -> SeededServer {
        let chats = Arc::new(AtomicUsize::new(0));
        let counting = Arc::clone(&chats);
        let loopback = Loopback::start(|| true, move |request| respond(request, &fixes, &counting));
        SeededServer {
            base: loopback.base.clone(),
            _loopback: loopback,
            chats,
        }
    }
}

/// The answer to one request; chats are counted.
fn respond(request: Request, fixes: &[Fix], chats: &AtomicUsize) -> (&'static str, String) {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/api/version") => ("application/json", json!({"version": "0.33.0"}).to_string()),
        ("GET", "/api/tags") => (
            "application/json",
            json!({"models": [{"name": MODEL, "model": MODEL, "digest": DIGEST, "size": 1}]})
                .to_string(),
        ),
        ("POST", "/api/chat") => {
            chats.fetch_add(1, Ordering::SeqCst);
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            ("application/x-ndjson", answer(&body, fixes))
        }
        _ => (
            "application/json",
            json!({"error": "not found"}).to_string(),
        ),
    }
}

/// Turn 1 of a repairing attempt makes the edit; every other turn ends the attempt in text.
fn answer(request: &Value, fixes: &[Fix]) -> String {
    let seed = request["options"]["seed"].as_i64().unwrap_or(-1);
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let prompt = messages
        .get(1)
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    let turn = 1 + messages.iter().filter(|m| m["role"] == "assistant").count();
    let fix = fixes
        .iter()
        .find(|fix| prompt.contains(fix.prompt_contains));
    let message = match fix {
        Some(fix) if turn == 1 && seed.rem_euclid(fix.every) == 0 => json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_fix", "function": {"name": "replace_text", "arguments": {"old": fix.old, "new": fix.new}}}],
        }),
        Some(_) if turn > 1 => json!({"role": "assistant", "content": "Repaired."}),
        _ => json!({"role": "assistant", "content": "I cannot repair this."}),
    };
    let done = json!({"model": MODEL, "message": message, "done": true, "done_reason": "stop", "prompt_eval_count": PROMPT_TOKENS, "eval_count": 20});
    format!("{done}\n")
}
