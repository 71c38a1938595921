//! `write_file`: create an editable file, or replace its whole text.

use std::fs;

use serde_json::{json, Map, Value};

use super::arguments::text_argument;
use super::{failure, ToolContext, ToolError};
use crate::access::{self, Granted, Operation};

/// A file bigger than this is refused: no repair needs it, and it would bloat the record.
pub(super) const WRITE_FILE_CAP_BYTES: usize = 256 * 1024;

pub(super) fn write_file(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let path = text_argument(arguments, "path")?;
    let text = text_argument(arguments, "text")?;
    let Granted {
        relative,
        real: target,
        exists,
    } = access::grant(context.root, context.task, path, Operation::Write).map_err(failure)?;
    if text.len() > WRITE_FILE_CAP_BYTES {
        return Err(failure(format!(
            "the text is {} bytes, over the {WRITE_FILE_CAP_BYTES}-byte limit of write_file",
            text.len()
        )));
    }
    if target.is_dir() {
        return Err(failure(format!(
            "`{relative}` is a folder; write_file writes a file, so name a file inside it"
        )));
    }
    if let Ok(meta) = fs::metadata(&target) {
        if !meta.is_file() {
            return Err(failure(format!(
                "`{relative}` is not a regular file (a pipe, socket or device); it cannot be written"
            )));
        }
    }
    // The folders still missing are below a real folder of the copy, so they stay inside it.
    if let Some(folder) = target.parent().filter(|_| !exists) {
        fs::create_dir_all(folder).map_err(|err| {
            failure(format!(
                "the folder of `{relative}` cannot be created: {err}"
            ))
        })?;
    }
    fs::write(&target, text)
        .map_err(|err| failure(format!("`{relative}` cannot be written: {err}")))?;
    Ok(json!({"path": relative, "bytes": text.len(), "created": !exists}))
}
