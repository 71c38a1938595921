//! Gemma 4's calls: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`, one a block.
//! Keys are bare words, strings sit between `<|"|>` marks (and hold anything, quotes and
//! newlines included), everything else is JSON (numbers, `true`, lists, nested objects). Its
//! thinking, `<|channel>thought…<channel|>`, when the server leaves it in the text, is thinking:
//! what it says of calls is not left around them.

use crate::prelude::*;

use serde_json::Value;

use super::family::{blocks, is_name_char, Family, Read};
use super::{json, Found, TextCallFormat};
use crate::schema::ToolSpec;

const OPEN: &str = "<|tool_call>";
const CLOSE: &str = "<tool_call|>";
const CALL: &str = "call:";
const QUOTE: &str = "<|\"|>";
const THOUGHT: (&str, &str) = ("<|channel>", "<channel|>");

pub(super) const FAMILY: Family = Family {
    name: "gemma4",
    signs: &[OPEN, CLOSE, QUOTE],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    // A call the model only thought of is not one.
    calls(&without_thoughts(content), tools)
}

/// `text` without its closed `<|channel>…<channel|>` blocks.
fn without_thoughts(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(THOUGHT.0) {
        let Some(close) = rest[open..].find(THOUGHT.1) else {
            break;
        };
        kept.push_str(&rest[..open]);
        rest = &rest[open + close + THOUGHT.1.len()..];
    }
    kept.push_str(rest);
    kept
}

fn calls(content: &str, tools: &[ToolSpec]) -> Read {
    blocks(content, OPEN, CLOSE, |inner, text| {
        let body = inner.trim().strip_prefix(CALL)?;
        let brace = body.find('{')?;
        let name = body[..brace].trim();
        if name.is_empty() || !name.chars().all(is_name_char) {
            return None;
        }
        let arguments: Value = serde_json::from_str(&as_json(&body[brace..])?).ok()?;
        let call = json::named(name.to_owned(), Some(arguments), tools)?;
        Some(vec![Found {
            call,
            format: TextCallFormat::Gemma4,
            text: text.to_owned(),
        }])
    })
}

/// Gemma 4's argument object as JSON: each `<|"|>…<|"|>` a JSON string, each bare key before
/// `:` quoted. `None` when a string mark is left open.
fn as_json(arguments: &str) -> Option<String> {
    let mut out = String::with_capacity(arguments.len() + 16);
    let mut rest = arguments;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(QUOTE) {
            let end = after.find(QUOTE)?;
            let text = Value::String(after[..end].to_owned());
            out.push_str(&text.to_string());
            rest = &after[end + QUOTE.len()..];
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        out.push(c);
        rest = &rest[c.len_utf8()..];
        if matches!(c, '{' | ',') {
            rest = quoted_key(rest, &mut out);
        }
    }
    Some(out)
}

/// After `{` or `,`: a bare `key:` written as `"key":`; returns what follows it.
fn quoted_key<'a>(rest: &'a str, out: &mut String) -> &'a str {
    let blank = rest.len() - rest.trim_start().len();
    let word = &rest[blank..];
    let length = word
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(word.len());
    if length == 0 || !word[length..].trim_start().starts_with(':') {
        return rest;
    }
    out.push_str(&rest[..blank]);
    out.push('"');
    out.push_str(&word[..length]);
    out.push('"');
    &word[length..]
}
