//! Finding calls in a turn's text: the parsers of the four written forms, and the rule that
//! anything ambiguous stays text.

use crate::prelude::*;

use serde_json::{Map, Value};

use super::{Found, TextCallFormat};
use crate::codec::{call_arguments, CallArguments, ModelCall};
use crate::schema::{JsonType, ToolSpec};

const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";
const FUNCTION_OPEN: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";
const PARAMETER_OPEN: &str = "<parameter=";
const PARAMETER_CLOSE: &str = "</parameter>";
const FENCE: &str = "```";

/// Text left around the calls that still looks like part of a call (a stray tag, an unclosed
/// fence, another call object) makes the whole text ambiguous.
const CALL_LIKE: [&str; 8] = [
    "<tool_call",
    "</tool_call",
    "<function",
    "</function",
    "<parameter",
    "</parameter",
    FENCE,
    "\"name\"",
];

/// Whether `content` can hold a written call at all: every form starts with `{`, `<` or a
/// backtick. One pass over the bytes, so turns of plain prose pay nothing more.
pub(super) fn may_hold_calls(content: &str) -> bool {
    content.trim_start().starts_with('{') || content.bytes().any(|b| b == b'<' || b == b'`')
}

/// The calls `content` holds, in order, when it holds only unambiguous ones naming `tools`.
pub(super) fn calls_in(content: &str, tools: &[ToolSpec]) -> Option<Vec<Found>> {
    let whole = content.trim();
    // A text that is one call object is that call; one that only starts with a brace (prose
    // that opens with `{`, then a tagged or fenced call) is read like any other text.
    if whole.starts_with('{') {
        if let Some(call) = json_call(whole, tools) {
            return Some(vec![Found {
                call,
                format: TextCallFormat::BareJson,
                text: whole.to_owned(),
            }]);
        }
    }
    let (found, rest) = if content.contains(TOOL_CALL_OPEN) || content.contains(FUNCTION_OPEN) {
        tagged(content, tools)?
    } else if content.contains(FENCE) {
        fenced(content, tools)?
    } else {
        return None;
    };
    let leftover = CALL_LIKE.iter().any(|sign| rest.contains(sign));
    (!found.is_empty() && !leftover).then_some(found)
}

/// Hermes `<tool_call>` blocks and Qwen3-Coder `<function=…>` blocks, in any order; returns
/// them and the text around them.
fn tagged(content: &str, tools: &[ToolSpec]) -> Option<(Vec<Found>, String)> {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    loop {
        let tail = &content[at..];
        let wrapped = tail.find(TOOL_CALL_OPEN);
        let bare = tail.find(FUNCTION_OPEN);
        let start = match (wrapped, bare) {
            (None, None) => break,
            (Some(w), Some(b)) => w.min(b),
            (Some(w), None) => w,
            (None, Some(b)) => b,
        };
        rest.push_str(&tail[..start]);
        let block = &tail[start..];
        let (call, format, used) = if Some(start) == wrapped {
            wrapped_call(block, tools)?
        } else {
            let (call, used) = function_block(block, tools)?;
            (call, TextCallFormat::Qwen3Coder, used)
        };
        found.push(Found {
            call,
            format,
            text: block[..used].to_owned(),
        });
        at += start + used;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// One `<tool_call>…</tool_call>` block at the start of `block`: its call, its format and its
/// length.
fn wrapped_call(block: &str, tools: &[ToolSpec]) -> Option<(ModelCall, TextCallFormat, usize)> {
    let body_start = TOOL_CALL_OPEN.len();
    let close = body_start + block[body_start..].find(TOOL_CALL_CLOSE)?;
    let used = close + TOOL_CALL_CLOSE.len();
    let body = block[body_start..close].trim();
    if body.starts_with(FUNCTION_OPEN) {
        let (call, length) = function_block(body, tools)?;
        return body[length..].trim().is_empty().then_some((
            call,
            TextCallFormat::Qwen3Coder,
            used,
        ));
    }
    Some((json_call(body, tools)?, TextCallFormat::Hermes, used))
}

/// One `<function=NAME>…</function>` block at the start of `block`, and its length. Each
/// parameter's value loses the one newline Qwen3-Coder writes after the opening tag and before
/// the closing one, and is read as JSON when the tool's schema wants anything but a string.
fn function_block(block: &str, tools: &[ToolSpec]) -> Option<(ModelCall, usize)> {
    let header = &block[FUNCTION_OPEN.len()..];
    let name_end = header.find('>')?;
    let name = header[..name_end].trim();
    let tool = tools.iter().find(|tool| tool.name() == name)?;
    let mut at = FUNCTION_OPEN.len() + name_end + 1;
    let mut arguments = Map::new();
    loop {
        let tail = &block[at..];
        let trimmed = tail.trim_start();
        at += tail.len() - trimmed.len();
        if trimmed.starts_with(FUNCTION_CLOSE) {
            at += FUNCTION_CLOSE.len();
            break;
        }
        let header = trimmed.strip_prefix(PARAMETER_OPEN)?;
        let key_end = header.find('>')?;
        let key = header[..key_end].trim();
        let value_start = PARAMETER_OPEN.len() + key_end + 1;
        let value_end = value_start + trimmed[value_start..].find(PARAMETER_CLOSE)?;
        let raw = &trimmed[value_start..value_end];
        if key.is_empty() || arguments.contains_key(key) || raw.contains(PARAMETER_OPEN) {
            return None;
        }
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        arguments.insert(key.to_owned(), typed(raw, tool, key));
        at += value_end + PARAMETER_CLOSE.len();
    }
    let call = ModelCall {
        id: None,
        index: None,
        name: name.to_owned(),
        arguments: CallArguments::Object { value: arguments },
    };
    Some((call, at))
}

/// A parameter's text as the schema's type: a string stays as written; anything else is read
/// as JSON, and kept as text when it is not (validation then tells the model the type it needs).
fn typed(raw: &str, tool: &ToolSpec, key: &str) -> Value {
    let kind = tool.function.parameters.properties.get(key).map(|p| p.kind);
    match kind {
        None | Some(JsonType::String) => Value::String(raw.to_owned()),
        Some(_) => {
            serde_json::from_str(raw.trim()).unwrap_or_else(|_| Value::String(raw.to_owned()))
        }
    }
}

/// Fenced code blocks, each holding one call object (```` ```json ```` or no language); any
/// other block makes the text ambiguous. Returns the calls and the text around the blocks.
fn fenced(content: &str, tools: &[ToolSpec]) -> Option<(Vec<Found>, String)> {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(open) = content[at..].find(FENCE) {
        let open = at + open;
        rest.push_str(&content[at..open]);
        let after = &content[open + FENCE.len()..];
        let language_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let language = &after[..language_end];
        if !(language.is_empty() || language.eq_ignore_ascii_case("json")) {
            return None;
        }
        let body_end = after[language_end..].find(FENCE)? + language_end;
        let call = json_call(after[language_end..body_end].trim(), tools)?;
        let end = open + FENCE.len() + body_end + FENCE.len();
        found.push(Found {
            call,
            format: TextCallFormat::FencedJson,
            text: content[open..end].to_owned(),
        });
        at = end;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// `{"name": TOOL, "arguments": {…}}` and nothing else (`parameters` is Llama's word for the
/// same); the arguments may be absent, or a string holding the object, as servers send them.
fn json_call(text: &str, tools: &[ToolSpec]) -> Option<ModelCall> {
    let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let Some(Value::String(name)) = object.remove("name") else {
        return None;
    };
    let arguments = match (object.remove("arguments"), object.remove("parameters")) {
        (Some(_), Some(_)) => return None,
        (arguments, parameters) => arguments.or(parameters),
    };
    if !object.is_empty() || !tools.iter().any(|tool| tool.name() == name) {
        return None;
    }
    let CallArguments::Object { value } = call_arguments(arguments) else {
        return None;
    };
    Some(ModelCall {
        id: None,
        index: None,
        name,
        arguments: CallArguments::Object { value },
    })
}
