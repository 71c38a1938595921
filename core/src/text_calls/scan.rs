//! Finding calls in a turn's text: one reader per family of written forms behind one table, and
//! the rule that anything ambiguous stays text.
//!
//! A reader claims a text by its family's signs (`<tool_call>`, `[TOOL_CALLS]`, …); the first
//! claimant in [`FAMILIES`] reads it and returns the calls and the text around them. That text
//! must hold no sign of any family (a stray tag, a second form, another call object): a text
//! written in two families' forms, or with a call no reader accepts beside good ones, stays text.

use crate::prelude::*;

use super::family::Family;
use super::{json, Found, TextCallFormat};
use crate::schema::ToolSpec;

/// The readers, most specific signs first (Gemma's ```` ```tool_code ```` before the plain
/// fence).
pub(super) const FAMILIES: [Family; 8] = [
    super::harmony::FAMILY,
    super::mistral::FAMILY,
    super::llama::FAMILY,
    super::deepseek::FAMILY,
    super::phi::FAMILY,
    super::gemma::FAMILY,
    super::tagged::FAMILY,
    super::fenced::FAMILY,
];

/// Text left around the calls that still looks like part of a call.
const OBJECT_SIGN: &str = "\"name\"";

/// Whether `content` can hold a written call at all: every form starts with `{`, `<`, `[` or a
/// backtick. One pass over the bytes, so turns of plain prose pay nothing more.
pub(super) fn may_hold_calls(content: &str) -> bool {
    content.trim_start().starts_with('{')
        || content.bytes().any(|b| b == b'<' || b == b'`' || b == b'[')
}

/// The calls `content` holds, in order, when it holds only unambiguous ones naming `tools`.
pub(super) fn calls_in(content: &str, tools: &[ToolSpec]) -> Option<Vec<Found>> {
    let whole = content.trim();
    // A text that is one call object is that call; one that only starts with a brace (prose
    // that opens with `{`, then a tagged or fenced call) is read like any other text.
    if whole.starts_with('{') {
        if let Some(call) = json::call(whole, tools) {
            return Some(vec![Found {
                call,
                format: TextCallFormat::BareJson,
                text: whole.to_owned(),
            }]);
        }
    }
    let family = FAMILIES.iter().find(|family| has_sign(content, family))?;
    let (found, rest) = (family.read)(content, tools)?;
    (!found.is_empty() && !looks_like_a_call(&rest)).then_some(found)
}

/// One punctuation byte of every family's sign and of a call object's `"name"`, and `{`: a text
/// holding none of them holds no sign and no call object, so [`may_be_attempted`] turns it away
/// in one pass over its bytes before any sign is searched for.
const MARKERS: [bool; 256] = {
    let mut table = [false; 256];
    table[b'{' as usize] = true;
    table[punctuation_of(OBJECT_SIGN) as usize] = true;
    let mut family = 0;
    while family < FAMILIES.len() {
        let signs = FAMILIES[family].signs;
        let mut sign = 0;
        while sign < signs.len() {
            table[punctuation_of(signs[sign]) as usize] = true;
            sign += 1;
        }
        family += 1;
    }
    table
};

/// The first ASCII punctuation byte of `sign` (its first byte when it has none): every sign
/// holds one, and a letter would mark nearly every text of prose.
const fn punctuation_of(sign: &str) -> u8 {
    let bytes = sign.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_punctuation() {
            return bytes[at];
        }
        at += 1;
    }
    bytes[0]
}

/// Whether `text` could be an attempted call at all: it holds a byte of [`MARKERS`]. The
/// turns of prose without one (most answers) cost this one pass and nothing more.
pub(crate) fn may_be_attempted(text: &str) -> bool {
    text.bytes().any(|byte| MARKERS[byte as usize])
}

/// Whether `text` holds a sign of any family, or a call object's `"name"`: what may not be left
/// around recovered calls, and what makes a text with no readable call an attempted one.
pub(crate) fn looks_like_a_call(text: &str) -> bool {
    text.contains(OBJECT_SIGN) || FAMILIES.iter().any(|family| has_sign(text, family))
}

fn has_sign(text: &str, family: &Family) -> bool {
    family.signs.iter().any(|sign| text.contains(sign))
}
