//! Llama 3.x's custom tool calls: `<|python_tag|>` followed by call objects (`parameters` or
//! `arguments`), several separated by `;`, ended by `<|eom_id|>` or `<|eot_id|>` when the server
//! leaves the end token in.

use crate::prelude::*;

use super::family::{Family, Read};
use super::json;
use super::{Found, TextCallFormat};
use crate::schema::ToolSpec;

const PYTHON_TAG: &str = "<|python_tag|>";
const ENDS: [&str; 2] = ["<|eom_id|>", "<|eot_id|>"];

pub(super) const FAMILY: Family = Family {
    name: "llama",
    signs: &[PYTHON_TAG],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(start) = content[at..].find(PYTHON_TAG) {
        let start = at + start;
        rest.push_str(&content[at..start]);
        at = objects(content, start, tools, &mut found)?;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// The `;`-separated call objects after the tag at `start`, and where they end (after a
/// trailing `;` and an end token).
fn objects(
    content: &str,
    start: usize,
    tools: &[ToolSpec],
    found: &mut Vec<Found>,
) -> Option<usize> {
    let mut at = start + PYTHON_TAG.len();
    let mut from = start;
    loop {
        let (value, used) = json::value_at_start(&content[at..])?;
        found.push(Found {
            call: json::call_of(value, tools)?,
            format: TextCallFormat::Llama,
            text: content[from..at + used].trim().to_owned(),
        });
        at += used;
        let tail = content[at..].trim_start();
        let Some(next) = tail.strip_prefix(';') else {
            break;
        };
        at = content.len() - next.len();
        if !next.trim_start().starts_with('{') {
            break;
        }
        from = at;
    }
    let tail = content[at..].trim_start();
    let tail = ENDS
        .iter()
        .find_map(|end| tail.strip_prefix(end))
        .unwrap_or(tail);
    Some(content.len() - tail.len())
}
