//! Scripted model turns in Ollama's wire format, for the loopback server.

use serde_json::{json, Value};

use super::server::{Reply, Script};

pub const MODEL: &str = "gemma4:e2b";

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
        models: vec![(MODEL, "0123456789abcdef")],
        chats,
    }
}
