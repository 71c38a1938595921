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
use crate::verdict::trust::untrusted::Untrusted;

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

    /// Why the run that just ended in the tree at `root` cannot be trusted for what it wrote
    /// ([`Tripwire::written`]); `None` when it wrote nothing the verdict rests on.
    pub(crate) fn untrusted(&self, root: &Utf8Path) -> Result<Option<Untrusted>, MendError> {
        let files = self.written(root)?;
        Ok((!files.is_empty()).then_some(Untrusted::VerdictFilesWritten { files }))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;

    use super::Tripwire;
    use crate::atomic::sha256_of_file;
    use crate::task::Task;
    use crate::test_support::{project, PYTHON_TASK as TASK};

    #[test]
    fn names_what_the_run_wrote_of_the_protected_files_and_the_held_out_tests_and_nothing_given() {
        let (_original_dir, original) = project(&[
            ("pkg/core.py", "bug\n"),
            ("tests/test_core.py", "test\n"),
            ("README.md", "words\n"),
        ]);
        let task = Task::parse(&original.join("mend.toml"), TASK).unwrap();
        let copy_dir = tempfile::tempdir().unwrap();
        let root = camino::Utf8Path::from_path(copy_dir.path())
            .unwrap()
            .join("copy");
        // The copy keeps the original's times, as the workspace's copies do.
        let copied = std::process::Command::new("cp")
            .args(["-a", original.as_str(), root.as_str()])
            .status()
            .unwrap();
        assert!(copied.success());
        // The tree as its tests start: the change carried (a test file among it, as a patch given
        // to `mend verify` may carry), the held-out tests put back.
        fs::write(root.join("pkg/core.py"), "the repair\n").unwrap();
        fs::write(root.join("tests/test_new.py"), "a new test\n").unwrap();
        fs::create_dir_all(root.join("tests/held")).unwrap();
        fs::write(root.join("tests/held/test_held.py"), "held\n").unwrap();
        fs::write(root.join("tests/held/test_kept.py"), "kept\n").unwrap();
        let held_out: BTreeMap<String, Option<String>> = [
            "tests/held/test_held.py",
            "tests/held/test_kept.py",
            "tests/held/test_gone.py",
        ]
        .into_iter()
        .map(|file| (file.to_owned(), sha256_of_file(&root.join(file))))
        .collect();
        let carried = vec!["pkg/core.py".to_owned(), "tests/test_new.py".to_owned()];
        let tripwire = Tripwire {
            original: &original,
            task: &task,
            carried: &carried,
            held_out: &held_out,
        };
        let before_the_run = tripwire.written(&root).unwrap();
        // What the run writes: test configuration, a test file, a held-out test, a file that
        // was absent, and files nothing rests on.
        fs::write(root.join("conftest.py"), "planted\n").unwrap();
        fs::write(root.join("tests/test_core.py"), "rewritten\n").unwrap();
        fs::write(root.join("tests/held/test_held.py"), "rewritten\n").unwrap();
        fs::write(root.join("tests/held/test_gone.py"), "appeared\n").unwrap();
        fs::write(root.join("README.md"), "other words\n").unwrap();
        fs::write(root.join("pkg/core.py"), "rewritten by the run\n").unwrap();
        let after_the_run = tripwire.written(&root).unwrap();
        assert_eq!(
            (before_the_run, after_the_run),
            (
                Vec::<String>::new(),
                vec![
                    "conftest.py (test configuration (pytest runs it while collecting the tests))"
                        .to_owned(),
                    "tests/test_core.py (one of the task's test files)".to_owned(),
                    "tests/held/test_gone.py (a held-out test)".to_owned(),
                    "tests/held/test_held.py (a held-out test)".to_owned(),
                ]
            )
        );
    }
}
