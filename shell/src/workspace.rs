//! The throwaway copy every attempt works on, and the disk-side check that a path stays inside
//! it. Which paths a tool may name is decided on the text first, in [`crate::task::paths`].

use std::fs;
use std::io;

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

use crate::error::MendError;

/// A temporary copy of a repository, deleted on drop unless kept.
pub struct Workspace {
    dir: TempDir,
    root: Utf8PathBuf,
}

impl Workspace {
    /// Copies `original` into a fresh temporary directory. The original is only read.
    pub fn copy_of(original: &Utf8Path) -> Result<Workspace, MendError> {
        Workspace::try_copy(original).map_err(|err| {
            MendError::harness(format!(
                "cannot copy {original} to a temporary workspace: {err}"
            ))
        })
    }

    fn try_copy(original: &Utf8Path) -> io::Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix("mend-workspace-")
            .tempdir()?;
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).map_err(|path| {
            io::Error::other(format!(
                "the temporary directory {} is not UTF-8",
                path.display()
            ))
        })?;
        copy_tree(original, &root)?;
        Ok(Workspace { dir, root })
    }

    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// Keeps the copy on disk after mend exits and returns where it is.
    pub fn keep(self) -> Utf8PathBuf {
        let _kept = self.dir.keep();
        self.root
    }
}

fn copy_tree(from: &Utf8Path, to: &Utf8Path) -> io::Result<()> {
    for entry in from.read_dir_utf8()? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::create_dir(&target)?;
            copy_tree(entry.path(), &target)?;
        } else if kind.is_symlink() {
            // Copied as a link, not followed: the confinement check must see it for what it is.
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Resolves an allowed relative path on disk and makes sure it stays inside `root`, following
/// symlinks. Returns the real path to open.
pub fn resolve_inside(root: &Utf8Path, relative: &str) -> Result<Utf8PathBuf, String> {
    let real_root = root
        .canonicalize_utf8()
        .map_err(|err| format!("the workspace is not readable: {err}"))?;
    let real = root
        .join(relative)
        .canonicalize_utf8()
        .map_err(|err| format!("`{relative}` cannot be opened: {err}"))?;
    if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(format!(
            "`{relative}` is a link that leads out of the repository; it cannot be opened"
        ))
    }
}
