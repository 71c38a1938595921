//! `read_file`: the text of one allowlisted file.

use std::fs;

use camino::Utf8Path;
use mend_core::ToolOutcome;
use serde_json::{json, Map, Value};

use super::{failure, text_argument};
use crate::sample::READABLE_FILES;
use crate::workspace::{allowed_path, resolve_inside};

/// Files larger than this are refused rather than flooding the model's context.
pub const READ_FILE_CAP_BYTES: u64 = 256 * 1024;

pub fn read_file(root: &Utf8Path, arguments: &Map<String, Value>) -> ToolOutcome {
    let path = match text_argument(arguments, "path") {
        Ok(path) => path,
        Err(outcome) => return outcome,
    };
    let relative = match allowed_path(path, &READABLE_FILES) {
        Ok(relative) => relative,
        Err(refusal) => return failure(refusal.explain(path, &READABLE_FILES)),
    };
    let real = match resolve_inside(root, relative) {
        Ok(real) => real,
        Err(message) => return failure(message),
    };
    match fs::metadata(&real) {
        Ok(meta) if meta.len() > READ_FILE_CAP_BYTES => {
            return failure(format!(
                "`{relative}` is {} bytes, over the {READ_FILE_CAP_BYTES}-byte limit of read_file",
                meta.len()
            ));
        }
        Ok(_) => {}
        Err(err) => return failure(format!("`{relative}` cannot be read: {err}")),
    }
    match fs::read_to_string(&real) {
        Ok(text) => ToolOutcome::Success {
            value: json!({"path": relative, "text": text}),
        },
        Err(err) => failure(format!("`{relative}` cannot be read as UTF-8 text: {err}")),
    }
}
