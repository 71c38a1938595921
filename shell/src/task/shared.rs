//! The original's folders a task's copy shares rather than copies (a venv, `node_modules`, what
//! `copy.share` names): found by the same walk the copy makes, so the sandbox can show each one
//! again read-only (the copy makes the links: `workspace::share`).

use std::io;

use camino::{Utf8Path, Utf8PathBuf};

use super::copy::Exclusion;

/// The original's folders that a copy made with `exclude` shares, as absolute paths, sorted:
/// the walk [`crate::workspace::Workspace::copy_of`] makes, without copying anything.
pub(crate) fn shared_folders(
    original: &Utf8Path,
    exclude: &Exclusion,
) -> io::Result<Vec<Utf8PathBuf>> {
    let original = original.canonicalize_utf8()?;
    let mut shared = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(folder) = pending.pop() {
        let entries = match original.join(&folder).read_dir_utf8() {
            Ok(entries) => entries,
            // The copy has such a folder empty, with nothing shared inside it.
            Err(err) if !folder.is_empty() && err.kind() == io::ErrorKind::PermissionDenied => {
                continue
            }
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let relative = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            if exclude.shares_entry(&relative) {
                shared.push(original.join(&relative));
            } else if !exclude.excludes_entry(&relative) {
                pending.push(relative);
            }
        }
    }
    shared.sort();
    Ok(shared)
}
