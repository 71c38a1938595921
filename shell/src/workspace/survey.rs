//! A look at the repository before any work starts: the files the task's globs reach that the
//! tools cannot treat as text (binary, huge, unreadable files, links of every kind), and what
//! the copy leaves out (special files, folders that cannot be listed). `mend task` and `mend run`
//! print these as warnings, so nothing about them is a surprise later; `mend eval` and
//! `mend eval check` once per task of the suite, not per attempt or run. `mend verify` runs no
//! tools, so it names only what the copy does not carry over as it is: what its tests see.

use std::fs::{self, File};
use std::io::{self, Read};

use camino::Utf8Path;

use crate::error::MendError;
use crate::task::paths::walk;
use crate::task::Task;
use crate::workspace::changes::{is_binary, DIFF_TEXT_CAP_BYTES, READ_FILE_CAP_BYTES};

/// More warnings than this are summed up in one line.
const SHOWN_WARNINGS: usize = 20;
/// How much of a file is read to tell text from binary.
const SNIFF_BYTES: usize = 8_000;

/// Whose work an odd file can get in the way of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Concern {
    /// The tools' and the tests': every odd file.
    Tools,
    /// The tests' alone: what the copy does not carry over as it is (special files, files and
    /// folders mend cannot read).
    Tests,
}

/// One warning per odd file that is of `concern`, in path order: `PATH (FIELDS): what it is
/// and what follows`.
pub(crate) fn warnings(
    repo: &Utf8Path,
    task: &Task,
    concern: Concern,
) -> Result<Vec<String>, MendError> {
    let seen = walk(repo, &task.exclude)
        .map_err(|err| MendError::harness(format!("cannot list {repo}: {err}")))?;
    let real_root = repo
        .canonicalize_utf8()
        .map_err(|err| MendError::harness(format!("cannot read {repo}: {err}")))?;
    let mut found = task.warnings.clone();
    for file in &seen.files {
        let fields: Vec<&str> = [
            ("paths.readable", &task.readable),
            ("paths.editable", &task.editable),
            ("test.files", &task.test.files),
        ]
        .into_iter()
        .filter(|(_, set)| set.contains(file))
        .map(|(field, _)| field)
        .collect();
        if fields.is_empty() {
            continue;
        }
        if let Some(odd) = oddity(&repo.join(file), &real_root) {
            if concern == Concern::Tools || odd.reaches_the_copy {
                found.push(format!("{file} ({}) is {}", fields.join(", "), odd.what));
            }
        }
    }
    for (path, skipped) in &seen.skipped {
        found.push(format!("{path} is {}", skipped.describe()));
    }
    found.sort();
    Ok(found)
}

/// What is odd about one file.
struct Oddity {
    what: String,
    /// The copy holds it otherwise than the original does (empty): the tests see it too.
    reaches_the_copy: bool,
}

impl Oddity {
    /// Odd to the tools only: the copy holds it as the original does.
    fn for_tools(what: String) -> Oddity {
        Oddity {
            what,
            reaches_the_copy: false,
        }
    }
}

/// What is odd about one listed file, if anything.
fn oddity(path: &Utf8Path, real_root: &Utf8Path) -> Option<Oddity> {
    let meta = fs::symlink_metadata(path).ok()?;
    if let Some(unreadable) = unreadable(path) {
        return Some(Oddity {
            what: unreadable,
            reaches_the_copy: true,
        });
    }
    odd_to_the_tools(path, &meta, real_root).map(Oddity::for_tools)
}

/// A file mend cannot open, which the copy has empty.
fn unreadable(path: &Utf8Path) -> Option<String> {
    if fs::symlink_metadata(path).ok()?.is_symlink() {
        return None;
    }
    match File::open(path) {
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => Some(
            "a file mend cannot read (permission denied): the copy has it empty and unreadable"
                .to_owned(),
        ),
        Err(err) => Some(format!("a file mend cannot read ({err})")),
        Ok(_) => None,
    }
}

/// What the tools cannot do with a readable file, if anything.
fn odd_to_the_tools(path: &Utf8Path, meta: &fs::Metadata, real_root: &Utf8Path) -> Option<String> {
    if meta.is_symlink() {
        let target = fs::read_link(path).ok()?;
        let target = target.display();
        return match path.canonicalize_utf8() {
            Err(_) => Some(format!(
                "a broken link (to `{target}`): the tools cannot open it; a change to it shows as its target"
            )),
            Ok(real) if !real.starts_with(real_root) => Some(format!(
                "a link to `{target}`, outside the repository: the tools will not follow it"
            )),
            Ok(real) if real.is_dir() => Some(format!(
                "a link to the folder `{target}`: the tools see a folder; a change to the link shows as its target"
            )),
            Ok(_) => None,
        };
    }
    let mut bytes = Vec::with_capacity(SNIFF_BYTES);
    let opened = File::open(path).and_then(|file| {
        file.take(SNIFF_BYTES as u64).read_to_end(&mut bytes)?;
        Ok(())
    });
    if let Err(err) = opened {
        return Some(format!("a file mend cannot read ({err})"));
    }
    let utf8 = match std::str::from_utf8(&bytes) {
        Ok(_) => true,
        // Cut in the middle of a character by the sniff, not invalid.
        Err(err) => err.error_len().is_none(),
    };
    if is_binary(&bytes) || !utf8 {
        return Some(
            "a binary file: the tools will not read or edit it; a change to it shows as `Binary files … differ`"
                .to_owned(),
        );
    }
    match meta.len() {
        size if size > DIFF_TEXT_CAP_BYTES => Some(format!(
            "{size} bytes: too big for the tools; a change to it shows as `Files … differ`"
        )),
        size if size > READ_FILE_CAP_BYTES => Some(format!(
            "{size} bytes: read_file reads it only in parts (start_line, end_line)"
        )),
        _ => None,
    }
}

/// Prints every warning on stderr, at most [`SHOWN_WARNINGS`] of them.
pub(crate) fn warn(repo: &Utf8Path, task: &Task) -> Result<(), MendError> {
    print(&warnings(repo, task, Concern::Tools)?);
    Ok(())
}

/// Prints every warning of the suite's task `name` on stderr, each led by the task's name, at
/// most [`SHOWN_WARNINGS`] of them: once per task, however many attempts or runs follow.
pub(crate) fn warn_in_suite(name: &str, repo: &Utf8Path, task: &Task) -> Result<(), MendError> {
    print_led(&format!("{name}: "), &warnings(repo, task, Concern::Tools)?);
    Ok(())
}

/// Prints `found` on stderr, at most [`SHOWN_WARNINGS`] of them.
pub(crate) fn print(found: &[String]) {
    print_led("", found);
}

fn print_led(lead: &str, found: &[String]) {
    for warning in found.iter().take(SHOWN_WARNINGS) {
        eprintln!("mend: warning: {lead}{warning}");
    }
    if found.len() > SHOWN_WARNINGS {
        eprintln!(
            "mend: warning: {lead}… and {} more files the tools cannot treat as text",
            found.len() - SHOWN_WARNINGS
        );
    }
}
