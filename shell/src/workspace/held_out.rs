//! The held-out tests put back for the final run: the files `test.held_out` names (the copy
//! of the final tree already holds them: it is made without holding them out) and the test
//! patch (`test.patch`), applied after the change. They are digested as they are put there, so
//! that a final run whose code under test rewrote one is caught like one that rewrote a
//! protected test file.

use std::collections::BTreeMap;

use camino::Utf8Path;

use crate::atomic::sha256_of_file;
use crate::error::MendError;
use crate::patch::TreePatchError;
use crate::task::paths::files_under;
use crate::task::Task;

/// What was put back into a final tree.
pub(crate) struct HeldOutTests {
    /// Every file held out of the attempt and put back (or removed) for the final run, sorted.
    pub files: Vec<String>,
    /// Why the test patch could not be applied after the change: the final run cannot
    /// happen, and the verdict is a FAIL that says so.
    pub refused: Option<PatchRefused>,
    /// Each file's digest as it was put there (`None`: absent): the final run must leave them
    /// so ([`crate::verdict::trust::tripwire`]).
    pub digests: BTreeMap<String, Option<String>>,
}

/// The task's test patch (`test.patch`, by its path) did not apply after the change: why.
pub(crate) struct PatchRefused {
    pub patch: String,
    pub problem: String,
}

/// The files of `original` that `test.held_out` names, sorted. Listed once, when a run is set
/// up: the original is never written, so every final tree of the run gets the same ones back.
pub(crate) fn held_out_files(original: &Utf8Path, task: &Task) -> Result<Vec<String>, MendError> {
    if task.exclude.held_out_patterns().is_empty() {
        return Ok(Vec::new());
    }
    Ok(files_under(original, &task.exclude.for_final_run())
        .map_err(|err| MendError::harness(format!("cannot list {original}: {err}")))?
        .into_iter()
        .filter(|path| task.exclude.holds_out(path))
        .collect())
}

/// Puts `task`'s held-out tests into the final tree at `root`, made with the change already in
/// it: the files `held_out` lists ([`held_out_files`]) are there already, and the test patch is
/// applied after the change.
pub(crate) fn put_back(
    root: &Utf8Path,
    held_out: &[String],
    task: &Task,
) -> Result<HeldOutTests, MendError> {
    let mut files = held_out.to_vec();
    let mut refused = None;
    if let Some(patch) = &task.test_patch {
        match crate::patch::apply_to_tree(root, &patch.text) {
            Ok(written) => files.extend(written),
            Err(TreePatchError::Io(message)) => return Err(MendError::harness(message)),
            Err(TreePatchError::DoesNotApply(problem)) => {
                refused = Some(PatchRefused {
                    patch: patch.path.to_string(),
                    problem,
                });
                files.extend(patch.files.iter().cloned());
            }
        }
    }
    files.sort();
    files.dedup();
    let digests = digests(root, &files);
    Ok(HeldOutTests {
        files,
        refused,
        digests,
    })
}

fn digests(root: &Utf8Path, files: &[String]) -> BTreeMap<String, Option<String>> {
    files
        .iter()
        .map(|file| (file.clone(), sha256_of_file(&root.join(file))))
        .collect()
}
