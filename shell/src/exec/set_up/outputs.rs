//! Which files of a copy the set-up wrote: those whose change time is at or past the moment it
//! started. A change time cannot be set back (a copy keeps modification times, an install may
//! too), so a file the set-up made or rewrote always shows, and one the copy made before never
//! does.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;

use camino::Utf8Path;

use crate::error::MendError;

/// A file change time, as the file system keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Moment(i64, i64);

const PROBE: &str = ".mend-set-up-probe";

impl Moment {
    /// The file system's clock, read from a file made in `folder`, once it has moved past the
    /// time of every file already there (the clock file times use ticks coarsely, and the
    /// copy was made an instant before).
    pub(super) fn now(folder: &Utf8Path) -> Result<Moment, MendError> {
        let failed = |err: io::Error| {
            MendError::harness(format!("cannot read the clock of files in {folder}: {err}"))
        };
        let probe = folder.join(PROBE);
        let read = || -> io::Result<Moment> {
            fs::write(&probe, b"")?;
            let meta = fs::metadata(&probe)?;
            fs::remove_file(&probe)?;
            Ok(Moment(meta.ctime(), meta.ctime_nsec()))
        };
        let first = read().map_err(failed)?;
        loop {
            let next = read().map_err(failed)?;
            if next > first {
                return Ok(next);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// The files and links under `root` changed at or after `since`, relative to it. The copy's
/// `.git` is mend's own and left out; links are not followed.
pub(super) fn written_since(
    root: &Utf8Path,
    since: &Moment,
) -> Result<BTreeSet<String>, MendError> {
    let mut found = BTreeSet::new();
    walk(root, "", since, &mut found).map_err(|err| {
        MendError::harness(format!(
            "cannot list what the set-up wrote in {root}: {err}"
        ))
    })?;
    Ok(found)
}

fn walk(
    root: &Utf8Path,
    relative: &str,
    since: &Moment,
    found: &mut BTreeSet<String>,
) -> io::Result<()> {
    for entry in fs::read_dir(root.join(relative))? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if relative.is_empty() && name == ".git" {
            continue;
        }
        let path = if relative.is_empty() {
            name
        } else {
            format!("{relative}/{name}")
        };
        let meta = entry.metadata()?;
        if meta.is_dir() {
            walk(root, &path, since, found)?;
        } else if Moment(meta.ctime(), meta.ctime_nsec()) >= *since {
            found.insert(path);
        }
    }
    Ok(())
}
