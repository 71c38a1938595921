//! Hermes `<tool_call>{…}</tool_call>` blocks, Qwen3-Coder's
//! `<function=NAME><parameter=KEY>…</parameter></function>` blocks (wrapped in `<tool_call>` or
//! not) and GLM's `<tool_call>NAME<arg_key>…` blocks, in any order.

use crate::prelude::*;

use serde_json::Map;

use super::family::{Family, Read};
use super::typed::typed;
use super::{glm, json, Found, TextCallFormat};
use crate::protocol::{CallArguments, ModelCall};
use crate::schema::ToolSpec;

const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";
const FUNCTION_OPEN: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";
const PARAMETER_OPEN: &str = "<parameter=";
const PARAMETER_CLOSE: &str = "</parameter>";

pub(super) const FAMILY: Family = Family {
    name: "hermes_qwen3_glm",
    // The open tags without their ends, and the closing tags: a stray one left around the calls
    // makes the text ambiguous.
    signs: &[
        "<tool_call",
        "</tool_call",
        "<function",
        "</function",
        "<parameter",
        "</parameter",
        glm::SIGNS[0],
        glm::SIGNS[1],
        glm::SIGNS[2],
        glm::SIGNS[3],
    ],
    signs_mark_calls: true,
    read: tagged,
};

/// Hermes `<tool_call>` blocks and Qwen3-Coder `<function=…>` blocks, in any order; returns
/// them and the text around them.
fn tagged(content: &str, tools: &[ToolSpec]) -> Read {
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
    if body.starts_with('{') {
        return Some((json::call(body, tools)?, TextCallFormat::Hermes, used));
    }
    Some((glm::call(body, tools)?, TextCallFormat::Glm, used))
}

/// One `<function=NAME>…</function>` block at the start of `block`, and its length. Each
/// parameter's value loses the one newline Qwen3-Coder writes after the opening tag and before
/// the closing one, and is read as JSON when the tool's schema wants anything but a string.
pub(super) fn function_block(block: &str, tools: &[ToolSpec]) -> Option<(ModelCall, usize)> {
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
