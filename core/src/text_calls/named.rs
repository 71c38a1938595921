//! Where an offered tool's name stands as a whole word with a byte after it that can start its
//! arguments or one of its keys, found in one pass over the text whatever the number of tools.
//!
//! The repair decision asks, for every place a tool's name stands, whether arguments or a key
//! follow it. Searching the text once a tool made that cost grow with the tools offered (1.65 %
//! of a turn with mend's seven). Every place the decision can accept has a *trigger* byte at or
//! soon after the name's end: `"` or `(` right after it, `{` after blanks and colons, or a key's
//! `<`, `"`, `=` or `:` within [`KEY_REACH`] bytes. So the pass looks only at the triggers (a
//! block without one is passed over in a few vector instructions), and at the words that end
//! close enough before each; a word is compared with the names of its length only.

use crate::prelude::*;

use crate::schema::ToolSpec;

/// How far after a tool's name its first argument may stand (`Action Input: {…}`, a YAML
/// `arguments:` line, a tag and a newline), in bytes.
pub(super) const KEY_REACH: usize = 64;

/// The bytes after a name that the decision can accept: `"` and `(` right after it, `{` after
/// blanks and colons, and `<`, `"`, `=`, `:` of a key within reach. A `(` counts only before
/// the text's last `"`, `'`, `{` or `=`: a Python call's arguments start with one.
const TRIGGERS: [u8; 6] = [b'"', b'(', b'{', b'<', b'=', b':'];

/// Bytes looked at together, as in the signs' pass.
const BLOCK: usize = 64;

/// Whether `byte` continues a word (an identifier's letter, digit or `_`): one load from a
/// table, where the comparisons cost several instructions a byte of every window walked.
pub(super) fn is_word_byte(byte: u8) -> bool {
    WORD_BYTES[usize::from(byte)]
}

/// [`is_word_byte`]'s table.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let value = byte as u8;
        table[byte] = value.is_ascii_alphanumeric() || value == b'_';
        byte += 1;
    }
    table
};

/// Whether `byte` is one of [`TRIGGERS`], `(` only when `paren`; without branches, so a
/// block's test vectorizes.
const fn is_trigger(byte: u8, paren: bool) -> bool {
    (byte == TRIGGERS[0])
        | ((byte == TRIGGERS[1]) & paren)
        | (byte == TRIGGERS[2])
        | (byte == TRIGGERS[3])
        | (byte == TRIGGERS[4])
        | (byte == TRIGGERS[5])
}

/// The bytes a Python call's first argument starts with (`"`, `'`, `{`) or its keyword's `=`.
const fn is_python_argument(byte: u8) -> bool {
    (byte == b'"') | (byte == b'\'') | (byte == b'{') | (byte == b'=')
}

/// One past the last byte of `bytes` that can start a Python call's first argument: a `(`
/// after it starts none, and prose is full of `(`.
fn python_arguments_end(bytes: &[u8]) -> usize {
    let blocks = bytes.rchunks(BLOCK).enumerate();
    for (index, block) in blocks {
        if block
            .iter()
            .fold(0u8, |hit, byte| hit | u8::from(is_python_argument(*byte)))
            != 0
        {
            let start = bytes.len().saturating_sub((index + 1) * BLOCK);
            let last = block.iter().rposition(|byte| is_python_argument(*byte));
            return last.map_or(0, |last| start + last + 1);
        }
    }
    0
}

/// The names the pass can find: those made of word bytes only, shorter than 128 (a name with
/// another byte is searched for on its own by the caller).
pub(super) struct Names<'a> {
    /// Sorted by the length of their names.
    tools: Vec<&'a ToolSpec>,
    /// Bit `n`: some name is `n` bytes long.
    lengths: u128,
}

impl<'a> Names<'a> {
    /// The tools whose names the pass can find, and the others.
    pub(super) fn split(tools: &'a [ToolSpec]) -> (Names<'a>, Vec<&'a ToolSpec>) {
        let (mut plain, other): (Vec<&ToolSpec>, Vec<&ToolSpec>) = tools.iter().partition(|tool| {
            let name = tool.name();
            !name.is_empty() && name.len() < 128 && name.bytes().all(is_word_byte)
        });
        plain.sort_by_key(|tool| tool.name().len());
        let lengths = plain
            .iter()
            .fold(0u128, |lengths, tool| lengths | 1 << tool.name().len());
        (
            Names {
                tools: plain,
                lengths,
            },
            other,
        )
    }

    /// Whether `found` holds for a tool at some place where its name stands in `content` as a
    /// whole word with a trigger close enough after it: every place where the decision can
    /// hold (`found` decides the rest).
    pub(super) fn any_place(
        &self,
        content: &str,
        mut found: impl FnMut(&ToolSpec, usize) -> bool,
    ) -> bool {
        if self.tools.is_empty() {
            return false;
        }
        let bytes = content.as_bytes();
        let python_end = python_arguments_end(bytes);
        // Words ending before `checked` have been looked at.
        let mut checked = 0;
        for (index, block) in bytes.chunks(BLOCK).enumerate() {
            let paren = index * BLOCK < python_end;
            if block
                .iter()
                .fold(0u8, |hit, byte| hit | u8::from(is_trigger(*byte, paren)))
                == 0
            {
                continue;
            }
            for (offset, byte) in block.iter().enumerate() {
                if !is_trigger(*byte, paren) {
                    continue;
                }
                let at = index * BLOCK + offset;
                let hit = match byte {
                    b'(' => self.word_ending_at(bytes, at, &mut found),
                    b'{' => {
                        let run = bytes[..at]
                            .iter()
                            .rposition(|byte| !matches!(byte, b' ' | b':'))
                            .map_or(0, |last| last + 1);
                        self.word_ending_at(bytes, run, &mut found)
                    }
                    // `"`, `<`, `=`, `:`: a key's, for a name ending up to the reach before it
                    // (and `"` right after a name).
                    _ => {
                        let from = checked.max((at + 1).saturating_sub(KEY_REACH));
                        checked = at + 1;
                        self.words_ending_within(bytes, from, at, &mut found)
                    }
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the word ending at `end` (if any) is a name for which `found` holds.
    fn word_ending_at(
        &self,
        bytes: &[u8],
        end: usize,
        found: &mut impl FnMut(&ToolSpec, usize) -> bool,
    ) -> bool {
        let start = word_start(bytes, end);
        start < end && self.is_name_found(bytes, start, end, found)
    }

    /// Whether a word ending in `from..=to` (`bytes[to]` is no word byte) is a name for which
    /// `found` holds.
    fn words_ending_within(
        &self,
        bytes: &[u8],
        from: usize,
        to: usize,
        found: &mut impl FnMut(&ToolSpec, usize) -> bool,
    ) -> bool {
        let mut at = word_start(bytes, from);
        while at < to {
            if !is_word_byte(bytes[at]) {
                at += 1;
                continue;
            }
            let start = at;
            while is_word_byte(bytes[at]) {
                at += 1;
            }
            if at >= from && self.is_name_found(bytes, start, at, found) {
                return true;
            }
        }
        false
    }

    /// Whether the whole word `bytes[start..end]` is a name for which `found` holds there.
    fn is_name_found(
        &self,
        bytes: &[u8],
        start: usize,
        end: usize,
        found: &mut impl FnMut(&ToolSpec, usize) -> bool,
    ) -> bool {
        let length = end - start;
        if length >= 128 || self.lengths >> length & 1 == 0 {
            return false;
        }
        let first = self
            .tools
            .partition_point(|tool| tool.name().len() < length);
        self.tools[first..]
            .iter()
            .take_while(|tool| tool.name().len() == length)
            .any(|tool| tool.name().as_bytes() == &bytes[start..end] && found(tool, start))
    }
}

/// Where the word that ends at `end` starts (`end` itself when no word byte comes before it).
fn word_start(bytes: &[u8], end: usize) -> usize {
    bytes[..end]
        .iter()
        .rposition(|byte| !is_word_byte(*byte))
        .map_or(0, |last| last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_bytes_are_an_identifiers_and_only_those() {
        let words: Vec<u8> = (0..=255).filter(|byte| is_word_byte(*byte)).collect();
        let expected: Vec<u8> = (b'0'..=b'9')
            .chain(b'A'..=b'Z')
            .chain([b'_'])
            .chain(b'a'..=b'z')
            .collect();
        assert_eq!(words, expected);
    }
}
