//! The throwaway copy every attempt works on, and the disk-side check that a path stays inside
//! it. Which paths a tool may name is decided on the text first, in [`crate::task::paths`].

pub mod changes;
pub mod final_tree;
pub mod interpreter;
pub mod process;
pub mod runner;
pub mod sandbox;
pub mod share;
pub mod survey;
pub mod test_run;
pub mod toolchain;

use std::fs::{self, File, FileTimes};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

use crate::error::MendError;
use crate::task::copy::Exclusion;
use crate::task::paths::{special_kind, Skipped};

/// A temporary copy of a repository, deleted on drop unless kept.
pub struct Workspace {
    dir: TempDir,
    root: Utf8PathBuf,
    skipped: Vec<(String, Skipped)>,
    shared: Vec<String>,
    copy_time: Duration,
}

impl Workspace {
    /// Copies `original` into a fresh temporary directory, leaving out what `exclude` names. A
    /// folder it shares is a link to the original's (see [`share`]): the sandbox shows it
    /// read-only, and no tool follows a link out of the copy. The original is only read.
    pub fn copy_of(original: &Utf8Path, exclude: &Exclusion) -> Result<Workspace, MendError> {
        Workspace::try_copy(original, exclude).map_err(|err| {
            MendError::harness(format!(
                "cannot copy {original} to a temporary workspace: {err}"
            ))
        })
    }

    fn try_copy(original: &Utf8Path, exclude: &Exclusion) -> io::Result<Workspace> {
        let started = Instant::now();
        // A shared folder's link names it by its absolute path: it must hold from anywhere.
        let original = &original.canonicalize_utf8()?;
        let dir = tempfile::Builder::new()
            .prefix("mend-workspace-")
            .tempdir()?;
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).map_err(|path| {
            io::Error::other(format!(
                "the temporary directory {} is not UTF-8",
                path.display()
            ))
        })?;
        let mut copy = Copy {
            original,
            exclude,
            skipped: Vec::new(),
            shared: Vec::new(),
        };
        copy.tree(original, &root, "")?;
        copy.skipped.sort_by(|a, b| a.0.cmp(&b.0));
        copy.shared.sort();
        Ok(Workspace {
            dir,
            root,
            skipped: copy.skipped,
            shared: copy.shared,
            copy_time: started.elapsed(),
        })
    }

    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// What the copy could not carry over as it is, by path.
    pub fn skipped(&self) -> &[(String, Skipped)] {
        &self.skipped
    }

    /// The folders shared with the original rather than copied, by path.
    pub fn shared(&self) -> &[String] {
        &self.shared
    }

    /// How long making the copy took.
    pub fn copy_time(&self) -> Duration {
        self.copy_time
    }

    /// Deletes the copy now and says how long that took (dropping it deletes it too, untimed).
    pub fn remove(self) -> io::Result<Duration> {
        let started = Instant::now();
        self.dir.close()?;
        Ok(started.elapsed())
    }

    /// Keeps the copy on disk after mend exits and returns where it is.
    pub fn keep(self) -> Utf8PathBuf {
        let _kept = self.dir.keep();
        self.root
    }
}

/// One copy in progress.
struct Copy<'a> {
    /// Absolute.
    original: &'a Utf8Path,
    exclude: &'a Exclusion,
    skipped: Vec<(String, Skipped)>,
    shared: Vec<String>,
}

impl Copy<'_> {
    /// Copies the entries of the folder `from` into the existing folder `to`. Files and folders
    /// keep their modification times and permissions, so a build tool sees in the copy the
    /// same ages it sees in the original (a stale build output stays older than its source).
    fn tree(&mut self, from: &Utf8Path, to: &Utf8Path, relative: &str) -> io::Result<()> {
        for entry in from.read_dir_utf8()? {
            let entry = entry?;
            let name = entry.file_name();
            let path = if relative.is_empty() {
                name.to_owned()
            } else {
                format!("{relative}/{name}")
            };
            let target = to.join(name);
            let kind = entry.file_type()?;
            let shares = self.exclude.shares_entry(&path);
            if kind.is_dir() && shares {
                std::os::unix::fs::symlink(self.original.join(&path), &target)?;
                self.shared.push(path);
                continue;
            }
            // A file a share names is copied: only folders are shared.
            if self.exclude.excludes_entry(&path) && !shares {
                continue;
            }
            if kind.is_dir() {
                self.folder(entry.path(), &target, &path)?;
            } else if kind.is_symlink() {
                // Copied as a link, not followed: the confinement check must see it for what it
                // is. (Its own time is not kept: std cannot set it, and tools follow links.)
                std::os::unix::fs::symlink(fs::read_link(entry.path())?, &target)?;
            } else if let Some(special) = special_kind(kind) {
                // Opening a FIFO blocks until someone writes to it, a device may never end.
                self.skipped.push((path, Skipped::Special(special)));
            } else {
                self.file(entry.path(), &target, &path)?;
            }
        }
        Ok(())
    }

    fn folder(&mut self, from: &Utf8Path, to: &Utf8Path, relative: &str) -> io::Result<()> {
        let meta = fs::symlink_metadata(from)?;
        fs::create_dir(to)?;
        match self.tree(from, to, relative) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::PermissionDenied && is_empty(to) => {
                // The original cannot be listed, so there is nothing to copy.
                self.skipped
                    .push((relative.to_owned(), Skipped::UnreadableFolder));
            }
            Err(err) => return Err(err),
        }
        let handle = File::open(to)?;
        handle.set_times(times_of(&meta)?)?;
        // The owner keeps the right to list, change and delete the copy, or the copy could
        // not be cleaned up.
        handle.set_permissions(fs::Permissions::from_mode(
            meta.permissions().mode() | 0o700,
        ))
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
        target.set_permissions(meta.permissions())
    }
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

/// Resolves an allowed relative path on disk and makes sure it stays inside `root`, following
/// symlinks. Returns the real path to open.
pub fn resolve_inside(root: &Utf8Path, relative: &str) -> Result<Utf8PathBuf, String> {
    let real_root = root
        .canonicalize_utf8()
        .map_err(|err| format!("the workspace is not readable: {err}"))?;
    let named = root.join(relative);
    let real = named.canonicalize_utf8().map_err(|err| {
        match (err.kind(), fs::read_link(&named)) {
            (io::ErrorKind::NotFound, Ok(target)) => format!(
                "`{relative}` is a link to `{}`, which does not exist (a broken link); it cannot be opened",
                target.display()
            ),
            (io::ErrorKind::NotFound, Err(_)) => format!("`{relative}` does not exist"),
            _ => format!("`{relative}` cannot be opened: {err}"),
        }
    })?;
    if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(format!(
            "`{relative}` is a link that leads out of the repository; it cannot be opened"
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::time::{Duration, SystemTime};

    use camino::Utf8Path;

    use super::Workspace;
    use crate::task::copy::Exclusion;
    use crate::task::paths::Skipped;
    use crate::test_support::{make_fifo, project};

    /// (relative path, modification time, mode) of every entry below `root`, links by target.
    fn entries(root: &Utf8Path) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut pending = vec![root.to_owned()];
        while let Some(folder) = pending.pop() {
            for entry in folder.read_dir_utf8().unwrap() {
                let entry = entry.unwrap();
                let relative = entry.path().strip_prefix(root).unwrap().to_string();
                let meta = fs::symlink_metadata(entry.path()).unwrap();
                let shown = if meta.is_symlink() {
                    format!("-> {}", fs::read_link(entry.path()).unwrap().display())
                } else {
                    format!(
                        "{:?} {:o}",
                        meta.modified().unwrap(),
                        meta.permissions().mode() & 0o7777
                    )
                };
                if meta.is_dir() {
                    pending.push(entry.path().to_owned());
                }
                seen.push((relative, shown));
            }
        }
        seen.sort();
        seen
    }

    #[test]
    fn the_copy_keeps_times_permissions_and_links_and_leaves_caches_out() {
        let dir = tempfile::tempdir().unwrap();
        let original = Utf8Path::from_path(dir.path()).unwrap();
        let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        for (file, mode) in [
            ("src/lib.rs", 0o644),
            ("run.sh", 0o755),
            ("locked.txt", 0o400),
            ("target/debug/demo", 0o755),
        ] {
            let path = original.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, file).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            fs::File::options()
                .write(true)
                .open(&path)
                .or_else(|_| fs::File::open(&path))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        for cache in [
            "src/__pycache__/lib.pyc",
            ".pytest_cache/v/x",
            "deep/.mypy_cache/y",
        ] {
            let path = original.join(cache);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "cache").unwrap();
        }
        symlink("../src", original.join("target/src")).unwrap();
        symlink("nowhere", original.join("broken")).unwrap();
        make_fifo(&original.join("src/pipe"));
        fs::set_permissions(original.join("target"), fs::Permissions::from_mode(0o555)).unwrap();
        for folder in ["src", "target/debug", "target"] {
            fs::File::open(original.join(folder))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }

        let copy = Workspace::copy_of(original, &Exclusion::defaults()).unwrap();
        let mut expected: Vec<(String, String)> = entries(original)
            .into_iter()
            .filter(|(path, _)| !path.contains("cache") && path != "src/pipe")
            .collect();
        // A folder's owner keeps the right to change and delete the copy.
        for (path, shown) in &mut expected {
            if path == "target" {
                *shown = shown.replace(" 555", " 755");
            }
        }
        // A folder keeps its time even when a cache inside it was left out.
        assert_eq!(entries(copy.root()), expected);
        assert_eq!(
            copy.skipped(),
            [("src/pipe".to_owned(), Skipped::Special("FIFO (named pipe)"))]
        );
        assert_eq!(
            fs::read_to_string(copy.root().join("locked.txt")).unwrap(),
            "locked.txt"
        );
        fs::set_permissions(original.join("target"), fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn an_exclusion_the_task_names_replaces_the_defaults() {
        let (_dir, original) = project(&[
            ("data/raw/big.csv", "x"),
            ("data/small.csv", "x"),
            ("__pycache__/x.pyc", "x"),
        ]);
        let exclude = Exclusion::new(vec!["data/raw".to_owned()]).unwrap();
        let copy = Workspace::copy_of(&original, &exclude).unwrap();
        let paths: Vec<String> = entries(copy.root())
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(
            paths,
            ["__pycache__", "__pycache__/x.pyc", "data", "data/small.csv"]
        );
    }
}
