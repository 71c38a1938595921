//! The tree the final independent run happens in: a fresh copy of the original with exactly the
//! change the tools made, never the loop's own copy. There the loop's `run_tests` ran the code
//! under test, which could write anything the copy holds (a `conftest.py`, a `.pth`, a cache, a
//! generated module); a fresh tree holds none of it, and the task's test files and test
//! configuration are the original's whatever happened in the loop.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::task::paths::files_under;
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
    /// Files anywhere in the loop's copy that changed but are not the tools' change (written
    /// while the tests or the code under test ran), sorted: listed in the record, ignored by the
    /// verdict.
    pub written_by_tests: Vec<String>,
}

/// A fresh copy of `original` with the change `carry` names taken from `loop_root`.
pub fn final_tree(
    original: &Utf8Path,
    loop_root: &Utf8Path,
    task: &Task,
    carry: Carry,
) -> Result<FinalTree, MendError> {
    let carried: Vec<String> = changed(original, loop_root, &task.editable)?
        .into_iter()
        .filter(|path| {
            !task.test.files.contains(path)
                && match &carry {
                    Carry::Written(written) => written.contains(path),
                    Carry::EveryEditable => true,
                }
        })
        .collect();
    let by_tools = |path: &String| match &carry {
        Carry::Written(written) => written.contains(path),
        Carry::EveryEditable => carried.binary_search(path).is_ok(),
    };
    let written_by_tests: Vec<String> = touched(original, loop_root, task)?
        .into_iter()
        .filter(|path| !by_tools(path))
        .collect();
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

/// Every file of the copy that is new, gone, or of another size or time than in the original,
/// sorted: the copy keeps the original's times, so a file nothing wrote looks the same.
fn touched(original: &Utf8Path, copy: &Utf8Path, task: &Task) -> Result<Vec<String>, MendError> {
    let listed = |root: &Utf8Path| {
        files_under(root, &task.exclude)
            .map_err(|err| MendError::harness(format!("cannot list {root}: {err}")))
    };
    let stamp = |path: Utf8PathBuf| {
        fs::symlink_metadata(path)
            .ok()
            .map(|meta| (meta.len(), meta.modified().ok()))
    };
    let before: BTreeSet<String> = listed(original)?.into_iter().collect();
    let after: BTreeSet<String> = listed(copy)?.into_iter().collect();
    Ok(before
        .union(&after)
        .filter(|path| stamp(original.join(path)) != stamp(copy.join(path)))
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fs;

    use camino::Utf8Path;

    use super::{final_tree, Carry};
    use crate::task::Task;
    use crate::test_support::project;
    use crate::workspace::Workspace;

    const TASK: &str = r#"
[paths]
readable = ["**"]
editable = ["pkg/**/*.py"]
[test]
command = ["python", "-m", "pytest", "-q"]
files = ["tests/test_*.py"]
timeout_seconds = 10
[tools]
enabled = ["read_file", "write_file", "run_tests"]
"#;

    /// Every file under `root` with its text, sorted.
    fn tree(root: &Utf8Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> =
            crate::task::paths::files_under(root, &crate::task::copy::Exclusion::none())
                .unwrap()
                .into_iter()
                .map(|file| {
                    let text = fs::read_to_string(root.join(&file)).unwrap();
                    (file, text)
                })
                .collect();
        files.sort();
        files
    }

    #[test]
    fn the_final_tree_is_the_original_plus_what_the_tools_wrote_and_nothing_the_tests_did() {
        let (_dir, original) = project(&[
            ("pkg/core.py", "bug\n"),
            ("pkg/util.py", "util\n"),
            ("tests/test_core.py", "test\n"),
        ]);
        let task = Task::parse(&original.join("mend.toml"), TASK).unwrap();
        let copy = Workspace::copy_of(&original, &task.exclude).unwrap();
        let loop_root = copy.root();
        // The tools' repair, and what the code under test wrote while the loop's tests ran.
        fs::write(loop_root.join("pkg/core.py"), "fixed\n").unwrap();
        fs::write(loop_root.join("pkg/util.py"), "generated by the tests\n").unwrap();
        fs::write(loop_root.join("conftest.py"), "planted\n").unwrap();
        fs::write(loop_root.join("tests/test_core.py"), "rewritten\n").unwrap();
        let written = BTreeSet::from(["pkg/core.py".to_owned()]);

        let fresh = final_tree(&original, loop_root, &task, Carry::Written(&written)).unwrap();
        assert_eq!(
            (
                tree(fresh.workspace.root()),
                fresh.carried,
                fresh.written_by_tests
            ),
            (
                vec![
                    ("pkg/core.py".to_owned(), "fixed\n".to_owned()),
                    ("pkg/util.py".to_owned(), "util\n".to_owned()),
                    ("tests/test_core.py".to_owned(), "test\n".to_owned()),
                ],
                vec!["pkg/core.py".to_owned()],
                vec![
                    "conftest.py".to_owned(),
                    "pkg/util.py".to_owned(),
                    "tests/test_core.py".to_owned()
                ],
            )
        );
        // With the shell tool, every changed editable file is the model's change, still never
        // a test file or a file outside the editable set.
        let with_shell = final_tree(&original, loop_root, &task, Carry::EveryEditable).unwrap();
        assert_eq!(
            (with_shell.carried, with_shell.written_by_tests),
            (
                vec!["pkg/core.py".to_owned(), "pkg/util.py".to_owned()],
                vec!["conftest.py".to_owned(), "tests/test_core.py".to_owned()]
            )
        );
    }
}
