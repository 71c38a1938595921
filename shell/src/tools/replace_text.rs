//! `replace_text`: one exact, unambiguous edit of an editable file.

use std::fs;

use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use super::{
    check_landing, editable_path, failure, optional_text, text_argument, text_file, ToolContext,
};
use crate::workspace::resolve_inside;

/// The biggest file an edit reads whole and writes back.
const REPLACE_TEXT_CAP_BYTES: u64 = 16 * 1024 * 1024;

pub fn replace_text(context: &ToolContext, arguments: &Map<String, Value>) -> ToolOutcome {
    let (old, new) = match (
        text_argument(arguments, "old"),
        text_argument(arguments, "new"),
    ) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(outcome), _) | (_, Err(outcome)) => return outcome,
    };
    // With one editable file the schema offers no `path`: that file is meant.
    let target = match optional_text(arguments, "path") {
        Ok(Some(path)) => editable_path(context, path),
        Ok(None) => match context.task.editable.single_file() {
            Some(only) => editable_path(context, only),
            None => Err(failure(format!(
                "name the file to edit in `path`: {}",
                context.task.editable.listed("or")
            ))),
        },
        Err(outcome) => Err(outcome),
    };
    let file = match target {
        Ok(file) => file,
        Err(outcome) => return outcome,
    };
    if old.is_empty() {
        return failure(format!(
            "`old` is empty; copy the exact text to replace from {file} (read it again with read_file)"
        ));
    }
    let real = match resolve_inside(context.root, &file) {
        Ok(real) => real,
        Err(message) => return failure(message),
    };
    if let Err(outcome) = check_landing(context, &file, &real) {
        return outcome;
    }
    let text = match text_file(&file, &real, REPLACE_TEXT_CAP_BYTES) {
        Ok(text) => text,
        Err(outcome) => return outcome,
    };
    let positions = occurrences(&text, old);
    let [at] = positions.as_slice() else {
        return failure(format!(
            "`old` occurs {} times in {file}, it must occur exactly once; read the file again with read_file and copy the exact text{}",
            positions.len(),
            if positions.is_empty() { "" } else { ", with enough surrounding lines to be unique" }
        ));
    };
    let edited = format!("{}{new}{}", &text[..*at], &text[at + old.len()..]);
    match fs::write(&real, edited) {
        Ok(()) => ToolOutcome::Success {
            value: json!({"path": file, "replaced": 1}),
        },
        Err(err) => failure(format!("{file} cannot be written: {err}")),
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
