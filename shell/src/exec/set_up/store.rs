//! The kept result of a set-up: `.mend/setup/<key>/` holds the files it wrote (`files/`), each
//! one's digest (`manifest`, `sha256sum` lines) and the steps' whole output (`log`). It is made
//! in a folder beside and renamed into place whole, so a set-up cut short is never reused.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime};

use camino::{Utf8Path, Utf8PathBuf};

use super::Manifest;
use crate::atomic::sha256_hex;
use crate::error::MendError;
use crate::workspace::changes::file_sha256;

const FILES: &str = "files";
const MANIFEST: &str = "manifest";
const LOG: &str = "log";

/// The key of a set-up: its steps, what else it depends on (the interpreter, the image), and
/// every file of the original by path, size, modification time and mode (its `.git` and
/// `.mend` aside: the files are what a set-up reads).
pub(super) fn key(steps: &[String], original: &Utf8Path, context: &[&str]) -> io::Result<String> {
    let mut text = String::new();
    for part in steps
        .iter()
        .map(String::as_str)
        .chain(context.iter().copied())
    {
        text.push_str(part);
        text.push('\0');
    }
    listing(original, "", &mut text)?;
    Ok(sha256_hex(text.as_bytes()))
}

fn listing(root: &Utf8Path, relative: &str, text: &mut String) -> io::Result<()> {
    let mut entries: Vec<(String, fs::Metadata)> = Vec::new();
    for entry in fs::read_dir(root.join(relative))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if relative.is_empty() && matches!(name.as_str(), ".git" | crate::mend_folder::FOLDER) {
            continue;
        }
        entries.push((name, entry.metadata()?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, meta) in entries {
        let path = if relative.is_empty() {
            name
        } else {
            format!("{relative}/{name}")
        };
        text.push_str(&format!(
            "{path}\0{}\0{}.{}\0{:o}\n",
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.mode()
        ));
        if meta.is_dir() {
            listing(root, &path, text)?;
        }
    }
    Ok(())
}

pub(super) fn log_path(store: &Utf8Path, key: &str) -> Utf8PathBuf {
    store.join(key).join(LOG)
}

/// The kept result's files copied into `workdir`, or `None` when there is none or one of its
/// files is not what the set-up wrote.
pub(super) fn reuse(
    store: &Utf8Path,
    key: &str,
    workdir: &Utf8Path,
) -> Result<Option<BTreeSet<String>>, MendError> {
    let kept = store.join(key);
    let Ok(text) = fs::read_to_string(kept.join(MANIFEST)) else {
        return Ok(None);
    };
    let manifest: Manifest = text
        .lines()
        .filter_map(|line| line.split_once("  "))
        .map(|(digest, path)| (path.to_owned(), digest.to_owned()))
        .collect();
    let files = kept.join(FILES);
    for (path, digest) in &manifest {
        if file_sha256(&files, path).ok().as_ref() != Some(digest) {
            return Ok(None);
        }
    }
    // Used now: a prune of results nobody used lately passes it by.
    let _ = fs::File::open(&kept).and_then(|folder| folder.set_modified(SystemTime::now()));
    for path in manifest.keys() {
        place(&files, workdir, path).map_err(|err| {
            MendError::harness(format!(
                "cannot copy the set-up's {path} from {files} into the copy: {err}"
            ))
        })?;
    }
    Ok(Some(manifest.into_keys().collect()))
}

/// Keeps what a set-up wrote in `workdir` (`written`) with its log, replacing any older result.
pub(super) fn keep(
    store: &Utf8Path,
    key: &str,
    workdir: &Utf8Path,
    written: &BTreeSet<String>,
    log: &str,
) -> Result<(), MendError> {
    let failed = |err: io::Error| {
        MendError::harness(format!("cannot keep the set-up's result in {store}: {err}"))
    };
    let staging = staging(store).map_err(failed)?;
    let files = staging.join(FILES);
    let mut manifest = String::new();
    for path in written {
        place(workdir, &files, path).map_err(failed)?;
        manifest.push_str(&format!("{}  {path}\n", file_sha256(&files, path)?));
    }
    fs::write(staging.join(MANIFEST), manifest).map_err(failed)?;
    fs::write(staging.join(LOG), log).map_err(failed)?;
    let kept = store.join(key);
    if kept.exists() {
        fs::remove_dir_all(&kept).map_err(failed)?;
    }
    match fs::rename(&staging, &kept) {
        Ok(()) => {}
        // Another worker kept the same result first.
        Err(_) if kept.join(MANIFEST).exists() => fs::remove_dir_all(&staging).map_err(failed)?,
        Err(err) => return Err(failed(err)),
    }
    prune(store, key, SystemTime::now());
    Ok(())
}

/// How long a kept result nobody reused stays. Every change to the original makes a new key,
/// so old results pile up; one is worth keeping only while its original may come back (a
/// branch checked out again, another task's interpreter on the same original), which a week
/// of disuse makes unlikely. Pruning by age rather than by original keeps each of several
/// tasks that share a records folder their own result.
const UNUSED_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// Removes the kept results (and failed logs) other than `key`'s that were last made or used
/// before `now - UNUSED_FOR`. Best effort: a result it cannot remove stays for the next prune.
fn prune(store: &Utf8Path, key: &str, now: SystemTime) {
    let Some(stale_before) = now.checked_sub(UNUSED_FOR) else {
        return;
    };
    for entry in fs::read_dir(store).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let result = name.strip_suffix(".failed.log").unwrap_or(&name);
        // A staging folder left by a set-up that was killed ages like a result.
        if result == key {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.modified().is_ok_and(|used| used < stale_before) {
            let _ = if meta.is_dir() {
                fs::remove_dir_all(entry.path())
            } else {
                fs::remove_file(entry.path())
            };
        }
    }
}

/// The log of a set-up that failed, kept beside the results; the path it was written to.
pub(super) fn keep_log(store: &Utf8Path, key: &str, log: &str) -> Utf8PathBuf {
    let path = store.join(format!("{key}.failed.log"));
    let _ = made(store).and_then(|()| fs::write(&path, log));
    path
}

/// The store's folder (and `.mend/` above it with its `.gitignore`).
fn made(store: &Utf8Path) -> io::Result<()> {
    if let Some(records) = store.parent().and_then(Utf8Path::parent) {
        crate::mend_folder::made(records)?;
    }
    fs::create_dir_all(store)
}

/// A new folder beside the results.
fn staging(store: &Utf8Path) -> io::Result<Utf8PathBuf> {
    made(store)?;
    let dir = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(store)?;
    Utf8PathBuf::from_path_buf(dir.keep())
        .map_err(|path| io::Error::other(format!("{} is not UTF-8", path.display())))
}

/// Copies `path` from under `from` to under `to`: a file with its mode, a link as a link.
fn place(from: &Utf8Path, to: &Utf8Path, path: &str) -> io::Result<()> {
    let (source, target) = (from.join(path), to.join(path));
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent)?;
    }
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(&target)?,
        Ok(_) => fs::remove_file(&target)?,
        Err(_) => {}
    }
    if fs::symlink_metadata(&source)?.is_symlink() {
        std::os::unix::fs::symlink(fs::read_link(&source)?, &target)
    } else {
        fs::copy(&source, &target).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::{Duration, SystemTime};

    use camino::Utf8Path;

    use super::prune;

    #[test]
    fn a_prune_removes_the_results_unused_for_a_week_but_never_the_one_just_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Utf8Path::from_path(dir.path()).unwrap();
        let now = SystemTime::now();
        let day = Duration::from_secs(24 * 3600);
        for (name, age) in [
            ("kept-now", 8),
            ("used-yesterday", 1),
            ("unused", 8),
            ("unused.failed.log", 9),
            ("failed-lately.failed.log", 2),
            (".staging-abandoned", 30),
        ] {
            let path = store.join(name);
            if name.ends_with(".log") {
                fs::write(&path, "log").unwrap();
            } else {
                fs::create_dir(&path).unwrap();
                fs::write(path.join("manifest"), "").unwrap();
            }
            fs::File::open(&path)
                .unwrap()
                .set_modified(now - day * age)
                .unwrap();
        }
        prune(store, "kept-now", now);
        let mut left: Vec<String> = fs::read_dir(store)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["failed-lately.failed.log", "kept-now", "used-yesterday"]
        );
    }
}
