//! `list_files`: the readable files of the copy, optionally narrowed by a glob, capped.

use serde_json::{json, Map, Value};

use super::table::LIST_FILES_CAP;
use super::{optional_text, readable_files, ToolContext, ToolError};

pub fn list_files(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let mut listed = readable_files(context, optional_text(arguments, "pattern")?)?;
    let total = listed.len();
    listed.truncate(LIST_FILES_CAP);
    Ok(json!({"files": listed, "total": total, "truncated": total > LIST_FILES_CAP}))
}
