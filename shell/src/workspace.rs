//! The throwaway copy every attempt works on, and the rules for which paths a tool may touch.
//!
//! The policy is decided on the path text first (a pure function, like codex's `safety.rs`), and
//! only then checked against the disk, where a symlink could still lead out of the copy.

use std::fs;
use std::io;

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

/// A temporary copy of a repository, deleted on drop unless kept.
pub struct Workspace {
    dir: TempDir,
    root: Utf8PathBuf,
}

impl Workspace {
    /// Copies `original` into a fresh temporary directory. The original is only read.
    pub fn copy_of(original: &Utf8Path) -> io::Result<Workspace> {
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

/// Why a path given by the model was refused, before the disk was touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRefusal {
    Empty,
    Absolute,
    LeavesWorkspace,
    NotAllowed,
}

/// Decides on the text alone whether `path` names one of `allowed` (relative, forward slashes).
/// `./` prefixes and repeated slashes are tolerated; `..`, absolute paths and backslashes are not.
pub fn allowed_path<'a>(path: &str, allowed: &[&'a str]) -> Result<&'a str, PathRefusal> {
    if path.trim().is_empty() {
        return Err(PathRefusal::Empty);
    }
    if path.starts_with('/') || path.starts_with('\\') || path.get(1..2) == Some(":") {
        return Err(PathRefusal::Absolute);
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathRefusal::LeavesWorkspace),
            part if part.contains('\\') => return Err(PathRefusal::NotAllowed),
            part => parts.push(part),
        }
    }
    let normal = parts.join("/");
    allowed
        .iter()
        .find(|candidate| **candidate == normal)
        .copied()
        .ok_or(PathRefusal::NotAllowed)
}

impl PathRefusal {
    /// The message the model gets: what was wrong and what it may use instead.
    pub fn explain(&self, path: &str, allowed: &[&str]) -> String {
        let options = allowed.join(", ");
        match self {
            PathRefusal::Empty => format!("the path is empty; use one of: {options}"),
            PathRefusal::Absolute => {
                format!("`{path}` is absolute; use a relative path, one of: {options}")
            }
            PathRefusal::LeavesWorkspace => {
                format!("`{path}` leaves the repository; use one of: {options}")
            }
            PathRefusal::NotAllowed => format!("`{path}` is not allowed; use one of: {options}"),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: [&str; 2] = ["path_rules.py", "tests/test_path_rules.py"];

    #[test]
    fn the_allowlist_is_decided_on_the_text() {
        let cases: [(&str, Result<&str, PathRefusal>); 10] = [
            ("path_rules.py", Ok("path_rules.py")),
            ("./path_rules.py", Ok("path_rules.py")),
            ("tests//test_path_rules.py", Ok("tests/test_path_rules.py")),
            ("", Err(PathRefusal::Empty)),
            ("/etc/passwd", Err(PathRefusal::Absolute)),
            ("C:/x.py", Err(PathRefusal::Absolute)),
            ("tests/../path_rules.py", Err(PathRefusal::LeavesWorkspace)),
            ("../secrets", Err(PathRefusal::LeavesWorkspace)),
            ("tests\\test_path_rules.py", Err(PathRefusal::NotAllowed)),
            ("README.md", Err(PathRefusal::NotAllowed)),
        ];
        for (path, expected) in cases {
            assert_eq!(allowed_path(path, &ALLOWED), expected, "{path}");
        }
    }
}
