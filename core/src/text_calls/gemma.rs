//! Gemma's ```` ```tool_code ```` blocks: one Python call a line, keyword arguments only,
//! `NAME(key="text", n=3, flag=True, items=["a", "b"])`, possibly wrapped in `print(…)` and
//! prefixed `default_api.` as Gemma's own examples write them.

use crate::prelude::*;

use serde_json::Value;

use super::family::{Family, Read};
use super::json;
use super::python;
use super::{Found, TextCallFormat};
use crate::schema::ToolSpec;

const OPEN: &str = "```tool_code";
const FENCE: &str = "```";

pub(super) const FAMILY: Family = Family {
    name: "gemma_tool_code",
    signs: &[OPEN],
    signs_mark_calls: false,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(open) = content[at..].find(OPEN) {
        let open = at + open;
        rest.push_str(&content[at..open]);
        let body = open + OPEN.len();
        let close = body + content[body..].find(FENCE)?;
        let text = &content[open..close + FENCE.len()];
        let mut calls = 0;
        for line in content[body..close].lines().map(str::trim) {
            if line.is_empty() {
                continue;
            }
            let (name, arguments) = python::call(unwrapped(line))?;
            let call = json::named(name, Some(Value::Object(arguments)), tools)?;
            found.push(Found {
                call,
                format: TextCallFormat::GemmaToolCode,
                text: text.to_owned(),
            });
            calls += 1;
        }
        if calls == 0 {
            return None;
        }
        at = close + FENCE.len();
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// The call inside `print(…)`, without a `default_api.` prefix.
fn unwrapped(line: &str) -> &str {
    let line = line
        .strip_prefix("print(")
        .and_then(|inner| inner.strip_suffix(')'))
        .unwrap_or(line);
    line.strip_prefix("default_api.").unwrap_or(line)
}
