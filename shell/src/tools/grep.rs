//! `grep`: a regular expression over the readable files, as `file:line: text` lines, capped.
//! Rust's regex engine runs in linear time, so no pattern the model writes can hang mend.

use std::fs;

use regex::RegexBuilder;
use serde_json::{json, Map, Value};

use super::arguments::{optional_text, text_argument};
use super::table::GREP_MATCH_CAP;
use super::{failure, ToolContext, ToolError};
use crate::access::{self, Operation};
use crate::workspace::changes::READ_FILE_CAP_BYTES;

/// A matched line longer than this is cut: minified files would flood the context.
const LINE_CHARS: usize = 200;
/// The compiled pattern's size limit; a pathological pattern is refused, not run.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

pub(super) fn grep(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let pattern = text_argument(arguments, "pattern")?;
    let narrow = optional_text(arguments, "path")?;
    let regex = RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|err| {
            failure(format!(
                "`{pattern}` is not a valid regular expression: {err}"
            ))
        })?;
    let searched = access::readable_files(context.task, context.root, narrow).map_err(failure)?;
    let mut matches = Vec::new();
    let mut truncated = false;
    'files: for file in &searched {
        // Links out of the copy, big files and binary files are skipped, not reported.
        let Ok(access::Granted { real, .. }) =
            access::grant(context.root, context.task, file, Operation::Read)
        else {
            continue;
        };
        if fs::metadata(&real).map_or(true, |meta| meta.len() > READ_FILE_CAP_BYTES) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&real) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if matches.len() == GREP_MATCH_CAP {
                    truncated = true;
                    break 'files;
                }
                let shown: String = line.chars().take(LINE_CHARS).collect();
                matches.push(format!("{file}:{}: {shown}", number + 1));
            }
        }
    }
    Ok(json!({"matches": matches.join("\n"), "count": matches.len(), "truncated": truncated}))
}
