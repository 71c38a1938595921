//! Scripted model turns in Ollama's wire format, for the loopback server.

use serde_json::{json, Value};

use std::time::Duration;

use super::server::{Ending, Reply, Script};

pub const MODEL: &str = "gemma4:e2b";
/// The digest the server reports for MODEL, in the shape of a real one.
pub const DIGEST: &str = "5f1a0b7c9d2e4f6a8b0c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a";

/// The sample's bug and the line that fixes it (`path_rules.py`).
pub const OLD: &str = "        path = PurePosixPath(name)";
pub const NEW: &str = "        path = PurePosixPath(name.replace('\\\\', '/'))";

/// The raw lines of each turn of a record (see `super::fixture`).
pub fn recorded_lines(record: &Value) -> Vec<Vec<String>> {
    record["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| {
            turn["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|line| line["text"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

/// Each turn of a record replayed as it was streamed, one reply per turn.
pub fn recorded_replies(record: &Value) -> Vec<Reply> {
    recorded_lines(record)
        .iter()
        .map(|lines| Reply::lines(lines))
        .collect()
}

/// A turn that calls one tool and ends.
pub fn call(id: &str, name: &str, arguments: Value) -> Reply {
    let line = json!({
        "model": MODEL,
        "message": {"role": "assistant", "content": "", "tool_calls": [
            {"id": id, "function": {"index": 0, "name": name, "arguments": arguments}}
        ]},
        "done": true,
        "done_reason": "stop"
    });
    Reply::lines(&[line.to_string()])
}

/// The turn that repairs the sample: one `replace_text` from `OLD` to `NEW`.
pub fn fix(id: &str) -> Reply {
    call(id, "replace_text", json!({"old": OLD, "new": NEW}))
}

/// A turn that starts to say `text` and then goes silent for longer than any test.
pub fn stalls_after(text: &str) -> Reply {
    let line =
        json!({"model": MODEL, "message": {"role": "assistant", "content": text}, "done": false});
    Reply::Stream {
        writes: vec![(Duration::ZERO, format!("{line}\n").into_bytes())],
        ending: Ending::Stall(Duration::from_secs(50)),
    }
}

/// A turn that only says something and ends: the model is done.
pub fn say(text: &str) -> Reply {
    let line = json!({
        "model": MODEL,
        "message": {"role": "assistant", "content": text},
        "done": true,
        "done_reason": "stop"
    });
    Reply::lines(&[line.to_string()])
}

/// A server that knows the model and plays `chats` in order.
pub fn script(chats: Vec<Reply>) -> Script {
    Script {
        models: vec![(MODEL, DIGEST)],
        chats,
    }
}
