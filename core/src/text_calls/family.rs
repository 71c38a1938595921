//! What every reader of written calls is: the shape the table in `scan` holds, what a reader
//! returns, and the one character rule they share. Below the readers, so that the table above
//! them and the readers beside each other import only downwards.

use crate::prelude::*;

use super::Found;
use crate::schema::ToolSpec;

/// What a reader returns: the calls in order, and the text around them.
pub(super) type Read = Option<(Vec<Found>, String)>;

/// One family of written calls.
pub(super) struct Family {
    /// What users and the run's first line call it.
    pub name: &'static str,
    /// Any of these in a text means the family may have written it.
    pub signs: &'static [&'static str],
    /// Whether one of `signs` alone marks an attempted call. Not for a sign that opens text of
    /// any kind (a code fence): there the general rule decides, an offered tool named with its
    /// arguments.
    pub signs_mark_calls: bool,
    /// Reads every call of the family in the text.
    pub read: fn(&str, &[ToolSpec]) -> Read,
}

/// The characters of a tool's name (`[a-zA-Z0-9_.-]`): a name with anything else is prose.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Every `OPEN…CLOSE` block of `content`, each read by `body` (its inner text and its whole
/// text); the text around them is what is left. An open tag without its close, or a block
/// `body` refuses or finds empty, makes the whole text no call.
pub(super) fn blocks(
    content: &str,
    open: &str,
    close: &str,
    mut body: impl FnMut(&str, &str) -> Option<Vec<Found>>,
) -> Read {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(start) = content[at..].find(open) {
        let start = at + start;
        rest.push_str(&content[at..start]);
        let inner = start + open.len();
        let end = inner + content[inner..].find(close)?;
        at = end + close.len();
        let calls = body(&content[inner..end], &content[start..at])?;
        if calls.is_empty() {
            return None;
        }
        found.extend(calls);
    }
    rest.push_str(&content[at..]);
    Some((found, rest))
}
