//! The tree the final independent run happens in: the original with exactly the change the
//! tools made, never the loop's copy as the loop left it. There the loop's `run_tests` ran the
//! code under test, which could write anything the copy holds (a `conftest.py`, a `.pth`, a
//! cache, a generated module); the final tree holds none of it, and the task's test files and
//! test configuration are the original's whatever happened in the loop. When the loop is over,
//! its copy is put back ([`Workspace::reset`]: every entry changed since it was made is copied
//! again from the original, every entry added removed) rather than copied a second time; a
//! loop that goes on (a chat's `/verify`) keeps its copy and the final run gets a fresh one.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use camino::Utf8Path;

use crate::access::protection;
use crate::error::MendError;
use crate::task::paths::touched;
use crate::task::Task;
use crate::workspace::changes::file_digests;
use crate::workspace::Workspace;

/// The loop's copy, as the final tree is made from it.
pub enum LoopCopy<'a> {
    /// The loop is over: its copy is put back to the original and becomes the final tree.
    Over(Workspace),
    /// The loop goes on in this copy after the final tests: they get a fresh copy.
    GoesOn(&'a Utf8Path),
}

impl LoopCopy<'_> {
    fn root(&self) -> &Utf8Path {
        match self {
            LoopCopy::Over(workspace) => workspace.root(),
            LoopCopy::GoesOn(root) => root,
        }
    }
}

/// Which changes of the loop's copy the final tree carries.
pub(crate) enum Carry<'a> {
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
    /// How long putting the loop's copy back (or making a fresh one) took.
    pub copy_time: Duration,
}

/// `original` with the change `carry` names taken from the loop's copy.
pub(crate) fn final_tree(
    original: &Utf8Path,
    loop_copy: LoopCopy,
    task: &Task,
    carry: Carry,
) -> Result<FinalTree, MendError> {
    let loop_root = loop_copy.root();
    let carried: Vec<String> = changed(original, loop_root, &task.editable)?
        .into_iter()
        .filter(|path| {
            protection(task, path).is_none()
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
    let written_by_tests: Vec<String> = touched(original, loop_root, &task.exclude)?
        .into_iter()
        .filter(|path| !by_tools(path))
        .collect();
    let cannot_carry = |path: &str, err: io::Error| {
        MendError::harness(format!(
            "cannot carry `{path}` into the tree of the final tests: {err}"
        ))
    };
    // Read before the loop's copy is put back, which puts back these files too.
    let mut change = Vec::new();
    for path in &carried {
        let file = Carried::read(&loop_root.join(path)).map_err(|err| cannot_carry(path, err))?;
        change.push((path, file));
    }
    let started = Instant::now();
    // The held-out files come back: the final run has them.
    let exclude = task.exclude.for_final_run();
    let workspace = match loop_copy {
        LoopCopy::Over(mut workspace) => match workspace.reset(original, &exclude) {
            Ok(Some(_)) => workspace,
            // The clock did not move, or the original changed under the copy (a folder gone):
            // a fresh copy is right whatever state the used one was left in, and that one is
            // deleted.
            Ok(None) | Err(_) => Workspace::copy_of(original, &exclude, &task.history)?,
        },
        LoopCopy::GoesOn(_) => Workspace::copy_of(original, &exclude, &task.history)?,
    };
    let copy_time = started.elapsed();
    for (path, file) in change {
        file.write(&workspace.root().join(path))
            .map_err(|err| cannot_carry(path, err))?;
    }
    Ok(FinalTree {
        workspace,
        carried,
        written_by_tests,
        copy_time,
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

/// A file of the change as the loop's copy has it.
enum Carried {
    Gone,
    /// The tools write files, never links: a link that changed was not their doing.
    Link,
    File(Vec<u8>, u32),
}

impl Carried {
    fn read(path: &Utf8Path) -> io::Result<Carried> {
        match fs::symlink_metadata(path) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(Carried::Gone),
            Err(err) => Err(err),
            Ok(meta) if meta.is_symlink() => Ok(Carried::Link),
            Ok(meta) => Ok(Carried::File(fs::read(path)?, meta.permissions().mode())),
        }
    }

    /// Makes `target` what this is: the same bytes and mode, or absent.
    fn write(self, target: &Utf8Path) -> io::Result<()> {
        match self {
            Carried::Gone => match fs::remove_file(target) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
                _ => Ok(()),
            },
            Carried::Link => Ok(()),
            Carried::File(bytes, mode) => {
                if let Some(folder) = target.parent() {
                    fs::create_dir_all(folder)?;
                }
                if fs::symlink_metadata(target).is_ok_and(|meta| meta.is_symlink()) {
                    fs::remove_file(target)?;
                }
                fs::write(target, bytes)?;
                fs::set_permissions(target, fs::Permissions::from_mode(mode))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fs;

    use camino::{Utf8Path, Utf8PathBuf};

    use super::{final_tree, Carry, LoopCopy};
    use crate::task::Task;
    use crate::test_support::{project, PYTHON_TASK as TASK};
    use crate::workspace::Workspace;

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

    /// A loop's copy of `original` after the tools' repair of `pkg/core.py` and what the code
    /// under test wrote while the loop's tests ran.
    fn used_copy(original: &Utf8Path, task: &Task) -> Workspace {
        let copy = Workspace::copy_of(original, &task.exclude, &task.history).unwrap();
        let loop_root = copy.root();
        fs::write(loop_root.join("pkg/core.py"), "fixed\n").unwrap();
        fs::write(loop_root.join("pkg/util.py"), "generated by the tests\n").unwrap();
        fs::write(loop_root.join("conftest.py"), "planted\n").unwrap();
        fs::write(loop_root.join("tests/test_core.py"), "rewritten\n").unwrap();
        copy
    }

    /// The original the loop worked on, and its task.
    fn original() -> (tempfile::TempDir, Utf8PathBuf, Task) {
        let (dir, original) = project(&[
            ("pkg/core.py", "bug\n"),
            ("pkg/util.py", "util\n"),
            ("tests/test_core.py", "test\n"),
        ]);
        let task = Task::parse(&original.join("mend.toml"), TASK).unwrap();
        (dir, original, task)
    }

    fn written() -> BTreeSet<String> {
        BTreeSet::from(["pkg/core.py".to_owned()])
    }

    type Files = Vec<(String, String)>;

    /// The final tree of the tools' writes: its files, what was carried, what the tests wrote.
    fn expected() -> (Files, Vec<String>, Vec<String>) {
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
                "tests/test_core.py".to_owned(),
            ],
        )
    }

    #[test]
    fn while_the_loop_goes_on_the_final_tree_is_a_fresh_copy_plus_what_the_tools_wrote() {
        let (_dir, original, task) = original();
        let written = written();
        let expected = expected();
        // The loop goes on in its copy: a fresh copy, and the loop's copy as it was.
        let copy = used_copy(&original, &task);
        let loop_root = copy.root();
        let fresh = final_tree(
            &original,
            LoopCopy::GoesOn(loop_root),
            &task,
            Carry::Written(&written),
        )
        .unwrap();
        assert_eq!(
            (
                fresh.workspace.root() != loop_root,
                fs::read_to_string(loop_root.join("conftest.py")).unwrap(),
                tree(fresh.workspace.root()),
                fresh.carried,
                fresh.written_by_tests
            ),
            (
                true,
                "planted\n".to_owned(),
                expected.0,
                expected.1,
                expected.2
            )
        );
    }

    #[test]
    fn once_the_loop_is_over_its_copy_is_put_back_holding_the_same() {
        let (_dir, original, task) = original();
        let written = written();
        let expected = expected();
        let copy = used_copy(&original, &task);
        let loop_root = copy.root().to_owned();
        let reused = final_tree(
            &original,
            LoopCopy::Over(copy),
            &task,
            Carry::Written(&written),
        )
        .unwrap();
        assert_eq!(
            (
                reused.workspace.root() == loop_root,
                tree(reused.workspace.root()),
                reused.carried,
                reused.written_by_tests
            ),
            (true, expected.0, expected.1, expected.2)
        );
    }

    #[test]
    fn a_folder_of_the_original_gone_while_the_loop_ran_gives_a_fresh_copy_instead() {
        let (_dir, original, task) = original();
        let written = written();
        // The copy cannot be put back, and a fresh copy takes its place.
        fs::create_dir_all(original.join("docs")).unwrap();
        fs::write(original.join("docs/notes.txt"), "notes\n").unwrap();
        let copy = used_copy(&original, &task);
        let loop_root = copy.root().to_owned();
        fs::remove_dir_all(original.join("docs")).unwrap();
        let fresh_instead = final_tree(
            &original,
            LoopCopy::Over(copy),
            &task,
            Carry::Written(&written),
        )
        .unwrap();
        assert_eq!(
            (
                fresh_instead.workspace.root() != loop_root,
                loop_root.exists(),
                tree(fresh_instead.workspace.root())
            ),
            (true, false, expected().0)
        );
    }

    #[test]
    fn with_the_shell_tool_every_changed_editable_file_is_the_change_but_never_a_test_file() {
        // Still never a test file, test configuration, or a file outside the editable set.
        let (_dir, original, task) = original();
        let copy = used_copy(&original, &task);
        let with_shell =
            final_tree(&original, LoopCopy::Over(copy), &task, Carry::EveryEditable).unwrap();
        assert_eq!(
            (
                tree(with_shell.workspace.root()),
                with_shell.carried,
                with_shell.written_by_tests
            ),
            (
                vec![
                    ("pkg/core.py".to_owned(), "fixed\n".to_owned()),
                    (
                        "pkg/util.py".to_owned(),
                        "generated by the tests\n".to_owned()
                    ),
                    ("tests/test_core.py".to_owned(), "test\n".to_owned()),
                ],
                vec!["pkg/core.py".to_owned(), "pkg/util.py".to_owned()],
                vec!["conftest.py".to_owned(), "tests/test_core.py".to_owned()]
            )
        );
    }
}
