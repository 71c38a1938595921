//! `replace_text`: one exact, unambiguous edit of the editable file.

use std::fs;

use camino::Utf8Path;
use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use super::{failure, text_argument};
use crate::sample::EDITABLE_FILE;
use crate::workspace::resolve_inside;

pub fn replace_text(root: &Utf8Path, arguments: &Map<String, Value>) -> ToolOutcome {
    let (old, new) = match (
        text_argument(arguments, "old"),
        text_argument(arguments, "new"),
    ) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(outcome), _) | (_, Err(outcome)) => return outcome,
    };
    if old.is_empty() {
        return failure(format!(
            "`old` is empty; copy the exact text to replace from {EDITABLE_FILE} (read it again with read_file)"
        ));
    }
    let real = match resolve_inside(root, EDITABLE_FILE) {
        Ok(real) => real,
        Err(message) => return failure(message),
    };
    let text = match fs::read_to_string(&real) {
        Ok(text) => text,
        Err(err) => return failure(format!("{EDITABLE_FILE} cannot be read: {err}")),
    };
    let positions = occurrences(&text, old);
    let [at] = positions.as_slice() else {
        return failure(format!(
            "`old` occurs {} times in {EDITABLE_FILE}, it must occur exactly once; read the file again with read_file and copy the exact text{}",
            positions.len(),
            if positions.is_empty() { "" } else { ", with enough surrounding lines to be unique" }
        ));
    };
    let edited = format!("{}{new}{}", &text[..*at], &text[at + old.len()..]);
    match fs::write(&real, edited) {
        Ok(()) => ToolOutcome::Success {
            value: json!({"path": EDITABLE_FILE, "replaced": 1}),
        },
        Err(err) => failure(format!("{EDITABLE_FILE} cannot be written: {err}")),
    }
}

/// Every byte offset where `needle` starts, overlapping matches included: `aa` occurs twice in
/// `aaa`, so replacing it would be ambiguous.
fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    haystack
        .char_indices()
        .map(|(at, _)| at)
        .filter(|at| haystack[*at..].starts_with(needle))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::occurrences;

    #[test]
    fn overlapping_occurrences_count() {
        assert_eq!(occurrences("aaa", "aa"), vec![0, 1]);
        assert_eq!(occurrences("x = é; y", "é"), vec![4]);
        assert_eq!(occurrences("abc", "d"), Vec::<usize>::new());
    }
}
