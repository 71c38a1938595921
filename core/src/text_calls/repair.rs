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

/// Whether a turn's text (whose signs are `signs`), which no reader turned into calls, is an
/// attempted call: it holds a marker only a family's calls carry, or it names an offered tool
/// with arguments after it, in whatever shape (JSON, keywords, tags, YAML-like keys), inside a
/// code fence or not. Prose that only mentions a tool (`read_file`, `run read_file on it`,
/// `read_file(path)`), fenced or not, is not one.
pub(crate) fn attempted(content: &str, signs: &Signs, tools: &[ToolSpec]) -> bool {
    if signs.marks_an_attempt() {
        return true;
    }
    // Searching the text for each name costs most of the decision: a text with nothing that
    // can start arguments (most prose) is passed over without it.
    signs.argument()
        && tools.iter().any(|tool| {
            names_with_arguments(content, tool.name(), signs.brace())
                || names_with_keys(content, tool)
        })
}

/// How far after a tool's name its first argument may stand (`Action Input: {…}`, a YAML
/// `arguments:` line, a tag and a newline), in bytes.
const KEY_REACH: usize = 64;

/// Whether `content` holds the tool's name as a word with one of its own parameters used as a
/// key soon after it, in any shape a model writes one: `<path>`, `path=`, `path:`, `"path":`,
/// `name="path"`. Prose names a parameter as a word (`the path`), not as a key.
fn names_with_keys(content: &str, tool: &ToolSpec) -> bool {
    let name = tool.name();
    let bytes = content.as_bytes();
    content.match_indices(name).any(|(at, _)| {
        let before = at.checked_sub(1).map(|before| bytes[before]);
        let end = at + name.len();
        if before.is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
            || bytes
                .get(end)
                .is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
        {
            return false;
        }
        let mut stop = (end + KEY_REACH).min(content.len());
        while !content.is_char_boundary(stop) {
            stop -= 1;
        }
        let after = &content[end..stop];
        tool.function
            .parameters
            .properties
            .keys()
            .any(|key| used_as_key(after, key))
    })
}

/// Whether `key` stands in `text` as a key: a tag, or a word followed by `=` (not `==`) or `:`
/// (quoted or not), or the value of a `name="…"` attribute.
fn used_as_key(text: &str, key: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(key).any(|(at, _)| {
        let before = at.checked_sub(1).map(|before| bytes[before]);
        let rest = &text[at + key.len()..];
        match before {
            Some(b'<') => rest.starts_with('>') || rest.starts_with(' '),
            Some(b'"') => {
                rest.starts_with("\":") || rest.starts_with("\": ") || rest.starts_with("\">")
            }
            Some(byte) if byte.is_ascii_alphanumeric() || byte == b'_' => false,
            _ => {
                let rest = rest.trim_start_matches(' ');
                (rest.starts_with('=') && !rest.starts_with("=="))
                    || rest.starts_with(": ")
                    || rest.starts_with(":\n")
            }
        }
    })
}

/// Whether `content` holds the tool `name` as a word followed by arguments: `"NAME"` in a text
/// with a JSON object (`{"name": "NAME", …}`), `NAME{` or `NAME {` (an object after the name),
/// or `NAME(` with a keyword (`key=`) or a literal (`"…"`, `{…}`) first. One search for the
/// name, its neighbours looked at where it stands.
pub(super) fn names_with_arguments(content: &str, name: &str, brace: bool) -> bool {
    let bytes = content.as_bytes();
    content.match_indices(name).any(|(at, _)| {
        let before = at.checked_sub(1).map(|before| bytes[before]);
        if before.is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_') {
            return false;
        }
        let after = &content[at + name.len()..];
        match after.as_bytes().first() {
            Some(b'"') => brace && before == Some(b'"'),
            Some(b'(') => python_arguments(&after[1..]),
            _ => after.trim_start_matches([' ', ':']).starts_with('{'),
        }
    })
}

/// Whether a Python call's argument list starts with `key=` or a literal (a string, a dict).
fn python_arguments(arguments: &str) -> bool {
    let arguments = arguments.trim_start();
    if arguments.starts_with(['"', '\'', '{']) {
        return true;
    }
    let key = arguments
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(arguments.len());
    key > 0 && {
        let rest = arguments[key..].trim_start();
        rest.starts_with('=') && !rest.starts_with("==")
    }
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
