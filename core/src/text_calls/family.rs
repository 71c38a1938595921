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
    /// Any of these in a text means the family may have written it.
    pub signs: &'static [&'static str],
    /// Reads every call of the family in the text.
    pub read: fn(&str, &[ToolSpec]) -> Read,
}

/// The characters of a tool's name (`[a-zA-Z0-9_.-]`): a name with anything else is prose.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}
