//! The bytecode mirror where no sandbox shows it read-only (`--sandbox none`, a network
//! namespace alone), a mirror of its own beside those bubblewrap shows: the test run and the model's commands can write the mirror as they can
//! write everything the user can.
//!
//! Two writes would matter, and each is closed:
//! - Bytecode for a module of the installation (a planted `pytest` or `json`). Writing it there
//!   is no more than writing the installation itself, its sources or its own `__pycache__`, which
//!   the mirror copies: so the mirror is read only when every folder it mirrors is one the user
//!   may write ([`usable`]). An installation the user cannot write is read from source, as
//!   before, since its mirror would be the one part of it they could.
//! - Bytecode for a source of the copy's (a test module), or any file outside the installation.
//!   Python looks up `/a/b/m.py`'s bytecode at `MIRROR/a/b/m.TAG.pyc`, so such bytecode lies off
//!   the folders between the mirror's root and the installation's ([`Chain`]). Before a run
//!   what the mirror holds off them is removed, or the run reads no mirror
//!   ([`Chain::remove_strangers`]); and the folders of the chain are stamped before a final run and compared after it
//!   ([`ChainStamps`]): a test run that wrote bytecode there and removed it again still changed
//!   the folder it wrote in.

use std::fs;
use std::os::unix::fs::MetadataExt;

use camino::{Utf8Path, Utf8PathBuf};

use super::STAMP;

/// Whether the mirror of `folders` may be read by a run in `workdir` that no sandbox shields:
/// every folder is one `writable` says the user may write, and the copy (and the original, whose
/// files an editable install imports) lies outside all of them, so its bytecode would lie off
/// the chain.
pub(crate) fn usable(
    folders: &[Utf8PathBuf],
    (workdir, original): (&Utf8Path, Option<&Utf8Path>),
    writable: impl Fn(&Utf8Path) -> bool,
) -> bool {
    let inside = |place: &Utf8Path| folders.iter().any(|folder| place.starts_with(folder));
    !folders.is_empty()
        && folders.iter().all(|folder| writable(folder))
        && !inside(workdir)
        && !original.is_some_and(inside)
}

/// Whether this process may write `folder` (`access(2)`, which answers for root too).
pub(crate) fn user_may_write(folder: &Utf8Path) -> bool {
    let Ok(path) = std::ffi::CString::new(folder.as_str()) else {
        return false;
    };
    // SAFETY: `path` is a NUL-terminated string that lives through the call; `access` only reads it.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

/// The folders of a mirror between its root and the folders it mirrors, each with the names it
/// may hold: the next folder toward a mirrored one, and at the root the mirror's stamp.
pub(crate) struct Chain {
    links: Vec<(Utf8PathBuf, Vec<String>)>,
}

impl Chain {
    /// The chain of the mirror at `mirror` of `folders` (absolute paths).
    pub(crate) fn of(mirror: &Utf8Path, folders: &[Utf8PathBuf]) -> Chain {
        let mut links: Vec<(Utf8PathBuf, Vec<String>)> =
            vec![(mirror.to_owned(), vec![STAMP.to_owned()])];
        for folder in folders {
            let parts: Vec<&str> = folder.iter().skip(1).collect();
            let mut at = mirror.to_owned();
            for part in parts {
                let index = match links.iter().position(|(link, _)| *link == at) {
                    Some(index) => index,
                    None => {
                        links.push((at.clone(), Vec::new()));
                        links.len() - 1
                    }
                };
                let allowed = &mut links[index].1;
                if !allowed.iter().any(|name| name == part) {
                    allowed.push(part.to_owned());
                }
                at.push(part);
            }
        }
        // A mirrored folder's own entries are the installation's: it is no link of the chain.
        links.retain(|(link, _)| {
            !folders
                .iter()
                .any(|folder| *link == mirror.join(folder.strip_prefix("/").unwrap_or(folder)))
        });
        Chain { links }
    }

    /// What the chain's folders hold besides their own names, as the paths whose bytecode it
    /// would be (`/tmp/copy`), sorted.
    pub(crate) fn strangers(&self) -> Vec<String> {
        let root = &self.links[0].0;
        let mut found = Vec::new();
        for (link, allowed) in &self.links {
            let Ok(entries) = link.read_dir_utf8() else {
                continue;
            };
            for entry in entries.flatten() {
                if !allowed.iter().any(|name| name == entry.file_name()) {
                    let inside = entry.path().strip_prefix(root).unwrap_or(entry.path());
                    found.push(format!("/{inside}"));
                }
            }
        }
        found.sort();
        found
    }

    /// Removes what the chain's folders hold besides their own names.
    pub(crate) fn remove_strangers(&self) {
        for (link, allowed) in &self.links {
            let Ok(entries) = link.read_dir_utf8() else {
                continue;
            };
            for entry in entries.flatten() {
                if allowed.iter().any(|name| name == entry.file_name()) {
                    continue;
                }
                let _ = match entry.file_type() {
                    Ok(kind) if kind.is_dir() => fs::remove_dir_all(entry.path()),
                    _ => fs::remove_file(entry.path()),
                };
            }
        }
    }

    /// Whether the mirror holds nothing but the installation's bytecode and its stamp.
    pub(crate) fn holds_only_its_own(&self) -> bool {
        self.strangers().is_empty()
    }

    /// Each folder of the chain as it is now: a write in it, even one undone, changes its
    /// change time, which no one but root can set back.
    pub(crate) fn stamps(self) -> ChainStamps {
        let stamps = self.links.iter().map(|(link, _)| stamp(link)).collect();
        ChainStamps {
            chain: self,
            stamps,
        }
    }
}

/// A folder's identity and change time; `None` when it cannot be read.
fn stamp(folder: &Utf8Path) -> Option<(u64, u64, i64, i64)> {
    let meta = fs::symlink_metadata(folder).ok()?;
    Some((meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()))
}

/// The chain of a mirror as it stood when a run started.
pub(crate) struct ChainStamps {
    chain: Chain,
    stamps: Vec<Option<(u64, u64, i64, i64)>>,
}

impl ChainStamps {
    /// What was written into the chain since the stamps were taken: what it holds now that is
    /// not its own, else each of its folders that changed (a write undone), as the paths the
    /// bytecode would be of; empty when nothing was.
    pub(crate) fn written_since(&self) -> Vec<String> {
        let strangers = self.chain.strangers();
        if !strangers.is_empty() {
            return strangers;
        }
        let root = &self.chain.links[0].0;
        self.chain
            .links
            .iter()
            .zip(&self.stamps)
            .filter(|((link, _), then)| stamp(link) != **then)
            .map(|((link, _), _)| {
                let inside = link.strip_prefix(root).unwrap_or(link);
                format!("/{inside} (written and removed again)")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
