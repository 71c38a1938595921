//! `replace_text`: one unambiguous edit of an editable file. `old` is matched exactly first;
//! failing that, ignoring trailing whitespace, then ignoring a uniform shift of indentation
//! (`matching`), each rule only where it matches once. A miss shows the closest lines.

mod matching;
#[cfg(test)]
mod tests;

use std::fs;

use serde_json::{json, Map, Value};

use super::arguments::{optional_text, text_argument};
use super::text::text_file;
use super::{failure, ToolContext, ToolError};
use crate::access::{self, Granted, Operation};
use matching::{Miss, Rule};

/// The biggest file an edit reads whole and writes back.
const REPLACE_TEXT_CAP_BYTES: u64 = 16 * 1024 * 1024;

/// How many of the closest lines a miss shows.
const CLOSEST_LINES_SHOWN: usize = 30;

pub(super) fn replace_text(
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
    let edit =
        matching::find(&text, old, new).map_err(|miss| failure(explain(&miss, &file, &text)))?;
    fs::write(&real, edit.apply(&text))
        .map_err(|err| failure(format!("{file} cannot be written: {err}")))?;
    Ok(match edit.rule {
        // The result of an exact edit is what it always was: recorded runs replay unchanged.
        Rule::Exact => json!({"path": file, "replaced": 1}),
        rule => json!({
            "path": file,
            "replaced": 1,
            "matched": rule.describe(),
            "lines": format!("{}-{}", edit.lines.0, edit.lines.1),
        }),
    })
}

/// The message for the model: what did not land, and what to copy instead.
fn explain(miss: &Miss, file: &str, text: &str) -> String {
    let again = "read the file again with read_file and copy the exact text";
    match miss {
        Miss::Several { rule: Rule::Exact, count } => format!(
            "`old` occurs {count} times in {file}, it must occur exactly once; {again}, with enough surrounding lines to be unique"
        ),
        Miss::Several { rule, count } => format!(
            "`old` does not occur exactly in {file}, and {} it matches {count} places; {again}, with enough surrounding lines to be unique",
            rule.describe()
        ),
        Miss::CannotShift { lines: (first, last) } => format!(
            "`old` matches lines {first}-{last} of {file} only with less indentation, and `new` has lines too little indented to shift the same way; copy lines {first}-{last} exactly:\n{}",
            numbered(text, *first, *last)
        ),
        Miss::Nowhere { closest: Some((first, last)) } => format!(
            "`old` occurs 0 times in {file}, not even ignoring trailing whitespace or indentation; the closest lines are {first}-{last}:\n{}\ncopy the exact text from there (without the line numbers), or {again}",
            numbered(text, *first, *last)
        ),
        Miss::Nowhere { closest: None } => format!(
            "`old` occurs 0 times in {file}, it must occur exactly once; {again}"
        ),
    }
}

/// Lines `first..=last` (from 1), each after its number, at most [`CLOSEST_LINES_SHOWN`].
fn numbered(text: &str, first: usize, last: usize) -> String {
    let last = last.min(first + CLOSEST_LINES_SHOWN - 1);
    text.lines()
        .enumerate()
        .skip(first - 1)
        .take(last + 1 - first)
        .map(|(index, line)| format!("{:>5}| {line}", index + 1))
        .collect::<Vec<_>>()
        .join("\n")
}
