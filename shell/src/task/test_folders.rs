//! The folders the test files live in, read off the task's `test.files` globs: each glob's
//! folder (`tests/test_*.py`: `tests/`) with all it holds. A glob that names no folder of its
//! own (`**/test_*.py`, `test_app.py`) names none, and neither does a plain path (one file, not
//! a folder of tests). What is not code in them is data the tests read (`access::test_data`).

use crate::task::paths::PathSet;

/// The folders of the test files, each with all it holds, as one set; `None` when no glob names
/// a folder of its own.
pub(crate) fn test_folders(test_files: &[String]) -> Option<PathSet> {
    let mut folders: Vec<String> = test_files
        .iter()
        .filter_map(|glob| folder_of(glob))
        .collect();
    folders.sort();
    folders.dedup();
    if folders.is_empty() {
        return None;
    }
    // Each folder is a prefix of a glob that compiled, followed by `/**`, which is a glob too.
    PathSet::new(folders).ok()
}

/// `tests/unit/test_*.py` → `tests/unit/**`; `tests/**/test_*.py` → `tests/**`; `None` for a
/// glob with no folder, a folder that is all wildcards (it would name the whole repository), or
/// a plain path.
fn folder_of(glob: &str) -> Option<String> {
    let (folder, file) = glob.rsplit_once('/')?;
    if !file.contains(['*', '?', '[', '{']) {
        return None;
    }
    let mut parts: Vec<&str> = folder.split('/').collect();
    while parts.last() == Some(&"**") {
        parts.pop();
    }
    let named = parts
        .iter()
        .any(|part| !part.is_empty() && !part.chars().all(|c| matches!(c, '*' | '?')));
    named.then(|| format!("{}/**", parts.join("/")))
}
