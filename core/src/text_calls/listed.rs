//! Families that write a JSON list of call objects after a marker: Nemotron's
//! `<TOOLCALL>[…]</TOOLCALL>`, Hunyuan's `<tool_calls>[…]</tool_calls>` and Phi-4-mini's
//! `functools[…]` (no closing marker).

use crate::prelude::*;

use super::family::{Family, Read};
use super::{json, TextCallFormat};
use crate::schema::ToolSpec;

const NEMOTRON: (&str, &str) = ("<TOOLCALL>", "</TOOLCALL>");
const HUNYUAN: (&str, &str) = ("<tool_calls>", "</tool_calls>");
const FUNCTOOLS: &str = "functools[";

pub(super) const NEMOTRON_FAMILY: Family = Family {
    name: "nemotron",
    signs: &[NEMOTRON.0, NEMOTRON.1],
    signs_mark_calls: true,
    read: |content, tools| {
        lists(
            content,
            NEMOTRON.0,
            NEMOTRON.1,
            TextCallFormat::ToolCallTags,
            tools,
        )
    },
};

pub(super) const HUNYUAN_FAMILY: Family = Family {
    name: "hunyuan",
    signs: &[HUNYUAN.0, HUNYUAN.1],
    signs_mark_calls: true,
    read: |content, tools| {
        lists(
            content,
            HUNYUAN.0,
            HUNYUAN.1,
            TextCallFormat::Hunyuan,
            tools,
        )
    },
};

pub(super) const FUNCTOOLS_FAMILY: Family = Family {
    name: "functools",
    signs: &[FUNCTOOLS],
    signs_mark_calls: true,
    read: |content, tools| lists(content, FUNCTOOLS, "", TextCallFormat::Functools, tools),
};

/// Every `OPEN[…]CLOSE` of `content` (`CLOSE` empty: the list alone), each list's calls in order;
/// an `OPEN` ending in `[` shares that bracket with the list.
fn lists(
    content: &str,
    open: &str,
    close: &str,
    format: TextCallFormat,
    tools: &[ToolSpec],
) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(start) = content[at..].find(open) {
        let start = at + start;
        rest.push_str(&content[at..start]);
        let body = start + open.trim_end_matches('[').len();
        let (elements, used) = json::list_at_start(&content[body..])?;
        if elements.is_empty() {
            return None;
        }
        found.extend(json::calls_of_list(elements, format, tools)?);
        at = body + used;
        if !close.is_empty() {
            let tail = &content[at..];
            let after = tail.trim_start().strip_prefix(close)?;
            at = content.len() - after.len();
        }
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}
