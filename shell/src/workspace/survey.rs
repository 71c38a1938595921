//! A look at the repository before any work starts: the files the task's globs reach that the
//! tools cannot treat as text (binary, huge, unreadable files, links of every kind), and what
//! the copy leaves out (special files, folders that cannot be listed). `mend verify`, `mend task`
//! and `mend run` print these as warnings, so nothing about them is a surprise later.

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

/// One warning per odd file, in path order: `PATH (FIELDS): what it is and what follows`.
pub(crate) fn warnings(repo: &Utf8Path, task: &Task) -> Result<Vec<String>, MendError> {
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
        if let Some(what) = oddity(&repo.join(file), &real_root) {
            found.push(format!("{file} ({}) is {what}", fields.join(", ")));
        }
    }
    for (path, skipped) in &seen.skipped {
        found.push(format!("{path} is {}", skipped.describe()));
    }
    found.sort();
    Ok(found)
}

/// What is odd about one listed file, if anything.
fn oddity(path: &Utf8Path, real_root: &Utf8Path) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
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
    match opened {
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
            return Some(
                "a file mend cannot read (permission denied): the copy has it empty and unreadable"
                    .to_owned(),
            )
        }
        Err(err) => return Some(format!("a file mend cannot read ({err})")),
        Ok(()) => {}
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

/// Prints the warnings on stderr, at most [`SHOWN_WARNINGS`] of them.
pub(crate) fn warn(repo: &Utf8Path, task: &Task) -> Result<(), MendError> {
    print(&warnings(repo, task)?);
    Ok(())
}

/// Prints `found` on stderr, at most [`SHOWN_WARNINGS`] of them.
pub(crate) fn print(found: &[String]) {
    for warning in found.iter().take(SHOWN_WARNINGS) {
        eprintln!("mend: warning: {warning}");
    }
    if found.len() > SHOWN_WARNINGS {
        eprintln!(
            "mend: warning: … and {} more files the tools cannot treat as text",
            found.len() - SHOWN_WARNINGS
        );
    }
}
