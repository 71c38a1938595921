//! A call the model tried to write but no reader accepts, asked for once more under a grammar:
//! the server constrains the answer to `{"name": one of the offered tools, "arguments": that
//! tool's schema}` (one `oneOf` branch a tool), so what comes back is a call or nothing.

use crate::prelude::*;

use serde_json::{json, Value};

use super::named::{is_word_byte, Names, KEY_REACH};
use super::{json, Signs, TextCall, TextCallFormat};
use crate::protocol::ModelCall;
use crate::schema::ToolSpec;
use crate::wire::Message;

/// What the repair request asks, after the broken turn.
const ASK: &str = "Your last message tried to call a tool, but the call could not be read. \
Write that one call again as a JSON object: {\"name\": the tool, \"arguments\": its arguments}.";

/// Whether a turn's text (whose signs are `signs`), which no reader turned into calls, is an
/// attempted call: it holds a marker only a family's calls carry, or it names an offered tool
/// with arguments after it, in whatever shape (JSON, keywords, tags, YAML-like keys), inside a
/// code fence or not. Prose that only mentions a tool (`read_file`, `run read_file on it`,
/// `read_file(path)`), fenced or not, is not one.
pub(crate) fn attempted(content: &str, signs: &Signs, tools: &[ToolSpec]) -> bool {
    if signs.marks_an_attempt() {
        return true;
    }
    // Searching the text for each name costs most of the decision: a text with nothing that
    // can start arguments (most prose) is passed over without it. The names made of word bytes
    // (every tool's in practice) are found in one pass for all tools; any other is searched
    // for on its own.
    signs.argument() && {
        let brace = signs.brace();
        let (names, others) = Names::split(tools);
        names.any_place(content, |tool, at| {
            arguments_or_keys_at(content, tool, at, brace)
        }) || others
            .iter()
            .any(|tool| names_with_arguments_or_keys(content, tool, brace))
    }
}

/// Whether `content` names `tool` as a word with arguments after it ([`arguments_after`]) or
/// with one of its keys soon after it ([`keys_after`]), each place the name stands looked at
/// once for both.
fn names_with_arguments_or_keys(content: &str, tool: &ToolSpec, brace: bool) -> bool {
    any_place(content, tool.name(), |at| {
        arguments_or_keys_at(content, tool, at, brace)
    })
}

/// Whether the name of `tool`, standing at `at` in `content`, stands there as a word with
/// arguments or one of its keys after it.
fn arguments_or_keys_at(content: &str, tool: &ToolSpec, at: usize, brace: bool) -> bool {
    let bytes = content.as_bytes();
    let before = at.checked_sub(1).map(|before| bytes[before]);
    if before.is_some_and(is_word_byte) {
        return false;
    }
    let end = at + tool.name().len();
    let word_ends = !bytes.get(end).copied().is_some_and(is_word_byte);
    arguments_after(&content[end..], before, brace) || (word_ends && keys_after(content, end, tool))
}

/// The bytes of text [`any_place`] hands its searcher at once.
const PIECE: usize = 1024;

/// Whether `found` holds at some place where `name` stands in `content`. `contains` is std's
/// vectorized substring test; its searcher (behind `match_indices`) is not, and cost 2 Ir a
/// byte: each piece of the text is tested first and searched only when it holds the name, so
/// a text that never names the tool (most) pays only the test, and one that mentions it a
/// piece's search a mention.
fn any_place(content: &str, name: &str, mut found: impl FnMut(usize) -> bool) -> bool {
    if name.is_empty() {
        return false;
    }
    let mut start = 0;
    loop {
        let mut end = (start + PIECE + name.len()).min(content.len());
        while !content.is_char_boundary(end) {
            end += 1;
        }
        let piece = &content[start..end];
        if piece.contains(name) && piece.match_indices(name).any(|(at, _)| found(start + at)) {
            return true;
        }
        if end == content.len() {
            return false;
        }
        // The next piece starts within the name's length of this one's end, so a name across
        // the cut is whole in it.
        start = end + 1 - name.len();
        while !content.is_char_boundary(start) {
            start -= 1;
        }
    }
}

/// Whether one of the tool's own parameters stands as a key soon after its name (which ends at
/// `end`), in any shape a model writes one: `<path>`, `path=`, `path:`, `"path":`,
/// `name="path"`. Prose names a parameter as a word (`the path`), not as a key.
pub(super) fn keys_after(content: &str, end: usize, tool: &ToolSpec) -> bool {
    let mut stop = (end + KEY_REACH).min(content.len());
    while !content.is_char_boundary(stop) {
        stop -= 1;
    }
    let after = &content[end..stop];
    tool.function
        .parameters
        .properties
        .keys()
        .any(|key| used_as_key(after, key))
}

/// Whether `key` stands in `text` as a key: a tag, or a word followed by `=` (not `==`) or `:`
/// (quoted or not), or the value of a `name="…"` attribute.
fn used_as_key(text: &str, key: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(key).any(|(at, _)| {
        let before = at.checked_sub(1).map(|before| bytes[before]);
        let rest = &text[at + key.len()..];
        match before {
            Some(b'<') => rest.starts_with('>') || rest.starts_with(' '),
            Some(b'"') => {
                rest.starts_with("\":") || rest.starts_with("\": ") || rest.starts_with("\">")
            }
            Some(byte) if byte.is_ascii_alphanumeric() || byte == b'_' => false,
            _ => {
                let rest = rest.trim_start_matches(' ');
                (rest.starts_with('=') && !rest.starts_with("=="))
                    || rest.starts_with(": ")
                    || rest.starts_with(":\n")
            }
        }
    })
}

/// Whether what follows a tool's name (`after`, the byte before the name `before`) starts its
/// arguments: `"NAME"` in a text with a JSON object (`{"name": "NAME", …}`), `NAME{` or
/// `NAME {` (an object after the name), or `NAME(` with a keyword (`key=`) or a literal (`"…"`,
/// `{…}`) first.
pub(super) fn arguments_after(after: &str, before: Option<u8>, brace: bool) -> bool {
    match after.as_bytes().first() {
        Some(b'"') => brace && before == Some(b'"'),
        Some(b'(') => python_arguments(&after[1..]),
        _ => after.trim_start_matches([' ', ':']).starts_with('{'),
    }
}

/// Whether a Python call's argument list starts with `key=` or a literal (a string, a dict).
fn python_arguments(arguments: &str) -> bool {
    let arguments = arguments.trim_start();
    if arguments.starts_with(['"', '\'', '{']) {
        return true;
    }
    let key = arguments
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(arguments.len());
    key > 0 && {
        let rest = arguments[key..].trim_start();
        rest.starts_with('=') && !rest.starts_with("==")
    }
}

/// The JSON schema the server must keep the answer to.
pub(crate) fn schema(tools: &[ToolSpec]) -> Value {
    let branches: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": [tool.name()]},
                    "arguments": tool.function.parameters,
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    json!({"oneOf": branches})
}

/// The message that asks for the call again.
pub(crate) fn ask() -> Message {
    Message::user(ASK)
}

/// The call in the repair's answer, when it is one of an offered tool, and how it is recorded:
/// the text of the broken turn, marked as repaired.
pub(crate) fn read_answer(
    answer: &str,
    broken_text: &str,
    tools: &[ToolSpec],
) -> Option<(ModelCall, TextCall)> {
    let call = json::call(answer.trim(), tools)?;
    let recorded = TextCall {
        index: 0,
        name: call.name.clone(),
        format: TextCallFormat::RepairedByGrammar,
        text: broken_text.to_owned(),
    };
    Some((call, recorded))
}
