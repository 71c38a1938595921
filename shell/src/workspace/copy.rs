//! Copying the original's entries into the throwaway copy, stamping each one as it is made so
//! that a later [`super::reset`] can tell what changed since.

use std::fs::{self, File, FileTimes};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

use camino::Utf8Path;

use super::stamp::{Stamp, Stamps};
use crate::task::copy::Exclusion;
use crate::task::paths::{special_kind, Skipped};

/// One copy in progress.
pub(super) struct Copy<'a> {
    /// Absolute.
    pub original: &'a Utf8Path,
    pub exclude: &'a Exclusion,
    pub skipped: Vec<(String, Skipped)>,
    pub shared: Vec<String>,
    /// Every entry made, by path.
    pub stamps: &'a mut Stamps,
    /// Entries that already exist in the target folder are left as they are (a reset fills in
    /// only what it removed).
    pub only_missing: bool,
    /// With `only_missing`, the entries it made, by path.
    pub made: Vec<String>,
    /// Where the copy's own `.git` comes from.
    pub git: GitFolder<'a>,
}

/// Where the `.git` at the copy's root comes from (`copy.history`).
#[derive(Debug, Clone, Copy)]
pub(super) enum GitFolder<'a> {
    /// A clean `.git` built for the copy (see [`super::history`]).
    From(&'a Utf8Path),
    /// None: the copy has no `.git`.
    Absent,
}

impl<'a> GitFolder<'a> {
    /// Where the entry `name` of the copy's folder `relative` comes from when it is the
    /// root's `.git`: `Some(None)` when it is left out.
    pub(super) fn source_of(self, relative: &str, name: &str) -> Option<Option<&'a Utf8Path>> {
        if !relative.is_empty() || name != ".git" {
            return None;
        }
        Some(match self {
            GitFolder::From(folder) => Some(folder),
            GitFolder::Absent => None,
        })
    }
}

impl Copy<'_> {
    /// Copies the entries of the folder `from` into the existing folder `to`. Files and folders
    /// keep their modification times and permissions, so a build tool sees in the copy the
    /// same ages it sees in the original (a stale build output stays older than its source).
    pub(super) fn tree(
        &mut self,
        from: &Utf8Path,
        to: &Utf8Path,
        relative: &str,
    ) -> io::Result<()> {
        for entry in from.read_dir_utf8()? {
            let entry = entry?;
            let name = entry.file_name();
            let path = if relative.is_empty() {
                name.to_owned()
            } else {
                format!("{relative}/{name}")
            };
            let target = to.join(name);
            if self.only_missing && fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            if let Some(source) = self.git.source_of(relative, name) {
                if let Some(source) = source {
                    if self.only_missing {
                        self.made.push(path.clone());
                    }
                    self.folder(source, &target, &path)?;
                }
                continue;
            }
            let kind = entry.file_type()?;
            let shares = self.exclude.shares_entry(&path);
            if kind.is_dir() && shares {
                if self.only_missing {
                    self.made.push(path.clone());
                }
                std::os::unix::fs::symlink(self.original.join(&path), &target)?;
                self.stamp_link(&target, &path)?;
                self.shared.push(path);
                continue;
            }
            // A file a share names is copied: only folders are shared.
            if self.exclude.excludes_entry(&path) && !shares {
                continue;
            }
            if self.only_missing {
                self.made.push(path.clone());
            }
            if kind.is_dir() {
                self.folder(entry.path(), &target, &path)?;
            } else if kind.is_symlink() {
                // Copied as a link, not followed: the confinement check must see it for what it
                // is. (Its own time is not kept: std cannot set it, and tools follow links.)
                std::os::unix::fs::symlink(fs::read_link(entry.path())?, &target)?;
                self.stamp_link(&target, &path)?;
            } else if let Some(special) = special_kind(kind) {
                // Opening a FIFO blocks until someone writes to it, a device may never end.
                self.skipped.push((path, Skipped::Special(special)));
            } else {
                self.file(entry.path(), &target, &path)?;
            }
        }
        Ok(())
    }

    fn stamp_link(&mut self, target: &Utf8Path, path: &str) -> io::Result<()> {
        let meta = fs::symlink_metadata(target)?;
        self.stamps.insert(path.to_owned(), Stamp::of(&meta));
        Ok(())
    }

    pub(super) fn folder(
        &mut self,
        from: &Utf8Path,
        to: &Utf8Path,
        relative: &str,
    ) -> io::Result<()> {
        let meta = fs::symlink_metadata(from)?;
        fs::create_dir(to)?;
        // A folder just made is empty: all of it is made, and named as one entry.
        let only_missing = std::mem::replace(&mut self.only_missing, false);
        let filled = self.tree(from, to, relative);
        self.only_missing = only_missing;
        match filled {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::PermissionDenied && is_empty(to) => {
                // The original cannot be listed, so there is nothing to copy.
                self.skipped
                    .push((relative.to_owned(), Skipped::UnreadableFolder));
            }
            Err(err) => return Err(err),
        }
        let handle = File::open(to)?;
        self.stamps
            .insert(relative.to_owned(), restore_folder(&handle, &meta)?);
        Ok(())
    }

    fn file(&mut self, from: &Utf8Path, to: &Utf8Path, relative: &str) -> io::Result<()> {
        let meta = fs::symlink_metadata(from)?;
        let mut target = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(to)?;
        match File::open(from) {
            Ok(mut source) => {
                io::copy(&mut source, &mut target)?;
            }
            Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
                // Left empty, and as unreadable as the original: the tests see it exist and
                // fail to open it, as they would in place.
                self.skipped
                    .push((relative.to_owned(), Skipped::UnreadableFile));
            }
            Err(err) => return Err(err),
        }
        target.set_times(times_of(&meta)?)?;
        target.set_permissions(meta.permissions())?;
        self.stamps
            .insert(relative.to_owned(), Stamp::of(&target.metadata()?));
        Ok(())
    }
}

/// Gives the open folder `handle` the times and mode of the original's `meta`, and returns its
/// stamp. The owner keeps the right to list, change and delete the copy, or the copy could not
/// be cleaned up.
pub(super) fn restore_folder(handle: &File, meta: &fs::Metadata) -> io::Result<Stamp> {
    handle.set_times(times_of(meta)?)?;
    handle.set_permissions(fs::Permissions::from_mode(
        meta.permissions().mode() | 0o700,
    ))?;
    Ok(Stamp::of(&handle.metadata()?))
}

fn times_of(meta: &fs::Metadata) -> io::Result<FileTimes> {
    Ok(FileTimes::new()
        .set_accessed(meta.accessed()?)
        .set_modified(meta.modified()?))
}

fn is_empty(folder: &Utf8Path) -> bool {
    folder
        .read_dir_utf8()
        .is_ok_and(|mut entries| entries.next().is_none())
}
