//! `list_files`: the readable files of the copy, optionally narrowed by a glob, capped.

use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use super::table::LIST_FILES_CAP;
use super::{optional_text, readable_files, ToolContext};

pub fn list_files(context: &ToolContext, arguments: &Map<String, Value>) -> ToolOutcome {
    let listed =
        optional_text(arguments, "pattern").and_then(|pattern| readable_files(context, pattern));
    let mut listed = match listed {
        Ok(listed) => listed,
        Err(outcome) => return outcome,
    };
    let total = listed.len();
    listed.truncate(LIST_FILES_CAP);
    ToolOutcome::Success {
        value: json!({"files": listed, "total": total, "truncated": total > LIST_FILES_CAP}),
    }
}
