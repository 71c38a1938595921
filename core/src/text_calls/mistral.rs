//! Mistral's `[TOOL_CALLS]`: `NAME[ARGS]{…}` (tokenizer v11 on, an optional `[CALL_ID]ID` before
//! `[ARGS]`), or a JSON list of call objects (earlier tokenizers), once or repeated.

use crate::prelude::*;

use super::family::{is_name_char, Family, Read};
use super::json;
use super::{Found, TextCallFormat};
use crate::schema::ToolSpec;

const TOOL_CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

pub(super) const FAMILY: Family = Family {
    name: "mistral",
    signs: &[TOOL_CALLS, ARGS],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(start) = content[at..].find(TOOL_CALLS) {
        let start = at + start;
        rest.push_str(&content[at..start]);
        let body = start + TOOL_CALLS.len();
        let used = if content[body..].trim_start().starts_with('[') {
            let (elements, used) = json::list_at_start(&content[body..])?;
            found.extend(json::calls_of_list(
                elements,
                TextCallFormat::MistralJson,
                tools,
            )?);
            used
        } else {
            let (call, used) = named_call(&content[body..], tools)?;
            found.push(Found {
                call,
                format: TextCallFormat::Mistral,
                text: content[start..body + used].to_owned(),
            });
            used
        };
        at = body + used;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// `NAME[CALL_ID]ID[ARGS]{…}` (the id optional) at the start of `text`, and its length.
fn named_call(text: &str, tools: &[ToolSpec]) -> Option<(crate::protocol::ModelCall, usize)> {
    let args = text.find(ARGS)?;
    let head = &text[..args];
    let name = match head.find(CALL_ID) {
        Some(id) => &head[..id],
        None => head,
    };
    if name.is_empty() || !name.chars().all(is_name_char) {
        return None;
    }
    let body = args + ARGS.len();
    let (arguments, used) = json::value_at_start(&text[body..])?;
    if !arguments.is_object() {
        return None;
    }
    let call = json::named(name.to_owned(), Some(arguments), tools)?;
    Some((call, body + used))
}
