//! Applying a recorded run's diff to the original repository: `mend apply`.
//!
//! The diff is mend's own (unified format, one section per editable file). It is applied only
//! when the repository's test files and editable files hash to exactly what the run started
//! from, and the result must hash to exactly what the run ended with, so there is no fuzzy
//! matching anywhere: it applies exactly, every file, or not at all.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use camino::Utf8Path;

use crate::access::{decide, Operation};
use crate::atomic;
use crate::error::MendError;
use crate::record::Record;
use crate::task::{PathSet, Task};
use crate::workspace::changes::{digest_of, file_digests, set_sha256, untextual_files};

/// What `mend apply` did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// The run changed nothing; nothing was written.
    NothingToApply,
    /// The repository already holds exactly what the run ended with; nothing was written.
    AlreadyHeld,
    Written {
        paths: Vec<String>,
    },
}

pub(crate) fn apply_record(
    record: &Record,
    repo: &Utf8Path,
    task: &Task,
) -> Result<Applied, MendError> {
    let ending = record.ending.as_ref().ok_or_else(|| {
        MendError::refused(
            "the record has no ending (a chat that never ended): it holds no final change; \
             replay it with `mend replay` and keep the copy with --keep-workspace",
        )
    })?;
    let tests_now = set_sha256(repo, &task.test.files)?;
    let source_now = set_sha256(repo, &task.editable)?;
    let tests_as_before = tests_now == record.test_file_sha256_before;
    if tests_as_before
        && source_now == ending.source_sha256_after
        && ending.source_sha256_after != record.source_sha256_before
    {
        return Ok(Applied::AlreadyHeld);
    }
    if !tests_as_before || source_now != record.source_sha256_before {
        let changed = changed_since(record, repo, task, tests_as_before)?;
        return Err(MendError::refused(format!(
            "{repo} is not what the run started from: {changed}; nothing was applied \
             (restore those files, or make a new run on the repository as it is)"
        )));
    }
    if ending.diff.is_empty() {
        return Ok(Applied::NothingToApply);
    }
    let untextual = untextual_files(&ending.diff);
    if !untextual.is_empty() {
        return Err(MendError::refused(format!(
            "the run changed {}, which a text patch cannot carry (a link, or a binary, huge or unreadable file); \
             nothing was applied — replay it with --keep-workspace and copy the files from there",
            untextual.join(", ")
        )));
    }
    let mut patched = BTreeMap::new();
    for (file, section) in file_sections(&ending.diff)? {
        let relative = decide(task, &file, Operation::Write)
            .ok()
            .ok_or_else(|| {
                MendError::refused(format!(
                    "the record's diff changes `{file}`, which the task does not let a run edit; nothing was applied"
                ))
            })?;
        let path = repo.join(&relative);
        let original = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(MendError::harness(format!("cannot read {path}: {err}"))),
        };
        let text = apply_unified(&original, section).map_err(|problem| {
            MendError::refused(format!(
                "the record's diff does not apply to {path}: {problem}"
            ))
        })?;
        patched.insert(relative, text);
    }
    if after_digest(repo, task, &patched)? != ending.source_sha256_after {
        return Err(MendError::refused(format!(
            "applying the diff to {repo} does not give the files the run ended with; nothing was written"
        )));
    }
    let mut paths = Vec::new();
    for (relative, text) in &patched {
        let path = repo.join(relative);
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder)
                .map_err(|err| MendError::harness(format!("cannot create {folder}: {err}")))?;
        }
        write_atomically(&path, text)?;
        paths.push(path.to_string());
    }
    Ok(Applied::Written { paths })
}

/// Which files differ from what the run started from, in words: exactly, from the record's
/// per-file digests; for older records (a digest of each set only), the changed files among
/// those the diff touches, else the set.
fn changed_since(
    record: &Record,
    repo: &Utf8Path,
    task: &Task,
    tests_as_before: bool,
) -> Result<String, MendError> {
    let before = &record.file_sha256_before;
    if !before.is_empty() {
        let mut now = file_digests(repo, &task.test.files)?;
        now.extend(file_digests(repo, &task.editable)?);
        let mut changes = Vec::new();
        let files: BTreeSet<&String> = before.keys().chain(now.keys()).collect();
        for file in files {
            match (before.get(file), now.get(file)) {
                (Some(_), None) => changes.push(format!("{file} was removed")),
                (None, Some(_)) => changes.push(format!("{file} is new")),
                (Some(was), Some(is)) if was != is => changes.push(format!("{file} changed")),
                _ => {}
            }
        }
        if !changes.is_empty() {
            return Ok(changes.join(", "));
        }
    }
    let mut changes = Vec::new();
    if !tests_as_before {
        changes.push(set_changed(&task.test.files));
    }
    if set_sha256(repo, &task.editable)? != record.source_sha256_before {
        let diff = record.ending.as_ref().map_or("", |ending| &ending.diff);
        let touched: Vec<String> = file_sections(diff)
            .unwrap_or_default()
            .into_iter()
            .filter(|(file, section)| {
                let now = fs::read_to_string(repo.join(file)).unwrap_or_default();
                apply_unified(&now, section).is_err()
            })
            .map(|(file, _)| format!("{file} changed"))
            .collect();
        if touched.is_empty() {
            changes.push(set_changed(&task.editable));
        } else {
            changes.extend(touched);
        }
    }
    Ok(changes.join(", "))
}

fn set_changed(set: &PathSet) -> String {
    match set.single_file() {
        Some(file) => format!("{file} changed"),
        None => format!("a file of {} changed", set.listed("or")),
    }
}

/// The digest the editable files would have with `patched` applied (see [`set_sha256`]),
/// computed before anything is written.
fn after_digest(
    repo: &Utf8Path,
    task: &Task,
    patched: &BTreeMap<String, String>,
) -> Result<String, MendError> {
    let mut digests = file_digests(repo, &task.editable)?;
    for (file, text) in patched {
        digests.insert(file.clone(), atomic::sha256_hex(text.as_bytes()));
    }
    Ok(digest_of(&digests))
}

/// The diff cut at each `--- a/FILE` header: the file (from the `+++ b/FILE` line) and its
/// section.
pub(crate) fn file_sections(diff: &str) -> Result<Vec<(String, &str)>, MendError> {
    let starts: Vec<usize> = diff
        .match_indices("--- a/")
        .map(|(at, _)| at)
        .filter(|at| *at == 0 || diff[..*at].ends_with('\n'))
        // A removed line `-- a/x` also starts with `--- a/`; a header is followed by `+++ b/`.
        .filter(|at| {
            diff[*at..]
                .lines()
                .nth(1)
                .is_some_and(|line| line.starts_with("+++ b/"))
        })
        .collect();
    let mut sections = Vec::new();
    for (index, start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(diff.len());
        let section = &diff[*start..end];
        let file = section
            .lines()
            .nth(1)
            .and_then(|line| line.strip_prefix("+++ b/"))
            .map(|file| file.trim_end().to_owned())
            .unwrap_or_default();
        sections.push((file, section));
    }
    if starts.first() != Some(&0) {
        return Err(MendError::refused(
            "the record's diff does not start with a `--- a/FILE` header",
        ));
    }
    Ok(sections)
}

/// Writes `text` to `path` all or nothing (see [`atomic::write_file`]).
pub(crate) fn write_atomically(path: &Utf8Path, text: &str) -> Result<(), MendError> {
    atomic::write_file(path, |out| out.write_all(text.as_bytes()))
        .map_err(|err| MendError::harness(format!("cannot write {path}: {err}")))
}

/// Why a record's one-file diff was not applied to a file's text. The caller refuses the record
/// whichever it is; the variants keep the patch room's own errors as sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UnifiedError {
    /// The diff cannot be read.
    Unreadable(crate::patch::ParseError),
    /// The diff holds this many file sections, not one.
    Sections(usize),
    /// Its hunks do not fit the text.
    Misfit(crate::patch::Misfit),
}

impl std::fmt::Display for UnifiedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnifiedError::Unreadable(error) => error.fmt(f),
            UnifiedError::Sections(0) => {
                f.write_str("the diff holds no `--- a/FILE` / `+++ b/FILE` section")
            }
            UnifiedError::Sections(_) => f.write_str("the diff holds more than one file"),
            UnifiedError::Misfit(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for UnifiedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UnifiedError::Unreadable(error) => Some(error),
            UnifiedError::Misfit(error) => Some(error),
            UnifiedError::Sections(_) => None,
        }
    }
}

/// Applies a one-file unified diff exactly: every context and removed line must match, each
/// hunk at the line its header names (see [`crate::patch`]).
pub(crate) fn apply_unified(original: &str, diff: &str) -> Result<String, UnifiedError> {
    let files = crate::patch::parse(diff).map_err(UnifiedError::Unreadable)?;
    let hunks = match files.as_slice() {
        [file] => file.hunks.as_slice(),
        files => return Err(UnifiedError::Sections(files.len())),
    };
    crate::patch::apply_hunks(original, hunks, crate::patch::Placement::Exact)
        .map_err(UnifiedError::Misfit)
}

#[cfg(test)]
mod tests {
    use super::{apply_unified, file_sections};

    fn diff(before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .header("a/f", "b/f")
            .to_string()
    }

    #[test]
    fn applies_what_similar_produces() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
                "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
            ),
            ("x\ny", "x\nz"),
            ("", "new\n"),
            ("gone\n", ""),
        ];
        for (before, after) in cases {
            assert_eq!(
                apply_unified(before, &diff(before, after)).as_deref(),
                Ok(after),
                "{before:?} -> {after:?}"
            );
        }
    }

    #[test]
    fn refuses_a_diff_for_other_text() {
        let patch = diff("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(
            apply_unified("a\nX\nc\n", &patch).map_err(|err| err.to_string()),
            Err("line 2 is \"X\\n\", the diff expects \"b\\n\"".to_owned())
        );
    }

    #[test]
    fn a_diff_of_no_file_or_of_two_says_which() {
        let two = format!("{}{}", diff("a\n", "b\n"), diff("c\n", "d\n"));
        assert_eq!(
            [
                apply_unified("a\n", "a commit message only\n"),
                apply_unified("a\n", &two)
            ]
            .map(|applied| applied.map_err(|err| err.to_string())),
            [
                Err("the diff holds no `--- a/FILE` / `+++ b/FILE` section".to_owned()),
                Err("the diff holds more than one file".to_owned()),
            ]
        );
    }

    #[test]
    fn a_diff_is_cut_into_one_section_per_file() {
        let first = similar::TextDiff::from_lines("-- a/x\nkeep\n", "keep\n")
            .unified_diff()
            .header("a/src/one.py", "b/src/one.py")
            .to_string();
        let second = similar::TextDiff::from_lines("", "new\n")
            .unified_diff()
            .header("a/src/two.py", "b/src/two.py")
            .to_string();
        let diff = format!("{first}{second}");
        // The removed line `-- a/x` reads `--- a/x` in the diff, but no `+++ b/` follows it.
        assert_eq!(
            file_sections(&diff).unwrap(),
            vec![
                ("src/one.py".to_owned(), first.as_str()),
                ("src/two.py".to_owned(), second.as_str())
            ]
        );
        assert_eq!(
            apply_unified("", file_sections(&diff).unwrap()[1].1),
            Ok("new\n".to_owned())
        );
        assert_eq!(
            file_sections("@@ -1 +1 @@\n-a\n+b\n").unwrap_err().message,
            "the record's diff does not start with a `--- a/FILE` header"
        );
    }
}
