//! `list_files`: the readable files of the copy, optionally narrowed by a glob, capped.

use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use super::table::LIST_FILES_CAP;
use super::{failure, optional_text, ToolContext};
use crate::task::paths::{files_under, PathSet};

pub fn list_files(context: &ToolContext, arguments: &Map<String, Value>) -> ToolOutcome {
    let narrow = match optional_text(arguments, "pattern") {
        Ok(pattern) => pattern,
        Err(outcome) => return outcome,
    };
    let narrow = match narrow.map(|pattern| PathSet::new(vec![pattern.to_owned()])) {
        None => None,
        Some(Ok(set)) => Some(set),
        Some(Err((_, message))) => return failure(message),
    };
    let files = match files_under(context.root) {
        Ok(files) => files,
        Err(err) => return failure(format!("the repository cannot be listed: {err}")),
    };
    let mut listed: Vec<String> = files
        .into_iter()
        .filter(|file| context.task.readable.contains(file))
        .filter(|file| narrow.as_ref().is_none_or(|set| set.contains(file)))
        .collect();
    let total = listed.len();
    listed.truncate(LIST_FILES_CAP);
    ToolOutcome::Success {
        value: json!({"files": listed, "total": total, "truncated": total > LIST_FILES_CAP}),
    }
}
