//! A parameter written as text, read as its schema's type: shared by every reader of key/value
//! tags (Qwen3-Coder's, GLM's, MiniMax's).

use crate::prelude::*;
use serde_json::Value;

use crate::schema::{JsonType, ToolSpec};

/// A parameter's text as the schema's type: a string stays as written; anything else is read
/// as JSON, and kept as text when it is not (validation then tells the model the type it needs).
pub(super) fn typed(raw: &str, tool: &ToolSpec, key: &str) -> Value {
    let kind = tool.function.parameters.properties.get(key).map(|p| p.kind);
    match kind {
        None | Some(JsonType::String) => Value::String(raw.to_owned()),
        Some(_) => {
            serde_json::from_str(raw.trim()).unwrap_or_else(|_| Value::String(raw.to_owned()))
        }
    }
}
