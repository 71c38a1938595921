//! DeepSeek's calls between `<｜tool▁calls▁begin｜>` and `<｜tool▁calls▁end｜>`, each
//! `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>` in one of two shapes: V3 and R1's
//! `function<｜tool▁sep｜>NAME` then a fenced ```` ```json ```` block, or V3.1's
//! `NAME<｜tool▁sep｜>{…}`.

use crate::prelude::*;

use super::family::is_name_char;
use super::family::{Family, Read};
use super::json;
use super::{Found, TextCallFormat};
use crate::protocol::ModelCall;
use crate::schema::ToolSpec;

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";
const FENCE: &str = "```";

pub(super) const FAMILY: Family = Family {
    name: "deepseek",
    signs: &["<｜tool▁"],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(begin) = content[at..].find(CALLS_BEGIN) {
        let begin = at + begin;
        rest.push_str(&content[at..begin]);
        at = block(content, begin + CALLS_BEGIN.len(), tools, &mut found)?;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// The calls of the block whose inside starts at `inside`, and where the block ends.
fn block(
    content: &str,
    inside: usize,
    tools: &[ToolSpec],
    found: &mut Vec<Found>,
) -> Option<usize> {
    // The server may strip the closing token of the block at the end of the text.
    let (inside_end, after) = match content[inside..].find(CALLS_END) {
        Some(end) => (inside + end, inside + end + CALLS_END.len()),
        None => (content.len(), content.len()),
    };
    let mut at = inside;
    loop {
        let tail = &content[at..inside_end];
        let start = at + (tail.len() - tail.trim_start().len());
        if start == inside_end {
            return (at > inside).then_some(after);
        }
        let body = content[start..inside_end].strip_prefix(CALL_BEGIN)?;
        let end = body.find(CALL_END)?;
        let used = CALL_BEGIN.len() + end + CALL_END.len();
        found.push(Found {
            call: one_call(&body[..end], tools)?,
            format: TextCallFormat::Deepseek,
            text: content[start..start + used].to_owned(),
        });
        at = start + used;
    }
}

/// The inside of one `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>`.
fn one_call(body: &str, tools: &[ToolSpec]) -> Option<ModelCall> {
    let sep = body.find(SEP)?;
    let (head, tail) = (body[..sep].trim(), &body[sep + SEP.len()..]);
    let (name, arguments) = if head == "function" {
        let line_end = tail.find('\n')?;
        let fenced = tail[line_end..].trim();
        let inner = fenced.strip_prefix(FENCE)?.strip_suffix(FENCE)?;
        let inner = inner.strip_prefix("json").unwrap_or(inner);
        (tail[..line_end].trim(), inner.trim())
    } else {
        (head, tail.trim())
    };
    if name.is_empty() || !name.chars().all(is_name_char) {
        return None;
    }
    let arguments = serde_json::from_str(arguments).ok()?;
    json::named(name.to_owned(), Some(arguments), tools)
}
