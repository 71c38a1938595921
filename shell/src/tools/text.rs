//! The text of a file a tool opens, or what the file is instead.

use camino::Utf8Path;

use super::{failure, ToolError};

/// The text of a file a tool opens (`real`, already confined to the copy), or a refusal that
/// says what the file is instead: a folder, a binary file, a file over `cap`, one that cannot be
/// read. Never opens a FIFO or a device, which could block forever.
pub(super) fn text_file(relative: &str, real: &Utf8Path, cap: u64) -> Result<String, ToolError> {
    let meta = std::fs::metadata(real)
        .map_err(|err| failure(format!("`{relative}` cannot be read: {err}")))?;
    if meta.is_dir() {
        return Err(failure(format!(
            "`{relative}` is a folder, not a file; name a file inside it (list_files shows them)"
        )));
    }
    if !meta.is_file() {
        return Err(failure(format!(
            "`{relative}` is not a regular file (a pipe, socket or device); it cannot be read"
        )));
    }
    if meta.len() > cap {
        return Err(failure(format!(
            "`{relative}` is {} bytes, over the {cap}-byte limit of this tool",
            meta.len()
        )));
    }
    let bytes = std::fs::read(real)
        .map_err(|err| failure(format!("`{relative}` cannot be read: {err}")))?;
    if crate::workspace::changes::is_binary(&bytes) {
        return Err(binary(relative));
    }
    String::from_utf8(bytes).map_err(|_| binary(relative))
}

fn binary(relative: &str) -> ToolError {
    failure(format!(
        "`{relative}` is a binary file (not UTF-8 text); the tools read and edit text files only, so leave it as it is"
    ))
}
