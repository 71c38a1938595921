//! What a run changed, in terms a record can keep and `mend apply` can check: the digest of a
//! set of files, and the unified diff of the editable files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use camino::Utf8Path;

use crate::atomic;
use crate::error::MendError;
use crate::task::PathSet;

/// The SHA-256 of the files of `set` under `root`. A set of exactly one file is hashed as that
/// file, so the digest is the one `sha256sum FILE` prints; any other set as the SHA-256 of its
/// `sha256sum`-style manifest (`<hex>  <path>` lines, sorted by path), which
/// `sha256sum FILES | sha256sum` reproduces.
pub fn set_sha256(root: &Utf8Path, set: &PathSet) -> Result<String, MendError> {
    Ok(digest_of(&file_digests(root, set)?))
}

/// Each file of `set` under `root` with its own SHA-256 (path → hex).
pub fn file_digests(root: &Utf8Path, set: &PathSet) -> Result<BTreeMap<String, String>, MendError> {
    let files = set
        .files_in(root)
        .map_err(|err| MendError::harness(format!("cannot list {root}: {err}")))?;
    files
        .into_iter()
        .map(|file| file_sha256(root, &file).map(|digest| (file, digest)))
        .collect()
}

/// The digest of a set given each file's own digest (path → hex), by the rule above.
pub fn digest_of(digests: &BTreeMap<String, String>) -> String {
    if let (1, Some(only)) = (digests.len(), digests.values().next()) {
        return only.clone();
    }
    let manifest: String = digests
        .iter()
        .map(|(file, digest)| format!("{digest}  {file}\n"))
        .collect();
    atomic::sha256_hex(manifest.as_bytes())
}

/// The SHA-256 of one file of the repository, as lowercase hex.
pub fn file_sha256(root: &Utf8Path, relative: &str) -> Result<String, MendError> {
    let path = root.join(relative);
    let bytes =
        fs::read(&path).map_err(|err| MendError::refused(format!("cannot read {path}: {err}")))?;
    Ok(atomic::sha256_hex(&bytes))
}

/// `diff -u a/FILE b/FILE` for every file of `set` that differs between the original and the
/// copy, in path order; a file the run created is diffed against nothing. Empty when nothing
/// changed.
pub fn unified_diff(
    original: &Utf8Path,
    copy: &Utf8Path,
    set: &PathSet,
) -> Result<String, MendError> {
    let listed = |root: &Utf8Path| {
        set.files_in(root)
            .map_err(|err| MendError::harness(format!("cannot list {root}: {err}")))
    };
    let files: BTreeSet<String> = listed(original)?.into_iter().chain(listed(copy)?).collect();
    let mut diff = String::new();
    for file in files {
        let read = |root: &Utf8Path| {
            let path = root.join(&file);
            match fs::read_to_string(&path) {
                Ok(text) => Ok(text),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
                Err(err) => Err(MendError::harness(format!("cannot read {path}: {err}"))),
            }
        };
        let (before, after) = (read(original)?, read(copy)?);
        if before != after {
            diff.push_str(
                &similar::TextDiff::from_lines(&before, &after)
                    .unified_diff()
                    .header(&format!("a/{file}"), &format!("b/{file}"))
                    .to_string(),
            );
        }
    }
    Ok(diff)
}
