//! `write_file`: create an editable file, or replace its whole text.

use std::fs;

use serde_json::{json, Map, Value};

use super::{check_landing, editable_path, failure, text_argument, ToolContext, ToolError};
use crate::workspace::resolve_inside;

/// A file bigger than this is refused: no repair needs it, and it would bloat the record.
pub const WRITE_FILE_CAP_BYTES: usize = 256 * 1024;

pub fn write_file(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let path = text_argument(arguments, "path")?;
    let text = text_argument(arguments, "text")?;
    let relative = editable_path(context, path)?;
    if text.len() > WRITE_FILE_CAP_BYTES {
        return Err(failure(format!(
            "the text is {} bytes, over the {WRITE_FILE_CAP_BYTES}-byte limit of write_file",
            text.len()
        )));
    }
    // The folder must exist (or be created) inside the copy before the link check can see it.
    let target = context.root.join(&relative);
    if let Some(folder) = target.parent() {
        let parent_relative = folder
            .strip_prefix(context.root)
            .map(|folder| folder.as_str())
            .unwrap_or("");
        if !parent_relative.is_empty() {
            ensure_folder(context, parent_relative).map_err(failure)?;
        }
    }
    let existed = target.symlink_metadata().is_ok();
    let real = if existed {
        resolve_inside(context.root, &relative)
    } else {
        // A new file lands in its folder, which may itself be reached through a link.
        match (target.parent(), target.file_name()) {
            (Some(folder), Some(name)) => folder
                .canonicalize_utf8()
                .map(|folder| folder.join(name))
                .map_err(|err| format!("`{relative}` cannot be created: {err}")),
            _ => Err(format!("`{relative}` is not a file path")),
        }
    };
    let target = real.map_err(failure)?;
    check_landing(context, &relative, &target)?;
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
    fs::write(&target, text)
        .map_err(|err| failure(format!("`{relative}` cannot be written: {err}")))?;
    Ok(json!({"path": relative, "bytes": text.len(), "created": !existed}))
}

/// Creates the folders of `relative` one by one, refusing any that is a link out of the copy.
fn ensure_folder(context: &ToolContext, relative: &str) -> Result<(), String> {
    let mut walked = String::new();
    for part in relative.split('/') {
        if !walked.is_empty() {
            walked.push('/');
        }
        walked.push_str(part);
        let folder = context.root.join(&walked);
        if folder.symlink_metadata().is_err() {
            fs::create_dir(&folder)
                .map_err(|err| format!("the folder `{walked}` cannot be created: {err}"))?;
        }
        resolve_inside(context.root, &walked)?;
    }
    Ok(())
}
