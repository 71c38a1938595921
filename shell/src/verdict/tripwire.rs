//! What the final run must leave as it found it. Its tree holds the files the verdict rests on:
//! the task's test files and test configuration, which are the original's, and the held-out
//! tests as they were put back. Code under test that wrote one of them while the tests ran may
//! have made its own result, so the run is untrusted whatever it reported.

use std::collections::BTreeMap;

use camino::Utf8Path;

use crate::access::named_if_protected;
use crate::atomic::sha256_of_file;
use crate::error::MendError;
use crate::task::paths::touched;
use crate::task::Task;

/// A final tree as it stood when its tests started.
pub(crate) struct Tripwire<'a> {
    /// The repository the tree was made from.
    pub original: &'a Utf8Path,
    pub task: &'a Task,
    /// The files of the change the tree was given, sorted: they differ from the original on
    /// purpose.
    pub carried: &'a [String],
    /// Each held-out test's digest as it was put back (`None`: absent).
    pub held_out: &'a BTreeMap<String, Option<String>>,
}

impl Tripwire<'_> {
    /// What the run that just ended in the tree at `root` wrote of what the verdict rests on,
    /// each file named with what it is: first the protected files that differ from the
    /// original, then the held-out tests that differ from how they were put back; empty when it
    /// wrote none of them.
    pub(crate) fn written(&self, root: &Utf8Path) -> Result<Vec<String>, MendError> {
        let held_out: Vec<String> = self
            .held_out
            .iter()
            .filter(|(file, put_back)| sha256_of_file(&root.join(file)) != **put_back)
            .map(|(file, _)| format!("{file} (a held-out test)"))
            .collect();
        // A protected file that differs from the original without having been given to the tree.
        let planted = |path: String| {
            let given =
                self.carried.binary_search(&path).is_ok() || self.held_out.contains_key(&path);
            if given {
                None
            } else {
                named_if_protected(self.task, &path)
            }
        };
        let mut written: Vec<String> = touched(self.original, root, &self.task.exclude)?
            .into_iter()
            .filter_map(planted)
            .collect();
        written.extend(held_out);
        Ok(written)
    }
}
