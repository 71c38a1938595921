//! Phi-4-mini's `<|tool_call|>[…]<|/tool_call|>` and Granite's `<|tool_call|>[…]` (no closing
//! tag): a JSON list of call objects after the tag.

use crate::prelude::*;

use super::family::{Family, Read};
use super::json;
use super::TextCallFormat;
use crate::schema::ToolSpec;

const OPEN: &str = "<|tool_call|>";
const CLOSE: &str = "<|/tool_call|>";

pub(super) const FAMILY: Family = Family {
    name: "tool_call_list",
    signs: &[OPEN, CLOSE],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(start) = content[at..].find(OPEN) {
        let start = at + start;
        rest.push_str(&content[at..start]);
        let body = start + OPEN.len();
        let (elements, used) = json::list_at_start(&content[body..])?;
        if elements.is_empty() {
            return None;
        }
        found.extend(json::calls_of_list(
            elements,
            TextCallFormat::ToolCallList,
            tools,
        )?);
        at = body + used;
        let tail = &content[at..];
        if let Some(after) = tail.trim_start().strip_prefix(CLOSE) {
            at = content.len() - after.len();
        }
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}
