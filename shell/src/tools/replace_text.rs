//! `replace_text`: one exact, unambiguous edit of an editable file.

use std::fs;

use serde_json::{json, Map, Value};

use super::arguments::{optional_text, text_argument};
use super::text::text_file;
use super::{failure, ToolContext, ToolError};
use crate::access::{self, Granted, Operation};

/// The biggest file an edit reads whole and writes back.
const REPLACE_TEXT_CAP_BYTES: u64 = 16 * 1024 * 1024;

pub fn replace_text(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let old = text_argument(arguments, "old")?;
    let new = text_argument(arguments, "new")?;
    // With one editable file the schema offers no `path`: that file is meant.
    let path = match optional_text(arguments, "path")? {
        Some(path) => path,
        None => match context.task.editable.single_file() {
            Some(only) => only,
            None => {
                return Err(failure(format!(
                    "name the file to edit in `path`: {}",
                    context.task.editable.listed("or")
                )))
            }
        },
    };
    let Granted {
        relative: file,
        real,
        exists,
    } = access::grant(context.root, context.task, path, Operation::Write).map_err(failure)?;
    if !exists {
        return Err(failure(format!("`{file}` does not exist")));
    }
    if old.is_empty() {
        return Err(failure(format!(
            "`old` is empty; copy the exact text to replace from {file} (read it again with read_file)"
        )));
    }
    let text = text_file(&file, &real, REPLACE_TEXT_CAP_BYTES)?;
    let positions = occurrences(&text, old);
    let [at] = positions.as_slice() else {
        return Err(failure(format!(
            "`old` occurs {} times in {file}, it must occur exactly once; read the file again with read_file and copy the exact text{}",
            positions.len(),
            if positions.is_empty() { "" } else { ", with enough surrounding lines to be unique" }
        )));
    };
    let edited = format!("{}{new}{}", &text[..*at], &text[at + old.len()..]);
    fs::write(&real, edited).map_err(|err| failure(format!("{file} cannot be written: {err}")))?;
    Ok(json!({"path": file, "replaced": 1}))
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
