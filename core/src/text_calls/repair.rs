//! A call the model tried to write but no reader accepts, asked for once more under a grammar:
//! the server constrains the answer to `{"name": one of the offered tools, "arguments": that
//! tool's schema}` (one `oneOf` branch a tool), so what comes back is a call or nothing.

use crate::prelude::*;

use serde_json::{json, Value};

use super::{json, Signs, TextCall, TextCallFormat};
use crate::protocol::ModelCall;
use crate::schema::ToolSpec;
use crate::wire::Message;

/// What the repair request asks, after the broken turn.
const ASK: &str = "Your last message tried to call a tool, but the call could not be read. \
Write that one call again as a JSON object: {\"name\": the tool, \"arguments\": its arguments}.";

/// Whether a turn's text (whose signs are `signs`), which no reader turned into calls, looks like
/// an attempted call: a family's marker, or an offered tool's name next to a JSON object.
pub(crate) fn attempted(content: &str, signs: &Signs, tools: &[ToolSpec]) -> bool {
    if !signs.may_be_attempted() {
        return false;
    }
    if signs.looks_like_a_call() {
        return true;
    }
    signs.brace() && tools.iter().any(|tool| names(content, tool.name()))
}

/// Whether `content` holds `"NAME"` or `NAME(`: one search for the name, its neighbours looked
/// at where it stands.
fn names(content: &str, name: &str) -> bool {
    let bytes = content.as_bytes();
    content.match_indices(name).any(|(at, _)| {
        let after = bytes.get(at + name.len()).copied();
        after == Some(b'(') || (after == Some(b'"') && at > 0 && bytes[at - 1] == b'"')
    })
}

/// The JSON schema the server must keep the answer to.
pub(crate) fn schema(tools: &[ToolSpec]) -> Value {
    let branches: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": [tool.name()]},
                    "arguments": tool.function.parameters,
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    json!({"oneOf": branches})
}

/// The message that asks for the call again.
pub(crate) fn ask() -> Message {
    Message::user(ASK)
}

/// The call in the repair's answer, when it is one of an offered tool, and how it is recorded:
/// the text of the broken turn, marked as repaired.
pub(crate) fn read_answer(
    answer: &str,
    broken_text: &str,
    tools: &[ToolSpec],
) -> Option<(ModelCall, TextCall)> {
    let call = json::call(answer.trim(), tools)?;
    let recorded = TextCall {
        index: 0,
        name: call.name.clone(),
        format: TextCallFormat::RepairedByGrammar,
        text: broken_text.to_owned(),
    };
    Some((call, recorded))
}
