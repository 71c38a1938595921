//! gpt-oss's harmony format: a message on the `commentary` channel addressed to a function,
//! `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`
//! (the recipient may also stand before `<|channel|>`). Messages of other channels (`analysis`,
//! `final`) around the calls are text.

use crate::prelude::*;

use super::family::is_name_char;
use super::family::{Family, Read};
use super::json;
use super::{Found, TextCallFormat};
use crate::schema::ToolSpec;

const RECIPIENT: &str = "to=functions.";
const MESSAGE: &str = "<|message|>";
const CALL: &str = "<|call|>";
const END: &str = "<|end|>";
const HEADERS: [&str; 2] = ["<|start|>", "<|channel|>"];

pub(super) const FAMILY: Family = Family {
    name: "harmony",
    signs: &[RECIPIENT, CALL],
    signs_mark_calls: true,
    read,
};

fn read(content: &str, tools: &[ToolSpec]) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(to) = content[at..].find(RECIPIENT) {
        let to = at + to;
        let start = header_start(content, at, to);
        rest.push_str(&content[at..start]);
        let name_start = to + RECIPIENT.len();
        let name_len = content[name_start..]
            .find(|c: char| !is_name_char(c))
            .unwrap_or(content.len() - name_start);
        let name = &content[name_start..name_start + name_len];
        let message = name_start + content[name_start..].find(MESSAGE)?;
        let header = &content[name_start + name_len..message];
        if header.contains(END) || header.contains(RECIPIENT) || header.contains(CALL) {
            return None;
        }
        let body_start = message + MESSAGE.len();
        let (body_end, end) = match content[body_start..].find(CALL) {
            Some(call) => (body_start + call, body_start + call + CALL.len()),
            // The server may strip the final `<|call|>`: then the call runs to the end.
            None => (content.len(), content.len()),
        };
        let arguments = serde_json::from_str(content[body_start..body_end].trim()).ok()?;
        let call = json::named(name.to_owned(), Some(arguments), tools)?;
        found.push(Found {
            call,
            format: TextCallFormat::Harmony,
            text: content[start..end].to_owned(),
        });
        at = end;
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}

/// Where the message addressed at `to` begins: its `<|start|>` or `<|channel|>`, when one stands
/// after the previous message's end; else the recipient itself.
fn header_start(content: &str, from: usize, to: usize) -> usize {
    let before = &content[from..to];
    let boundary = before.rfind(END).map_or(0, |end| end + END.len());
    HEADERS
        .iter()
        .filter_map(|header| before[boundary..].find(header))
        .min()
        .map_or(to, |offset| from + boundary + offset)
}
