//! Shortening a tool result: the middle of its longest strings cut, head and tail kept, and a
//! marker in their place that says how much went and how to see it again.

use crate::prelude::*;

use serde_json::Value;

use crate::wire::Message;

/// A string shorter than this is never cut: the marker would be longer than the gain.
pub(super) const MIN_CUT_BYTES: usize = 256;

/// At least the length of the marker [`cut_middle`] writes, as JSON text.
const MARKER_BYTES: usize = 160;

/// A tool result shortened to about `keep` bytes, or `None` when it is short already.
pub(super) fn shorten_message(message: &Message, keep: usize) -> Option<Message> {
    if message.content.len() <= keep + MIN_CUT_BYTES {
        return None;
    }
    let content = match serde_json::from_str::<Value>(&message.content) {
        Ok(mut value) => {
            shorten_value(&mut value, keep, message.content.len());
            value.to_string()
        }
        Err(_) => cut_middle(&message.content, message.content.len() - keep),
    };
    // Built field by field: a clone of the message would copy the long text only to drop it.
    (content.len() < message.content.len()).then(|| Message {
        role: message.role,
        content,
        thinking: message.thinking.clone(),
        signed_thinking: message.signed_thinking.clone(),
        tool_calls: message.tool_calls.clone(),
        tool_name: message.tool_name.clone(),
        tool_call_id: message.tool_call_id.clone(),
    })
}

/// Cuts the middle of the longest strings of `value` until its JSON text is at most `max` bytes
/// (or no string is long enough to cut).
pub(super) fn shorten_value(value: &mut Value, max: usize, length: usize) {
    // Each pass cuts the longest string by at least the excess; a few passes settle any value.
    // The JSON length is kept up to date from the strings' escaped lengths, never re-serialized.
    let mut length = length;
    for _ in 0..8 {
        if length <= max {
            return;
        }
        let Some(longest) = longest_string(value) else {
            return;
        };
        if longest.len() < MIN_CUT_BYTES {
            return;
        }
        // The excess is in JSON text, where escapes make a string longer than its bytes.
        let escaped = escaped_len(longest).max(1);
        let cut = ((length - max + MARKER_BYTES) * longest.len()).div_ceil(escaped);
        let cut = cut.min(longest.len() - MIN_CUT_BYTES / 2);
        *longest = cut_middle(longest, cut);
        length = length - escaped + escaped_len(longest);
    }
}

/// The length of `text` inside a JSON string, quotes left out: as serde_json escapes it.
pub(super) fn escaped_len(text: &str) -> usize {
    // Eight bytes at a time, and byte by byte through a table only where a word holds one that
    // is escaped: measuring a result byte by byte made it slower to shorten than to parse.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let extra = |bytes: &[u8]| -> usize {
        bytes
            .iter()
            .map(|byte| usize::from(ESCAPE_EXTRA[usize::from(*byte)]))
            .sum()
    };
    let mut words = text.as_bytes().chunks_exact(8);
    let mut length = text.len();
    for word in &mut words {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let value = u64::from_le_bytes(bytes);
        // A byte under 0x20 (a control character), a quote or a backslash.
        let escaped = value.wrapping_sub(ONES * 0x20) & !value & HIGHS != 0
            || has_zero(value ^ (ONES * u64::from(b'"')))
            || has_zero(value ^ (ONES * u64::from(b'\\')));
        if escaped {
            length += extra(word);
        }
    }
    length + extra(words.remainder())
}

/// The bytes serde_json's escape of each byte adds: `\"`, `\\`, `\n` and the other short
/// escapes one, the other control characters five (`\u001f`).
const ESCAPE_EXTRA: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = 5;
        byte += 1;
    }
    let short = [b'"', b'\\', b'\n', b'\r', b'\t', 0x08, 0x0c];
    let mut at = 0;
    while at < short.len() {
        table[short[at] as usize] = 1;
        at += 1;
    }
    table
};

fn longest_string(value: &mut Value) -> Option<&mut String> {
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string)
            .max_by_key(|text| text.len()),
        Value::Object(map) => map
            .values_mut()
            .filter_map(longest_string)
            .max_by_key(|text| text.len()),
        _ => None,
    }
}

/// `text` with about `cut` bytes taken from its middle (on character boundaries) and a marker
/// in their place that says how much went and how to see it.
pub(super) fn cut_middle(text: &str, cut: usize) -> String {
    let keep = text.len().saturating_sub(cut);
    let mut head = keep / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (keep - keep / 2);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    if tail <= head {
        return text.to_owned();
    }
    format!(
        "{}\n[… {} bytes cut here by mend to fit the context window; call the tool again (a narrower range) to see them …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}
