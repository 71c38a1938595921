//! `list_files`: the readable files of the copy, optionally narrowed by a glob, capped.

use serde_json::{json, Map, Value};

use super::arguments::optional_text;
use super::table::LIST_FILES_CAP;
use super::{failure, ToolContext, ToolError};
use crate::access;

pub(super) fn list_files(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let pattern = optional_text(arguments, "pattern")?;
    let mut listed =
        access::readable_files(context.task, context.root, pattern).map_err(failure)?;
    let total = listed.len();
    listed.truncate(LIST_FILES_CAP);
    Ok(json!({"files": listed, "total": total, "truncated": total > LIST_FILES_CAP}))
}
