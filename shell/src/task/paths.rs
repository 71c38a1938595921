//! Sets of repository paths named by globs (`src/**/*.py`): which files a tool may read, which
//! it may write, which the verdict rests on. `*` stays inside one folder, `**` crosses folders.
//! Whether a tool may touch a path is decided from these sets in [`crate::access`].

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::unix::fs::FileTypeExt;

use camino::{Utf8Path, Utf8PathBuf};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::copy::Exclusion;
use crate::error::MendError;

/// A walk of a repository stops here: mend is for small repositories, and a runaway walk would
/// stall every tool call.
pub(crate) const WALK_LIMIT: usize = 50_000;

/// A set of glob patterns a task names files with (`access.readable`, `test.files`…), matched against paths relative to the copy.
#[derive(Debug, Clone)]
pub struct PathSet {
    patterns: Vec<String>,
    matcher: GlobSet,
    /// What the copy leaves out is in no set: a file there would be seen in the original and
    /// missed in the copy.
    exclude: Exclusion,
}

impl PathSet {
    /// The set of the given globs; `Err((index, message))` names the first bad one.
    pub fn new(patterns: Vec<String>) -> Result<PathSet, (usize, String)> {
        let mut builder = GlobSetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if pattern.starts_with('/') || pattern.split('/').any(|part| part == "..") {
                return Err((
                    index,
                    format!("`{pattern}` must be relative to the repository, without `..`"),
                ));
            }
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|err| (index, format!("`{pattern}` is not a valid glob: {err}")))?;
            builder.add(glob);
        }
        let matcher = builder
            .build()
            .map_err(|err| (0, format!("the globs cannot be combined: {err}")))?;
        Ok(PathSet {
            patterns,
            matcher,
            exclude: Exclusion::none(),
        })
    }

    /// The same set without what `exclude` leaves out of the copy.
    pub fn excluding(self, exclude: &Exclusion) -> PathSet {
        PathSet {
            exclude: exclude.clone(),
            ..self
        }
    }

    pub(crate) fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether a normalised relative path (see [`normalize`]) is in the set.
    pub fn contains(&self, relative: &str) -> bool {
        self.matcher.is_match(relative) && !self.exclude.excludes(relative)
    }

    /// The one file the set names, when it is a single plain path: then a tool needs no `path`.
    pub fn single_file(&self) -> Option<&str> {
        match self.patterns.as_slice() {
            [only] if !only.contains(['*', '?', '[', '{', '\\']) => Some(only),
            _ => None,
        }
    }

    /// `a, b and c` / `a, b or c`: the set as the model reads it in a tool description.
    pub fn listed(&self, conjunction: &str) -> String {
        match self.patterns.split_last() {
            None => "nothing".to_owned(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} {conjunction} {last}", rest.join(", ")),
        }
    }

    /// Every file under `root` in the set, sorted.
    pub fn files_in(&self, root: &Utf8Path) -> io::Result<Vec<String>> {
        Ok(files_under(root, &self.exclude)?
            .into_iter()
            .filter(|file| self.contains(file))
            .collect())
    }
}

/// Why a path cannot be a repository path at all, on its text alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Malformed {
    Empty,
    Absolute,
    LeavesRepository,
    /// A backslash: a Windows separator here, or an escape; never one of the repository's
    /// paths as the sets match them.
    Backslash,
}

/// The path as the sets match it: relative, forward slashes, no `.` parts. `..`, absolute
/// paths and backslashes are refused on the text alone.
pub(crate) fn normalize(path: &str) -> Result<String, Malformed> {
    if path.starts_with('/') || path.starts_with('\\') {
        return Err(Malformed::Absolute);
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(Malformed::LeavesRepository),
            part if part.contains('\\') => return Err(Malformed::Backslash),
            part => parts.push(part),
        }
    }
    match parts.first() {
        None => Err(Malformed::Empty),
        _ if parts.iter().all(|part| part.trim().is_empty()) => Err(Malformed::Empty),
        // A Windows drive (`C:/x`, also after `./`): absolute there, and never meant here.
        Some(first) if first.get(1..2) == Some(":") => Err(Malformed::Absolute),
        Some(_) => Ok(parts.join("/")),
    }
}

/// Every file under `root` as a relative path, sorted: regular files and links (see [`walk`]).
pub(crate) fn files_under(root: &Utf8Path, exclude: &Exclusion) -> io::Result<Vec<String>> {
    Ok(walk(root, exclude)?.files)
}

/// Every file of `copy` that is new, gone, or of another size or time than in `original`
/// (`exclude` aside in both), sorted: the copy keeps the original's times, so a file nothing
/// wrote looks the same.
pub(crate) fn touched(
    original: &Utf8Path,
    copy: &Utf8Path,
    exclude: &Exclusion,
) -> Result<Vec<String>, MendError> {
    let listed = |root: &Utf8Path| {
        files_under(root, exclude)
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

/// What a walk of the repository saw.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Walk {
    /// Regular files and links of every kind (to files, to folders, broken, leading out),
    /// sorted.
    pub files: Vec<String>,
    /// What it could not or would not look at, sorted by path.
    pub skipped: Vec<(String, Skipped)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// A FIFO, socket or device: reading one can block forever or never end.
    Special(&'static str),
    /// A folder whose entries cannot be listed.
    UnreadableFolder,
    /// A file that cannot be opened (found by the copy, which opens every file).
    UnreadableFile,
}

impl Skipped {
    pub fn describe(self) -> String {
        match self {
            Skipped::Special(kind) => format!("a {kind}, which mend does not copy or read"),
            Skipped::UnreadableFolder => {
                "a folder that cannot be listed (permission denied); the copy has it empty"
                    .to_owned()
            }
            Skipped::UnreadableFile => {
                "a file that cannot be read (permission denied); the copy has it empty and as unreadable"
                    .to_owned()
            }
        }
    }
}

/// The special kinds of file, by name; `None` for folders, files and links.
pub(crate) fn special_kind(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("socket")
    } else if kind.is_block_device() || kind.is_char_device() {
        Some("device file")
    } else {
        None
    }
}

/// Walks `root`. Links are listed, never followed, so a link to a folder outside cannot pull
/// that folder in; `.git` and what `exclude` leaves out of the copy are skipped silently;
/// special files and folders that cannot be listed are skipped and reported.
pub(crate) fn walk(root: &Utf8Path, exclude: &Exclusion) -> io::Result<Walk> {
    let mut seen = Walk::default();
    let mut pending = vec![String::new()];
    while let Some(folder) = pending.pop() {
        let entries = match root.join(&folder).read_dir_utf8() {
            Ok(entries) => entries,
            Err(err) if !folder.is_empty() && err.kind() == io::ErrorKind::PermissionDenied => {
                seen.skipped.push((folder, Skipped::UnreadableFolder));
                continue;
            }
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            let relative = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            let kind = entry.file_type()?;
            if exclude.excludes_entry(&relative) {
                continue;
            }
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    pending.push(relative);
                }
            } else if let Some(special) = special_kind(kind) {
                seen.skipped.push((relative, Skipped::Special(special)));
            } else {
                seen.files.push(relative);
            }
            if seen.files.len() + pending.len() > WALK_LIMIT {
                return Err(io::Error::other(format!(
                    "the repository has more than {WALK_LIMIT} entries; mend is meant for small repositories \
                     (leave big folders out of the copy with copy.exclude)"
                )));
            }
        }
    }
    seen.files.sort();
    seen.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(seen)
}

#[cfg(test)]
mod tests;
