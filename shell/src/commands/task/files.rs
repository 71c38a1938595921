//! The files a task's globs match in the repository now, set by set: what `mend task` lists
//! under the globs, so a person sees what the model may read and write, what the verdict rests
//! on and what is held out, not only the patterns.

use camino::Utf8Path;
use serde::Serialize;

use crate::error::MendError;
use crate::task::Task;
use crate::workspace::held_out::held_out_files;

/// How many files a set names in the text; the JSON has them all.
const NAMED: usize = 12;

/// One set: its name in the task file, its globs, and the files they match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FileSet {
    pub name: &'static str,
    pub patterns: Vec<String>,
    pub files: Vec<String>,
}

/// The files `test.held_out` keeps from the attempt, counted and never named: `mend task` is
/// what the model's side may read (the MCP server's `task` tool), and the held-out tests must
/// stay unseen until the final run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeldOut {
    pub files: usize,
}

/// Every set the task has, in the order a person checks them. Protected files are those no tool
/// may write whatever the globs say.
pub(crate) fn file_sets(task: &Task, repo: &Utf8Path) -> Result<Vec<FileSet>, MendError> {
    let cannot = |err: std::io::Error| MendError::harness(format!("cannot list {repo}: {err}"));
    let set = |name, set: &crate::task::PathSet| -> Result<FileSet, MendError> {
        Ok(FileSet {
            name,
            patterns: set.patterns().to_vec(),
            files: set.files_in(repo).map_err(cannot)?,
        })
    };
    let mut sets = vec![
        set("paths.readable", &task.readable)?,
        set("paths.editable", &task.editable)?,
        set("test.files", &task.test.files)?,
    ];
    let protected = crate::access::protected_files(task, repo).map_err(cannot)?;
    sets.push(FileSet {
        name: "protected",
        patterns: Vec::new(),
        files: protected.into_iter().map(|(file, _)| file).collect(),
    });
    Ok(sets)
}

/// How many files `test.held_out` holds out of the attempt; `None` when the task holds none out.
pub(crate) fn held_out(task: &Task, repo: &Utf8Path) -> Result<Option<HeldOut>, MendError> {
    if task.exclude.held_out_patterns().is_empty() {
        return Ok(None);
    }
    let files = held_out_files(repo, task)?.len();
    Ok(Some(HeldOut { files }))
}

/// The sets as `mend task` prints them: a line a set, its globs and the files they match.
pub(crate) fn describe(sets: &[FileSet], held_out: Option<HeldOut>) -> String {
    let mut out = String::from("Files the globs match now:\n");
    for set in sets {
        let globs = if set.name == "protected" {
            "never written by a tool: test files and test configuration".to_owned()
        } else {
            set.patterns.join(", ")
        };
        let files = match set.files.len() {
            0 => "no file".to_owned(),
            count if count > NAMED => format!(
                "{count} files: {} and {} more",
                set.files[..NAMED].join(", "),
                count - NAMED
            ),
            1 => format!("1 file: {}", set.files[0]),
            count => format!("{count} files: {}", set.files.join(", ")),
        };
        out.push_str(&format!("- {} ({globs}): {files}\n", set.name));
    }
    if let Some(HeldOut { files }) = held_out {
        out.push_str(&format!(
            "- test.held_out: {files} file(s) held out of the attempt, not named here (the model never sees them; the final tests put them back)\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use camino::Utf8Path;

    use super::{describe, file_sets, held_out};
    use crate::task::Task;
    use crate::test_support::project;

    #[test]
    fn each_set_lists_the_files_its_globs_match_and_held_out_ones_are_only_counted() {
        let (_dir, root) = project(&[
            ("src/app.py", ""),
            ("src/conftest.py", ""),
            ("tests/test_app.py", ""),
            ("tests/test_secret.py", ""),
            ("README.md", ""),
        ]);
        let task = Task::parse(
            Utf8Path::new("mend.toml"),
            r#"
[paths]
readable = ["src/**/*.py", "tests/*.py"]
editable = ["src/**/*.py"]
[test]
command = ["python", "-m", "pytest", "-q"]
timeout_seconds = 5
files = ["tests/*.py"]
held_out = ["tests/test_secret.py"]
[tools]
enabled = ["read_file", "write_file"]
"#,
        )
        .unwrap();
        let sets = file_sets(&task, &root).unwrap();
        let text = describe(&sets, held_out(&task, &root).unwrap());
        assert_eq!(
            text,
            "Files the globs match now:\n\
             - paths.readable (src/**/*.py, tests/*.py): 3 files: src/app.py, src/conftest.py, tests/test_app.py\n\
             - paths.editable (src/**/*.py): 2 files: src/app.py, src/conftest.py\n\
             - test.files (tests/*.py): 1 file: tests/test_app.py\n\
             - protected (never written by a tool: test files and test configuration): 2 files: src/conftest.py, tests/test_app.py\n\
             - test.held_out: 1 file(s) held out of the attempt, not named here (the model never sees them; the final tests put them back)\n"
        );
        assert!(!text.contains("secret"), "{text}");
    }
}
