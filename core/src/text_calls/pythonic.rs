//! Calls written as Python: a list `[NAME(key=value, …), …]` (Llama 4, LFM2 and the servers'
//! `pythonic` parsers), bare or between Llama 4's `<|python_start|>…<|python_end|>` or LFM2's
//! `<|tool_call_start|>…<|tool_call_end|>`; and OLMo 3's `<function_calls>` block, one call a
//! line without the brackets.

use crate::prelude::*;

use serde_json::Value;

use super::family::{blocks, Family};
use super::{json, python, Found, TextCallFormat};
use crate::schema::ToolSpec;

const LLAMA4: (&str, &str) = ("<|python_start|>", "<|python_end|>");
const LFM2: (&str, &str) = ("<|tool_call_start|>", "<|tool_call_end|>");
const OLMO3: (&str, &str) = ("<function_calls>", "</function_calls>");

pub(super) const LLAMA4_FAMILY: Family = Family {
    name: "llama4",
    signs: &[LLAMA4.0, LLAMA4.1],
    signs_mark_calls: true,
    read: |content, tools| blocks(content, LLAMA4.0, LLAMA4.1, |inner, _| list(inner, tools)),
};

pub(super) const LFM2_FAMILY: Family = Family {
    name: "lfm2",
    signs: &[LFM2.0, LFM2.1],
    signs_mark_calls: true,
    read: |content, tools| blocks(content, LFM2.0, LFM2.1, |inner, _| list(inner, tools)),
};

pub(super) const OLMO3_FAMILY: Family = Family {
    name: "olmo3",
    signs: &["<function_calls", "</function_calls"],
    signs_mark_calls: true,
    read: |content, tools| blocks(content, OLMO3.0, OLMO3.1, |inner, _| lines(inner, tools)),
};

/// `[NAME(…), …]` as the whole of `text`, every call naming an offered tool.
pub(super) fn list(text: &str, tools: &[ToolSpec]) -> Option<Vec<Found>> {
    python::list(text.trim())?
        .into_iter()
        .map(|(name, arguments, text)| found(name, arguments, text, tools))
        .collect()
}

/// One call a line, every call naming an offered tool.
fn lines(text: &str, tools: &[ToolSpec]) -> Option<Vec<Found>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, arguments) = python::call(line)?;
            found(name, arguments, line, tools)
        })
        .collect()
}

fn found(
    name: String,
    arguments: serde_json::Map<String, Value>,
    text: &str,
    tools: &[ToolSpec],
) -> Option<Found> {
    Some(Found {
        call: json::named(name, Some(Value::Object(arguments)), tools)?,
        format: TextCallFormat::Pythonic,
        text: text.to_owned(),
    })
}
