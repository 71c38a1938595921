//! `read_file`: the text of one readable file, whole or a range of its lines.

use std::fs;

use serde_json::{json, Map, Value};

use super::arguments::text_argument;
use super::text::text_file;
use super::{failure, ToolContext, ToolError};
use crate::access::{self, Granted, Operation};
use crate::workspace::changes::READ_FILE_CAP_BYTES;
/// A big file may still be read in parts, up to this size.
const READ_RANGE_FILE_CAP_BYTES: u64 = 16 * 1024 * 1024;

pub(super) fn read_file(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let path = text_argument(arguments, "path")?;
    let Granted { relative, real, .. } =
        access::grant(context.root, context.task, path, Operation::Read).map_err(failure)?;
    let range = line_range(arguments).map_err(failure)?;
    let cap = if range.is_some() {
        READ_RANGE_FILE_CAP_BYTES
    } else {
        READ_FILE_CAP_BYTES
    };
    match fs::metadata(&real) {
        Ok(meta) if meta.is_file() && meta.len() > cap => {
            let hint = if context.task.read_file_line_range && range.is_none() {
                "; read it in parts with start_line and end_line"
            } else {
                ""
            };
            return Err(failure(format!(
                "`{relative}` is {} bytes, over the {cap}-byte limit of read_file{hint}",
                meta.len()
            )));
        }
        Ok(_) => {}
        Err(err) => return Err(failure(format!("`{relative}` cannot be read: {err}"))),
    }
    let text = text_file(&relative, &real, cap)?;
    let Some((start, end)) = range else {
        return Ok(json!({"path": relative, "text": text}));
    };
    let total = text.lines().count();
    if start > total {
        return Err(failure(format!(
            "`{relative}` has {total} lines; start_line {start} is past the end"
        )));
    }
    let end = end.unwrap_or(total).min(total);
    let part: String = text
        .split_inclusive('\n')
        .skip(start - 1)
        .take(end + 1 - start)
        .collect();
    if part.len() as u64 > READ_FILE_CAP_BYTES {
        return Err(failure(format!(
            "lines {start} to {end} of `{relative}` are {} bytes, over the {READ_FILE_CAP_BYTES}-byte limit of read_file; ask for fewer lines",
            part.len()
        )));
    }
    Ok(json!({
        "path": relative,
        "start_line": start,
        "end_line": end,
        "total_lines": total,
        "text": part,
    }))
}

/// A line range the model asked for that is none; told to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadRange {
    /// `start_line` or `end_line` (the key) is not a number of 1 or more.
    NotALine(&'static str),
    /// The end comes before the start.
    Backwards { start: usize, end: usize },
}

impl std::fmt::Display for BadRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadRange::NotALine(key) => write!(f, "`{key}` must be a line number, 1 or more"),
            BadRange::Backwards { start, end } => {
                write!(f, "end_line {end} is before start_line {start}")
            }
        }
    }
}

/// `(start, end)` from the optional arguments, 1-based and inclusive; `None` for the whole file.
fn line_range(arguments: &Map<String, Value>) -> Result<Option<(usize, Option<usize>)>, BadRange> {
    let number = |key: &'static str| -> Result<Option<usize>, BadRange> {
        match arguments.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .filter(|line| *line >= 1)
                .and_then(|line| usize::try_from(line).ok())
                .map(Some)
                .ok_or(BadRange::NotALine(key)),
        }
    };
    match (number("start_line")?, number("end_line")?) {
        (None, None) => Ok(None),
        (start, Some(end)) if start.unwrap_or(1) > end => Err(BadRange::Backwards {
            start: start.unwrap_or(1),
            end,
        }),
        (start, end) => Ok(Some((start.unwrap_or(1), end))),
    }
}
