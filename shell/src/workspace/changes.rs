//! What a run changed, in terms a record can keep and `mend apply` can check: the digest of a
//! set of files, and the diff of the editable files. Any file a walk lists is survivable here:
//! a binary or huge file, a link (to a file, to a folder, broken, leading out), a file that
//! cannot be read.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{self, Read};

use camino::Utf8Path;
use sha2::{Digest, Sha256};

use crate::atomic;
use crate::error::MendError;
use crate::task::{PathSet, Task};

/// A text file bigger than this is not diffed line by line: the diff says it differs.
pub(crate) const DIFF_TEXT_CAP_BYTES: u64 = 16 * 1024 * 1024;
/// A text file bigger than this is refused whole by `read_file` rather than flooding the
/// model's context (with line ranges on, the model is told to read it in parts), and passed
/// over by `grep`. Kept beside the diff's cap: both say how much of a file is text to mend.
pub(crate) const READ_FILE_CAP_BYTES: u64 = 256 * 1024;
/// As git decides: a NUL byte in the first 8,000 bytes makes a file binary.
const BINARY_SNIFF_BYTES: usize = 8_000;
/// What an unreadable file hashes as: the text `unreadable`, so that it is stable and cannot
/// pass for an empty file.
const UNREADABLE_MARK: &[u8] = b"unreadable";

/// The SHA-256 of the files of `set` under `root`. A set of exactly one file is hashed as that
/// file, so the digest is the one `sha256sum FILE` prints; any other set as the SHA-256 of its
/// `sha256sum`-style manifest (`<hex>  <path>` lines, sorted by path), which
/// `sha256sum FILES | sha256sum` reproduces. A link is hashed as its target path (as git stores
/// it), never followed; a file that cannot be read as the text `unreadable`.
pub(crate) fn set_sha256(root: &Utf8Path, set: &PathSet) -> Result<String, MendError> {
    Ok(digest_of(&file_digests(root, set)?))
}

/// Each test file and editable file of `task` under `repo` with its own SHA-256, as a record
/// keeps them from before its session (for `mend apply`, and to name what changed since).
pub(crate) fn test_and_editable_digests(
    repo: &Utf8Path,
    task: &Task,
) -> Result<BTreeMap<String, String>, MendError> {
    let mut digests = file_digests(repo, &task.test.files)?;
    digests.extend(file_digests(repo, &task.editable)?);
    Ok(digests)
}

/// Each file of `set` under `root` with its own SHA-256 (path → hex).
pub(crate) fn file_digests(
    root: &Utf8Path,
    set: &PathSet,
) -> Result<BTreeMap<String, String>, MendError> {
    let files = set
        .files_in(root)
        .map_err(|err| MendError::harness(format!("cannot list {root}: {err}")))?;
    files
        .into_iter()
        .map(|file| file_sha256(root, &file).map(|digest| (file, digest)))
        .collect()
}

/// The digest of a set given each file's own digest (path → hex), by the rule above.
pub(crate) fn digest_of(digests: &BTreeMap<String, String>) -> String {
    if let (1, Some(only)) = (digests.len(), digests.values().next()) {
        return only.clone();
    }
    let manifest: String = digests
        .iter()
        .map(|(file, digest)| format!("{digest}  {file}\n"))
        .collect();
    atomic::sha256_hex(manifest.as_bytes())
}

/// The SHA-256 of one file of the repository, as lowercase hex, by the rule of [`set_sha256`].
/// Read in pieces, so a huge file costs no memory.
pub(crate) fn file_sha256(root: &Utf8Path, relative: &str) -> Result<String, MendError> {
    let path = root.join(relative);
    let failed = |err: io::Error| MendError::harness(format!("cannot read {path}: {err}"));
    let meta = fs::symlink_metadata(&path).map_err(failed)?;
    if meta.is_symlink() {
        let target = fs::read_link(&path).map_err(failed)?;
        return Ok(atomic::sha256_hex(target.as_os_str().as_encoded_bytes()));
    }
    let mut file = match File::open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
            return Ok(atomic::sha256_hex(UNREADABLE_MARK))
        }
        Err(err) => return Err(failed(err)),
    };
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(failed)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// What one path holds, as the diff shows it.
#[derive(Debug, PartialEq, Eq)]
enum Side {
    Missing,
    Text(String),
    /// A link, by its target.
    Link(String),
    /// Not shown line by line: binary, too big, or unreadable; compared by digest.
    Opaque {
        digest: String,
        why: Opaque,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opaque {
    Binary,
    Large,
    Unreadable,
}

fn side(root: &Utf8Path, relative: &str) -> Result<Side, MendError> {
    let path = root.join(relative);
    let failed = |err: io::Error| MendError::harness(format!("cannot read {path}: {err}"));
    let meta = match fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Side::Missing),
        Err(err) => return Err(failed(err)),
    };
    if meta.is_symlink() {
        let target = fs::read_link(&path).map_err(failed)?;
        return Ok(Side::Link(target.to_string_lossy().into_owned()));
    }
    let opaque = |why| file_sha256(root, relative).map(|digest| Side::Opaque { digest, why });
    if meta.len() > DIFF_TEXT_CAP_BYTES {
        return opaque(Opaque::Large);
    }
    let mut bytes = Vec::new();
    match File::open(&path).and_then(|mut file| file.read_to_end(&mut bytes)) {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
            return opaque(Opaque::Unreadable)
        }
        Err(err) => return Err(failed(err)),
    }
    if is_binary(&bytes) {
        return opaque(Opaque::Binary);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Side::Text(text)),
        Err(_) => opaque(Opaque::Binary),
    }
}

/// Whether bytes are binary as git decides (a NUL early on).
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// The diff of every file of `set` that differs between the original and the copy, in path
/// order; empty when nothing changed. A text file is `diff -u a/FILE b/FILE` (a file the run
/// created is diffed against nothing); a link is shown as its target, with git's header and
/// mode lines (`diff --git`, `new file mode 120000`); a binary file is one line, `Binary files
/// a/FILE and b/FILE differ`, as git and diff print it; a file too big to show or that cannot
/// be read is `Files a/FILE and b/FILE differ`.
#[cfg(test)]
pub(crate) fn unified_diff(
    original: &Utf8Path,
    copy: &Utf8Path,
    set: &PathSet,
) -> Result<String, MendError> {
    unified_diff_except(original, copy, set, &BTreeSet::new())
}

/// As [`unified_diff`], leaving out the files `environment` names: what the copy's set-up
/// wrote is the environment's, no part of the change.
pub(crate) fn unified_diff_except(
    original: &Utf8Path,
    copy: &Utf8Path,
    set: &PathSet,
    environment: &BTreeSet<String>,
) -> Result<String, MendError> {
    let listed = |root: &Utf8Path| {
        set.files_in(root)
            .map_err(|err| MendError::harness(format!("cannot list {root}: {err}")))
    };
    let files: BTreeSet<String> = listed(original)?.into_iter().chain(listed(copy)?).collect();
    let mut diff = String::new();
    for file in files.difference(environment) {
        let file = file.clone();
        let (before, after) = (side(original, &file)?, side(copy, &file)?);
        if before != after {
            diff.push_str(&section(&file, &before, &after));
        }
    }
    Ok(diff)
}

/// One file's part of the diff, for two sides that differ.
fn section(file: &str, before: &Side, after: &Side) -> String {
    let text_of = |side: &Side| match side {
        Side::Missing | Side::Opaque { .. } => String::new(),
        Side::Text(text) | Side::Link(text) => text.clone(),
    };
    let hunks = || {
        similar::TextDiff::from_lines(&text_of(before), &text_of(after))
            .unified_diff()
            .header(&format!("a/{file}"), &format!("b/{file}"))
            .to_string()
    };
    match (before, after) {
        (
            Side::Opaque {
                why: Opaque::Binary,
                ..
            },
            _,
        )
        | (
            _,
            Side::Opaque {
                why: Opaque::Binary,
                ..
            },
        ) => {
            format!("Binary files a/{file} and b/{file} differ\n")
        }
        (Side::Opaque { .. }, _) | (_, Side::Opaque { .. }) => {
            format!("Files a/{file} and b/{file} differ\n")
        }
        (Side::Link(_), _) | (_, Side::Link(_)) => {
            let mode = |side: &Side| match side {
                Side::Link(_) => "120000",
                _ => "100644",
            };
            let modes = match (before, after) {
                (Side::Missing, _) => format!("new file mode {}\n", mode(after)),
                (_, Side::Missing) => format!("deleted file mode {}\n", mode(before)),
                _ if mode(before) != mode(after) => {
                    format!("old mode {}\nnew mode {}\n", mode(before), mode(after))
                }
                _ => String::new(),
            };
            format!("diff --git a/{file} b/{file}\n{modes}{}", hunks())
        }
        _ => hunks(),
    }
}

/// The files a diff of [`unified_diff`] changes in a way a text patch cannot carry (links,
/// binary, huge or unreadable files), in order. A line outside a hunk never starts with these
/// words, so they cannot be mistaken for a changed line.
pub(crate) fn untextual_files(diff: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|line| {
            if let Some(rest) = line.strip_prefix("diff --git a/") {
                rest.split(" b/").next()
            } else {
                line.strip_prefix("Binary files a/")
                    .or_else(|| line.strip_prefix("Files a/"))
                    .and_then(|rest| rest.split(" and b/").next())
            }
        })
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests;
