//! MiniMax-M2's calls: a `<minimax:tool_call>` block of `<invoke name="NAME">` elements, each
//! holding `<parameter name="KEY">VALUE</parameter>` elements. A value is text where the schema
//! wants a string, JSON otherwise.

use crate::prelude::*;

use serde_json::Map;

use super::family::{blocks, Family, Read};
use super::typed::typed;
use super::{Found, TextCallFormat};
use crate::protocol::{CallArguments, ModelCall};
use crate::schema::ToolSpec;

const OPEN: &str = "<minimax:tool_call>";
const CLOSE: &str = "</minimax:tool_call>";
const INVOKE_OPEN: &str = "<invoke name=\"";
const INVOKE_CLOSE: &str = "</invoke>";
const PARAMETER_OPEN: &str = "<parameter name=\"";
const PARAMETER_CLOSE: &str = "</parameter>";

pub(super) const FAMILY: Family = Family {
    name: "minimax",
    signs: &[OPEN, CLOSE, "<invoke", "</invoke"],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    blocks(content, OPEN, CLOSE, |inner, _| {
        let mut found = Vec::new();
        let mut rest = inner.trim_start();
        while !rest.is_empty() {
            let (call, used) = invoke(rest, tools)?;
            found.push(Found {
                call,
                format: TextCallFormat::MiniMax,
                text: rest[..used].to_owned(),
            });
            rest = rest[used..].trim_start();
        }
        Some(found)
    })
}

/// One `<invoke name="NAME">…</invoke>` at the start of `text`, and its length.
fn invoke(text: &str, tools: &[ToolSpec]) -> Option<(ModelCall, usize)> {
    let header = text.strip_prefix(INVOKE_OPEN)?;
    let (name, mut rest) = header.split_once("\">")?;
    let tool = tools.iter().find(|tool| tool.name() == name)?;
    let mut arguments = Map::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(INVOKE_CLOSE) {
            let call = ModelCall {
                id: None,
                index: None,
                name: name.to_owned(),
                arguments: CallArguments::Object { value: arguments },
            };
            return Some((call, text.len() - after.len()));
        }
        let (key, after) = rest.strip_prefix(PARAMETER_OPEN)?.split_once("\">")?;
        let (value, after) = after.split_once(PARAMETER_CLOSE)?;
        if key.is_empty() || arguments.contains_key(key) {
            return None;
        }
        let value = value.strip_prefix('\n').unwrap_or(value);
        let value = value.strip_suffix('\n').unwrap_or(value);
        arguments.insert(key.to_owned(), typed(value, tool, key));
        rest = after;
    }
}
