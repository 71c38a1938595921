//! The tree the final independent run happens in: a fresh copy of the original with exactly the
//! change the tools made, never the loop's own copy. There the loop's `run_tests` ran the code
//! under test, which could write anything the copy holds (a `conftest.py`, a `.pth`, a cache, a
//! generated module); a fresh tree holds none of it, and the task's test files and test
//! configuration are the original's whatever happened in the loop.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;

use camino::Utf8Path;

use crate::error::MendError;
use crate::task::Task;
use crate::workspace::changes::file_digests;
use crate::workspace::Workspace;

/// Which changes of the loop's copy the final tree carries.
pub enum Carry<'a> {
    /// Only the files the editing tools wrote (`write_file`, `replace_text`).
    Written(&'a BTreeSet<String>),
    /// Every editable file that changed: the task offers the `shell` tool, whose commands are the
    /// model's own edits as much as the editing tools' are.
    EveryEditable,
}

pub struct FinalTree {
    pub workspace: Workspace,
    /// The files of the change, sorted: what the patch holds.
    pub carried: Vec<String>,
    /// Files that changed in the loop's copy but are not the tools' change (written while the
    /// tests or the code under test ran), sorted: listed in the record, ignored by the verdict.
    pub written_by_tests: Vec<String>,
}

/// A fresh copy of `original` with the change `carry` names taken from `loop_root`.
pub fn final_tree(
    original: &Utf8Path,
    loop_root: &Utf8Path,
    task: &Task,
    carry: Carry,
) -> Result<FinalTree, MendError> {
    let changed_editable = changed(original, loop_root, &task.editable)?;
    let changed_tests = changed(original, loop_root, &task.test.files)?;
    let (carried, mut written_by_tests): (Vec<String>, Vec<String>) =
        changed_editable.into_iter().partition(|path| {
            !task.test.files.contains(path)
                && match &carry {
                    Carry::Written(written) => written.contains(path),
                    Carry::EveryEditable => true,
                }
        });
    written_by_tests.extend(changed_tests);
    written_by_tests.sort();
    written_by_tests.dedup();
    let workspace = Workspace::copy_of(original, &task.exclude)?;
    for path in &carried {
        carry_file(loop_root, workspace.root(), path).map_err(|err| {
            MendError::harness(format!(
                "cannot carry `{path}` into the tree of the final tests: {err}"
            ))
        })?;
    }
    Ok(FinalTree {
        workspace,
        carried,
        written_by_tests,
    })
}

/// The files of `set` that differ between the two trees, or are in only one, sorted.
fn changed(
    original: &Utf8Path,
    copy: &Utf8Path,
    set: &crate::task::PathSet,
) -> Result<Vec<String>, MendError> {
    let before: BTreeMap<String, String> = file_digests(original, set)?;
    let after: BTreeMap<String, String> = file_digests(copy, set)?;
    let paths: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    Ok(paths
        .into_iter()
        .filter(|path| before.get(*path) != after.get(*path))
        .cloned()
        .collect())
}

/// Makes `relative` in `to` what it is in `from`: the same bytes and mode, or absent.
fn carry_file(from: &Utf8Path, to: &Utf8Path, relative: &str) -> io::Result<()> {
    let source = from.join(relative);
    let target = to.join(relative);
    match fs::symlink_metadata(&source) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => match fs::remove_file(&target) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        },
        Err(err) => Err(err),
        // The tools write files, never links: a link that changed was not their doing.
        Ok(meta) if meta.is_symlink() => Ok(()),
        Ok(_) => {
            if let Some(folder) = target.parent() {
                fs::create_dir_all(folder)?;
            }
            if fs::symlink_metadata(&target).is_ok_and(|meta| meta.is_symlink()) {
                fs::remove_file(&target)?;
            }
            fs::copy(&source, &target).map(|_| ())
        }
    }
}
