//! GLM-4.5 and later (4.6, 4.7): `<tool_call>NAME` then `<arg_key>KEY</arg_key>` /
//! `<arg_value>VALUE</arg_value>` pairs, then `</tool_call>`; 4.5 and 4.6 put newlines between
//! the parts, 4.7 none. A value is text where the schema wants a string, JSON otherwise.

use crate::prelude::*;

use serde_json::Map;

use super::family::is_name_char;
use super::typed::typed;
use crate::protocol::{CallArguments, ModelCall};
use crate::schema::ToolSpec;

const KEY_OPEN: &str = "<arg_key>";
const KEY_CLOSE: &str = "</arg_key>";
const VALUE_OPEN: &str = "<arg_value>";
const VALUE_CLOSE: &str = "</arg_value>";

/// Every sign of the pairs: one left outside a call makes the text ambiguous.
pub(super) const SIGNS: [&str; 4] = ["<arg_key", "</arg_key", "<arg_value", "</arg_value"];

/// The call a `<tool_call>` block's body holds in GLM's form: a name alone, or a name and its
/// pairs.
pub(super) fn call(body: &str, tools: &[ToolSpec]) -> Option<ModelCall> {
    let name_end = body.find(KEY_OPEN).unwrap_or(body.len());
    let name = body[..name_end].trim();
    if name.is_empty() || !name.chars().all(is_name_char) {
        return None;
    }
    let tool = tools.iter().find(|tool| tool.name() == name)?;
    let mut arguments = Map::new();
    let mut rest = &body[name_end..];
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let (key, after) = between(rest, KEY_OPEN, KEY_CLOSE)?;
        let (value, after) = between(after.trim_start(), VALUE_OPEN, VALUE_CLOSE)?;
        let key = key.trim();
        if key.is_empty() || arguments.contains_key(key) {
            return None;
        }
        arguments.insert(key.to_owned(), typed(value, tool, key));
        rest = after;
    }
    Some(ModelCall {
        id: None,
        index: None,
        name: name.to_owned(),
        arguments: CallArguments::Object { value: arguments },
    })
}

/// The text between `open` (at the start of `text`) and the next `close`, and what follows.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<(&'a str, &'a str)> {
    let inner = text.strip_prefix(open)?;
    let end = inner.find(close)?;
    Some((&inner[..end], &inner[end + close.len()..]))
}
