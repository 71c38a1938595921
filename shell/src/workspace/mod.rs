//! The throwaway copy every attempt works on. Which of its paths a tool may touch is decided in
//! [`crate::access`].

pub(crate) mod changes;
mod copy;
pub(crate) mod final_tree;
pub(crate) mod held_out;
pub(crate) mod history;
mod reset;
pub(crate) mod share;
pub(crate) mod shared_writes;
pub(crate) mod stamp;
pub(crate) mod survey;

use std::io;
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

use crate::error::MendError;
use crate::task::copy::Exclusion;
use crate::task::paths::Skipped;
use crate::task::History;
use copy::{Copy, GitFolder};
use history::{clean_history, CleanHistory};
use reset::Reset;
use stamp::{settle, Stamps};

/// A temporary copy of a repository, deleted on drop unless kept.
pub struct Workspace {
    dir: TempDir,
    root: Utf8PathBuf,
    skipped: Vec<(String, Skipped)>,
    shared: Vec<String>,
    copy_time: Duration,
    /// Every entry as the copy made it, for [`Workspace::reset`].
    stamps: Stamps,
    /// Whether the clock moved past every stamp before the copy was handed over.
    settled: bool,
    /// The clean `.git` the copy's comes from (`None`: the copy has none); boxed, so that a
    /// workspace stays small to move.
    history: Option<Box<CleanHistory>>,
}

impl Workspace {
    /// Copies `original` into a fresh temporary directory, leaving out what `exclude` names,
    /// with the `.git` `history` says (see [`history`]). A folder it shares is a link to the
    /// original's (see [`share`]): the sandbox shows it read-only, and no tool follows a link
    /// out of the copy. The original is only read.
    pub fn copy_of(
        original: &Utf8Path,
        exclude: &Exclusion,
        history: &History,
    ) -> Result<Workspace, MendError> {
        let started = Instant::now();
        let clean = match history {
            History::Base(base) => clean_history(original, base, exclude)?.map(Box::new),
            History::None => None,
        };
        Workspace::try_copy(original, exclude, clean, started).map_err(|err| {
            MendError::harness(format!(
                "cannot copy {original} to a temporary workspace: {err}"
            ))
        })
    }

    fn try_copy(
        original: &Utf8Path,
        exclude: &Exclusion,
        history: Option<Box<CleanHistory>>,
        started: Instant,
    ) -> io::Result<Workspace> {
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
        let mut stamps = Stamps::new();
        let mut copy = Copy {
            original,
            exclude,
            skipped: Vec::new(),
            shared: Vec::new(),
            stamps: &mut stamps,
            only_missing: false,
            made: Vec::new(),
            git: git_folder(history.as_deref()),
        };
        copy.tree(original, &root, "")?;
        let (mut skipped, mut shared) = (copy.skipped, copy.shared);
        skipped.sort_by(|a, b| a.0.cmp(&b.0));
        shared.sort();
        let settled = settle(&root)?;
        Ok(Workspace {
            dir,
            root,
            skipped,
            shared,
            copy_time: started.elapsed(),
            stamps,
            settled,
            history,
        })
    }

    /// Puts the copy back to what a fresh copy of `original` (made with the same `exclude`)
    /// would be: every entry changed since it was made is copied again, every entry added is
    /// removed; the original is only read. Returns the paths put back or removed, sorted, and
    /// `None`, having touched nothing, when changes cannot be told apart here (the clock did not
    /// move): the caller then makes a fresh copy. A reset copy can be reset again.
    pub fn reset(
        &mut self,
        original: &Utf8Path,
        exclude: &Exclusion,
    ) -> io::Result<Option<Vec<String>>> {
        if !self.settled {
            return Ok(None);
        }
        let original = &original.canonicalize_utf8()?;
        let git = git_folder(self.history.as_deref());
        let mut reset = Reset {
            original,
            exclude,
            stamps: &mut self.stamps,
            changed: Vec::new(),
            git,
        };
        reset.folder(original, &self.root, "")?;
        let mut changed = reset.changed;
        changed.sort();
        // An entry removed and made again is named once.
        changed.dedup();
        self.settled = settle(&self.root)?;
        Ok(Some(changed))
    }

    /// The copy's folder: the tools and the tests work there.
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

    /// What the copy's `.git` holds, in words for the record.
    pub fn history(&self) -> String {
        self.history.as_deref().map_or_else(
            || "none (no .git in the copy)".to_owned(),
            CleanHistory::describe,
        )
    }

    /// How long making the copy took.
    pub fn copy_time(&self) -> Duration {
        self.copy_time
    }

    /// Says how long making the copy took when it was made another way (a used copy put back).
    pub fn set_copy_time(&mut self, time: Duration) {
        self.copy_time = time;
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

    /// What becomes of the copy once its last run is over: kept when `keep` (and where), else
    /// deleted. A copy that cannot be deleted is named on stderr with the fix and the command
    /// goes on: its verdict is already made.
    pub fn keep_or_delete(self, keep: bool) -> Left {
        if keep {
            return Left::Kept(self.keep());
        }
        let root = self.root.clone();
        let started = Instant::now();
        if let Err(err) = self.remove() {
            eprintln!("mend: cannot delete the temporary copy {root}: {err} — delete it by hand");
        }
        Left::Deleted(started.elapsed())
    }
}

/// What a copy came to ([`Workspace::keep_or_delete`]).
pub enum Left {
    /// Kept for the user to look into (`--keep-workspace`), at this folder.
    Kept(Utf8PathBuf),
    /// Deleted (or named on stderr for the user to delete), taking this long.
    Deleted(Duration),
}

fn git_folder(history: Option<&CleanHistory>) -> GitFolder<'_> {
    match history {
        Some(history) => GitFolder::From(&history.git),
        None => GitFolder::Absent,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::fs;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::time::{Duration, SystemTime};

    use camino::Utf8Path;

    use super::Workspace;
    use crate::task::copy::Exclusion;
    use crate::task::paths::Skipped;
    use crate::test_support::{make_fifo, project};

    /// (relative path, modification time, mode) of every entry below `root`, links by target.
    pub(crate) fn entries(root: &Utf8Path) -> Vec<(String, String)> {
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

        let copy = Workspace::copy_of(
            original,
            &Exclusion::defaults(),
            &crate::task::History::None,
        )
        .unwrap();
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
        let copy = Workspace::copy_of(&original, &exclude, &crate::task::History::None).unwrap();
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
