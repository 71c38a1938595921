//! Whether a tool may read or write a path: the one place that decides.
//!
//! First on the text alone ([`decide`]): the path must be a repository path (relative, no
//! `..`), in `paths.readable` to be read, in `paths.editable` to be written; and it must not be
//! one of the task's test files (`test.files`) nor test configuration ([`config`]: a
//! `conftest.py`, `pyproject.toml`, `build.rs`, …) unless `test.config_editable` names it, since
//! either could make failing tests pass without a repair. Then on the disk ([`grant`]): where
//! the path really leads, through links, must stay inside the copy, and a write must land on a
//! file the same rules let it write.
//!
//! The verdict uses the same rules: [`protection`] says whether a path is protected, and
//! [`protected_files`] lists those present in a tree.

mod config;
mod disk;
mod reach;
mod snapshot;
mod test_data;

use std::io;

use camino::Utf8Path;

pub(crate) use disk::{grant, Granted};
pub(crate) use reach::protected_note;
pub(crate) use snapshot::{Restored, Snapshot};

use crate::task::paths::{files_under, normalize, Malformed, PathSet};
use crate::task::Task;

/// Why a tool may not use a path, or list the repository; its `Display` is the message for the
/// model. The cases differ in whose they are: the task's rules, the disk as the copy has it, or
/// mend's own copy failing.
#[derive(Debug)]
pub(crate) enum Denied {
    /// The task's rules refuse it: not readable or editable, protected, a link to a file no tool
    /// may change, or a glob that is no glob.
    Rules(String),
    /// The disk refuses it: it does not exist, is a broken link, leads out of the copy, or cannot
    /// be opened.
    Disk(String),
    /// The copy itself could not be read (`doing` says what was tried).
    Workspace {
        doing: &'static str,
        source: io::Error,
    },
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Denied::Rules(why) | Denied::Disk(why) => f.write_str(why),
            Denied::Workspace { doing, source } => write!(f, "{doing}: {source}"),
        }
    }
}

impl std::error::Error for Denied {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Denied::Workspace { source, .. } => Some(source),
            Denied::Rules(_) | Denied::Disk(_) => None,
        }
    }
}

/// What a tool wants to do with a path. Creating a file is a write: [`grant`] says whether it
/// exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    Read,
    Write,
}

/// Why a path may not be written whatever the globs say: the verdict rests on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protected {
    /// In `test.files`: never writable.
    TestFile,
    /// Test configuration the task does not name in `test.config_editable`, with the reason.
    TestConfig(&'static str),
    /// Not code, in a folder of the test files: data the tests read (a snapshot, a golden file).
    FixtureData,
}

/// Why the text of a path was refused, before the disk was touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Malformed(Malformed),
    /// Not in `paths.readable` (a read) or `paths.editable` (a write).
    NotInSet,
    Protected(Protected),
}

/// The decision on the text alone: the normalised path, or why it is refused.
pub(crate) fn decide(task: &Task, path: &str, operation: Operation) -> Result<String, Refusal> {
    let relative = normalize(path).map_err(Refusal::Malformed)?;
    if operation == Operation::Write {
        if let Some(protected) = protection(task, &relative) {
            return Err(Refusal::Protected(protected));
        }
    }
    if set_for(task, operation).contains(&relative) {
        Ok(relative)
    } else {
        Err(Refusal::NotInSet)
    }
}

/// Whether a normalised relative path is one the verdict rests on: a test file, or test
/// configuration the task has not opened to the tools. Test files come first: naming one in
/// `test.config_editable` does not open it.
pub(crate) fn protection(task: &Task, relative: &str) -> Option<Protected> {
    if task.test.files.contains(relative) {
        return Some(Protected::TestFile);
    }
    if test_data::is_test_data(task.test.data_folders.as_ref(), relative) {
        return Some(Protected::FixtureData);
    }
    if task.hooks.names(relative) {
        return Some(Protected::TestConfig(
            "a hook of the task file runs it, and the hooks' decisions rest on it",
        ));
    }
    if task.config_editable.contains(relative) {
        return None;
    }
    config::test_config(relative, &task.test.argv).map(Protected::TestConfig)
}

/// `path (what it is)` for a protected path, as the verdict names a protected file written
/// while the tests ran; `None` for a path nothing protects.
pub(crate) fn named_if_protected(task: &Task, path: &str) -> Option<String> {
    protection(task, path).map(|protected| format!("{path} ({})", protected.describe()))
}

/// Every protected file under `root` (the copy's exclusions aside, links listed as links),
/// sorted by path.
pub(crate) fn protected_files(
    task: &Task,
    root: &Utf8Path,
) -> io::Result<Vec<(String, Protected)>> {
    Ok(files_under(root, &task.exclude)?
        .into_iter()
        .filter_map(|file| protection(task, &file).map(|protected| (file, protected)))
        .collect())
}

/// The readable files under `root`, sorted; only those the glob `pattern` matches when one is
/// given: what `list_files` lists and `grep` searches. The `Err` is the message for the model.
pub(crate) fn readable_files(
    task: &Task,
    root: &Utf8Path,
    pattern: Option<&str>,
) -> Result<Vec<String>, Denied> {
    let narrow = pattern
        .map(|pattern| PathSet::new(vec![pattern.to_owned()]))
        .transpose()
        .map_err(|(_, message)| Denied::Rules(message))?;
    let files = files_under(root, &task.exclude).map_err(|source| Denied::Workspace {
        doing: "the repository cannot be listed",
        source,
    })?;
    Ok(files
        .into_iter()
        .filter(|file| task.readable.contains(file))
        .filter(|file| narrow.as_ref().is_none_or(|set| set.contains(file)))
        .collect())
}

fn set_for(task: &Task, operation: Operation) -> &PathSet {
    match operation {
        Operation::Read => &task.readable,
        Operation::Write => &task.editable,
    }
}

impl Protected {
    /// What the file is, as a refusal names it.
    pub(crate) fn describe(&self) -> String {
        match self {
            Protected::TestFile => "one of the task's test files".to_owned(),
            Protected::FixtureData => {
                "data the tests read (not code, in a folder of the task's test files)".to_owned()
            }
            Protected::TestConfig(reason) => format!("test configuration ({reason})"),
        }
    }
}

impl Refusal {
    /// The message the model gets: what was wrong and what it may do instead.
    pub(crate) fn explain(&self, path: &str, task: &Task, operation: Operation) -> String {
        let options = set_for(task, operation).patterns().join(", ");
        let shown = normalize(path).unwrap_or_else(|_| path.to_owned());
        match self {
            Refusal::Malformed(Malformed::Empty) => {
                format!("the path is empty; use one of: {options}")
            }
            Refusal::Malformed(Malformed::Absolute) => {
                format!("`{path}` is absolute; use a relative path, one of: {options}")
            }
            Refusal::Malformed(Malformed::LeavesRepository) => {
                format!("`{path}` leaves the repository; use one of: {options}")
            }
            Refusal::Malformed(Malformed::Backslash) | Refusal::NotInSet => {
                format!("`{path}` is not allowed; use one of: {options}")
            }
            Refusal::Protected(protected @ (Protected::TestFile | Protected::FixtureData)) => {
                format!(
                    "`{shown}` is {}, which no tool may change; change the code under test instead",
                    protected.describe()
                )
            }
            Refusal::Protected(protected) => format!(
                "`{shown}` is {}, which no tool may change; change the code under test instead \
                 (a task that must change it names it in test.config_editable)",
                protected.describe()
            ),
        }
    }
}

#[cfg(test)]
mod tests;
