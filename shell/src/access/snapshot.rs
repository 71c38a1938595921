//! The protected files of a tree as they are now, to be put back after a command that could
//! write anything (the `shell` tool): its writes cannot be checked one by one beforehand, so
//! what it did to a test file or to test configuration is undone afterwards, and named.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use camino::Utf8Path;

use super::{protected_files, Protected};
use crate::task::Task;

/// One protected file as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kept {
    File { bytes: Vec<u8>, mode: u32 },
    Link(PathBuf),
}

/// The protected files of a tree at one moment.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// `None`: there, but unreadable.
    kept: Vec<(String, Option<Kept>)>,
}

/// A protected file a command changed, created or removed, now as it was before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Restored {
    pub path: String,
    pub protected: Protected,
}

impl Snapshot {
    pub(crate) fn take(task: &Task, root: &Utf8Path) -> io::Result<Snapshot> {
        let kept = protected_files(task, root)?
            .into_iter()
            .map(|(path, _)| {
                let was = read(&root.join(&path)).ok();
                (path, was)
            })
            .collect();
        Ok(Snapshot { kept })
    }

    /// Puts back every protected file that differs from the snapshot, removes the protected
    /// files that were not there, and says which, sorted by path. A file that was unreadable
    /// is left as it is. The folders on the way are made real folders again first, so a link
    /// the command put in their place cannot carry the restore out of the tree.
    pub(crate) fn restore(&self, task: &Task, root: &Utf8Path) -> io::Result<Vec<Restored>> {
        let mut restored = Vec::new();
        for (path, was) in &self.kept {
            let Some(was) = was else { continue };
            let place = root.join(path);
            real_folders(root, path)?;
            if read(&place).ok().as_ref() != Some(was) {
                remove(&place)?;
                write(&place, was)?;
                restored.push(path.clone());
            }
        }
        for (path, _) in protected_files(task, root)? {
            if !self.kept.iter().any(|(kept, _)| *kept == path) {
                remove(&root.join(&path))?;
                restored.push(path);
            }
        }
        restored.sort();
        Ok(restored
            .into_iter()
            .filter_map(|path| {
                super::protection(task, &path).map(|protected| Restored { path, protected })
            })
            .collect())
    }
}

/// Makes every folder above `relative` a real folder inside `root`: a link or a file in the
/// way is removed (never followed) and a folder made in its place.
fn real_folders(root: &Utf8Path, relative: &str) -> io::Result<()> {
    let mut folder = root.to_owned();
    let parts: Vec<&str> = relative.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        folder.push(part);
        match fs::symlink_metadata(&folder) {
            Ok(meta) if meta.is_dir() => continue,
            Ok(_) => fs::remove_file(&folder)?,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
        }
        fs::create_dir(&folder)?;
    }
    Ok(())
}

fn read(path: &Utf8Path) -> io::Result<Kept> {
    let meta = fs::symlink_metadata(path)?;
    if meta.is_symlink() {
        return Ok(Kept::Link(fs::read_link(path)?));
    }
    Ok(Kept::File {
        bytes: fs::read(path)?,
        mode: meta.permissions().mode(),
    })
}

fn write(path: &Utf8Path, kept: &Kept) -> io::Result<()> {
    match kept {
        Kept::Link(target) => std::os::unix::fs::symlink(target, path),
        Kept::File { bytes, mode } => {
            fs::write(path, bytes)?;
            fs::set_permissions(path, fs::Permissions::from_mode(*mode))
        }
    }
}

/// Removes whatever is at `path` now, a folder included; nothing there is fine.
fn remove(path: &Utf8Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
    }
}
