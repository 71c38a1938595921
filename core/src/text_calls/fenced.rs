//! A fenced code block (```` ```json ````, or no language) holding the call object.

use crate::prelude::*;

use super::family::{Family, Read};
use super::{json, Found, TextCallFormat};
use crate::schema::ToolSpec;

const FENCE: &str = "```";

pub(super) const FAMILY: Family = Family {
    name: "fenced_json",
    signs: &[FENCE],
    signs_mark_calls: false,
    read: fenced,
};

/// Fenced code blocks, each holding one call object (```` ```json ```` or no language); any
/// other block makes the text ambiguous. Returns the calls and the text around the blocks.
fn fenced(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(open) = content[at..].find(FENCE) {
        let open = at + open;
        rest.push_str(&content[at..open]);
        let after = &content[open + FENCE.len()..];
        let language_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let language = &after[..language_end];
        if !(language.is_empty() || language.eq_ignore_ascii_case("json")) {
            return None;
        }
        let body_end = after[language_end..].find(FENCE)? + language_end;
        let call = json::call(after[language_end..body_end].trim(), tools)?;
        let end = open + FENCE.len() + body_end + FENCE.len();
        found.push(Found {
            call,
            format: TextCallFormat::FencedJson,
            text: content[open..end].to_owned(),
        });
        at = end;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}
