//! Finding calls in a turn's text: one reader per family of written forms behind one table, and
//! the rule that anything ambiguous stays text.
//!
//! A reader claims a text by its family's signs (`<tool_call>`, `[TOOL_CALLS]`, …); the first
//! claimant in [`FAMILIES`] reads it and returns the calls and the text around them. That text
//! must hold no sign of any family (a stray tag, a second form, another call object): a text
//! written in two families' forms, or with a call no reader accepts beside good ones, stays text.
//!
//! Which signs a text holds is found in one pass over its bytes ([`Signs::of`]), shared by the
//! readers' table and the repair decision: most turns hold none, and pay that pass only.

use crate::prelude::*;

use super::family::Family;
use super::{json, Found, TextCallFormat};
use crate::schema::ToolSpec;

/// The readers, most specific signs first (Gemma's ```` ```tool_code ```` before the plain
/// fence).
pub(super) const FAMILIES: [Family; 18] = [
    super::harmony::FAMILY,
    super::mistral::FAMILY,
    super::llama::FAMILY,
    super::deepseek::FAMILY,
    super::phi::FAMILY,
    super::kimi::FAMILY,
    super::gemma4::FAMILY,
    super::gemma::FAMILY,
    super::listed::NEMOTRON_FAMILY,
    super::listed::HUNYUAN_FAMILY,
    super::listed::FUNCTOOLS_FAMILY,
    super::minimax::FAMILY,
    super::seed::FAMILY,
    super::pythonic::LLAMA4_FAMILY,
    super::pythonic::LFM2_FAMILY,
    super::pythonic::OLMO3_FAMILY,
    super::tagged::FAMILY,
    super::fenced::FAMILY,
];

/// Text left around the calls that still looks like part of a call. Alone it marks no attempt:
/// any JSON object in an answer (a `package.json` shown) has a `"name"`.
const OBJECT_SIGN: &str = "\"name\"";

/// The bytes the pass stops at: the anchor (first ASCII punctuation) of every sign, which
/// `ANCHORED` checks at compile time, and `{` (a call object's start). Prose holds few of them.
const ANCHORS: [u8; 6] = [b'<', b'[', b'`', b'"', b'=', b'{'];

/// The bytes of which any one lets a text hold a written call (the repair decision aside): every
/// form but the bare object has one.
const OPENERS: [u8; 3] = [b'<', b'`', b'['];

/// The bytes that start arguments after a tool's name in some form: `"`, `=` and `{` (JSON,
/// keywords), `:` (YAML-like keys, `Action Input:`), `'` (a Python string), `<` (a key's tag).
/// A text without any names no tool with arguments.
const ARGUMENT_STARTS: [u8; 6] = [b'"', b'=', b'{', b':', b'\'', b'<'];

/// The bits of `Signs::found` whose sign alone marks an attempted call.
const MARKING: u64 = marking();

/// Every sign the pass looks for, each with the offset of its anchor and its owner: the index of
/// its family in [`FAMILIES`], or `FAMILIES.len()` for [`OBJECT_SIGN`].
const SIGNS: [Sign; sign_count()] = signs();

/// Bytes looked at together: a block without an anchor is passed over in a few vector
/// instructions (64 measured faster than 32).
const BLOCK: usize = 64;

#[derive(Clone, Copy)]
struct Sign {
    text: &'static [u8],
    anchor: usize,
    owner: usize,
    /// Its family's `signs_mark_calls` (false for the call object's sign).
    marks_call: bool,
}

const fn sign_count() -> usize {
    let mut count = 1;
    let mut family = 0;
    while family < FAMILIES.len() {
        count += FAMILIES[family].signs.len();
        family += 1;
    }
    count
}

const fn signs() -> [Sign; sign_count()] {
    let blank = Sign {
        text: OBJECT_SIGN.as_bytes(),
        anchor: 0,
        owner: FAMILIES.len(),
        marks_call: false,
    };
    let mut table = [blank; sign_count()];
    let mut at = 0;
    let mut family = 0;
    while family < FAMILIES.len() {
        let signs = FAMILIES[family].signs;
        let mut sign = 0;
        while sign < signs.len() {
            let text = signs[sign].as_bytes();
            let anchor = anchor_of(text);
            assert!(is_anchor(text[anchor]), "every sign's anchor is in ANCHORS");
            table[at] = Sign {
                text,
                anchor,
                owner: family,
                marks_call: FAMILIES[family].signs_mark_calls,
            };
            at += 1;
            sign += 1;
        }
        family += 1;
    }
    // The last entry stays the call object's sign.
    assert!(is_anchor(
        OBJECT_SIGN.as_bytes()[anchor_of(OBJECT_SIGN.as_bytes())]
    ));
    assert!(
        table.len() <= u64::BITS as usize,
        "a bit of `Signs::found` a sign"
    );
    // No anchor but `{` (which `brace` needs) without a sign: it would stop the pass over
    // prose for nothing.
    let mut anchor = 0;
    while anchor < ANCHORS.len() {
        let mut used = ANCHORS[anchor] == b'{';
        let mut sign = 0;
        while sign < table.len() {
            used |= table[sign].text[table[sign].anchor] == ANCHORS[anchor];
            sign += 1;
        }
        assert!(used, "every anchor is a sign's, or the brace");
        anchor += 1;
    }
    table
}

const fn marking() -> u64 {
    let mut mask = 0;
    let mut index = 0;
    while index < SIGNS.len() {
        if SIGNS[index].marks_call {
            mask |= 1 << index;
        }
        index += 1;
    }
    mask
}

/// Where the first ASCII punctuation byte of `sign` stands (its first byte when it has none):
/// a letter would stop the pass in nearly every word of prose.
const fn anchor_of(sign: &[u8]) -> usize {
    let mut at = 0;
    while at < sign.len() {
        if sign[at].is_ascii_punctuation() {
            return at;
        }
        at += 1;
    }
    0
}

/// Whether `byte` is one of [`ANCHORS`]; without branches, so a block's test vectorizes.
const fn is_anchor(byte: u8) -> bool {
    (byte == ANCHORS[0])
        | (byte == ANCHORS[1])
        | (byte == ANCHORS[2])
        | (byte == ANCHORS[3])
        | (byte == ANCHORS[4])
        | (byte == ANCHORS[5])
}

/// Whether `byte` is one of [`ARGUMENT_STARTS`]; without branches, like [`is_anchor`].
const fn is_argument_start(byte: u8) -> bool {
    (byte == ARGUMENT_STARTS[0])
        | (byte == ARGUMENT_STARTS[1])
        | (byte == ARGUMENT_STARTS[2])
        | (byte == ARGUMENT_STARTS[3])
        | (byte == ARGUMENT_STARTS[4])
        | (byte == ARGUMENT_STARTS[5])
}

/// What one pass over a text found: which signs it holds, and which of the bytes that decide
/// whether it may hold a call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Signs {
    /// Bit `i`: the text holds `SIGNS[i]`.
    found: u64,
    /// The text holds one of [`OPENERS`].
    opener: bool,
    /// The text holds a `{`.
    brace: bool,
    /// The text holds one of [`ARGUMENT_STARTS`].
    argument: bool,
    /// The text starts with `{` after blanks.
    leading_brace: bool,
}

impl Signs {
    /// The signs `text` holds, in one pass over its bytes.
    pub(crate) fn of(text: &str) -> Signs {
        let bytes = text.as_bytes();
        let mut signs = Signs {
            leading_brace: text.trim_start().starts_with('{'),
            ..Signs::default()
        };
        let blocks = bytes.chunks_exact(BLOCK);
        let tail = bytes.len() - blocks.remainder().len();
        for (index, block) in blocks.enumerate() {
            // Folded as a byte, not a `bool`, one fold a question: LLVM vectorizes these
            // reductions, and not the others (measured: 0.7 µs against 17 µs for 11 kB of prose;
            // one fold of both questions as bits was as slow).
            if !signs.argument {
                signs.argument = block
                    .iter()
                    .fold(0u8, |hit, byte| hit | u8::from(is_argument_start(*byte)))
                    != 0;
            }
            if block
                .iter()
                .fold(0u8, |hit, byte| hit | u8::from(is_anchor(*byte)))
                != 0
            {
                signs.note_block(bytes, index * BLOCK, BLOCK);
            }
        }
        signs.argument |= bytes[tail..].iter().any(|byte| is_argument_start(*byte));
        signs.note_block(bytes, tail, bytes.len() - tail);
        signs
    }

    /// Notes every anchor among `bytes[start..start + length]`.
    fn note_block(&mut self, bytes: &[u8], start: usize, length: usize) {
        for at in start..start + length {
            if is_anchor(bytes[at]) {
                self.note(bytes, at);
            }
        }
    }

    /// Notes the anchor at `at`, and every sign it stands in.
    fn note(&mut self, bytes: &[u8], at: usize) {
        let byte = bytes[at];
        self.opener |= OPENERS.contains(&byte);
        self.brace |= byte == b'{';
        for (index, sign) in SIGNS.iter().enumerate() {
            if sign.text[sign.anchor] == byte
                && at >= sign.anchor
                && bytes[at - sign.anchor..].starts_with(sign.text)
            {
                self.found |= 1 << index;
            }
        }
    }

    /// Whether the text can hold a written call at all: every form starts with `{`, `<`, `[` or
    /// a backtick.
    pub(crate) fn may_hold_calls(&self) -> bool {
        self.leading_brace || self.opener
    }

    /// Whether the text holds a `{`.
    pub(crate) fn brace(&self) -> bool {
        self.brace
    }

    /// Whether the text holds one of [`ARGUMENT_STARTS`]: without one it names no tool with
    /// arguments.
    pub(crate) fn argument(&self) -> bool {
        self.argument
    }

    /// Whether the text holds a sign that only a written call carries (a family's special
    /// token or tag; not a code fence, nor a call object's `"name"`).
    pub(crate) fn marks_an_attempt(&self) -> bool {
        self.found & MARKING != 0
    }

    /// Whether the text holds a sign of any family, or a call object's `"name"`: what may not be
    /// left around recovered calls, and what makes a text with no readable call an attempted
    /// one.
    pub(crate) fn looks_like_a_call(&self) -> bool {
        self.found != 0
    }

    /// Whether the text holds a sign of the family at `index` in [`FAMILIES`].
    pub(super) fn holds_family(&self, index: usize) -> bool {
        SIGNS
            .iter()
            .enumerate()
            .any(|(bit, sign)| self.found & (1 << bit) != 0 && sign.owner == index)
    }

    /// The index in [`FAMILIES`] of the first family whose sign the text holds.
    pub(super) fn first_family(&self) -> Option<usize> {
        SIGNS
            .iter()
            .enumerate()
            .filter(|(index, sign)| self.found & (1 << index) != 0 && sign.owner < FAMILIES.len())
            .map(|(_, sign)| sign.owner)
            .min()
    }
}

/// The calls `content` (whose signs are `signs`) holds, in order, when it holds only
/// unambiguous ones naming `tools`; the `preferred` family (an index in [`FAMILIES`]) reads
/// first when the text holds its signs.
pub(super) fn calls_in(
    content: &str,
    signs: &Signs,
    tools: &[ToolSpec],
    preferred: Option<usize>,
) -> Option<Vec<Found>> {
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
    // A text that is one pythonic list `[NAME(…), …]` is those calls: no marker announces it,
    // so it is read only when it is the whole text.
    if whole.starts_with('[') && whole.ends_with(")]") {
        if let Some(found) = super::pythonic::list(whole, tools) {
            return Some(found);
        }
    }
    // The model's own family first; when it reads nothing, the family whose signs come first.
    preferred
        .filter(|index| signs.holds_family(*index))
        .and_then(|index| read_as(index, content, tools))
        .or_else(|| read_as(signs.first_family()?, content, tools))
}

/// The calls the family at `index` reads in `content`, when nothing call-like is left around
/// them.
fn read_as(index: usize, content: &str, tools: &[ToolSpec]) -> Option<Vec<Found>> {
    let (found, rest) = (FAMILIES[index].read)(content, tools)?;
    (!found.is_empty() && !Signs::of(&rest).looks_like_a_call()).then_some(found)
}
