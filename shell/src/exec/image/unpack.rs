//! Layers applied to a root, bottom first, as a container runtime would see them stacked: a
//! whiteout (`.wh.NAME`) deletes what a lower layer put there, an opaque marker (`.wh..wh..opq`)
//! empties its folder of everything lower. The layers come from outside, so every entry is
//! checked here before anything is written: a path that climbs out with `..` or a link that
//! leads above the root refuses the image; a symlink already in the root is followed only inside
//! it, as `/` inside the image (so `etc -> /` then `etc/passwd` writes the root's own
//! `etc/passwd`); a size over the cap is refused from its header, before a byte is written.
//! Device files are skipped (an unprivileged user cannot make them, and tests need none).

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs::{self, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tar::EntryType;

const WHITEOUT: &[u8] = b".wh.";
const OPAQUE: &[u8] = b".wh..wh..opq";
/// Symlinks followed while resolving one path, as Linux's own limit.
const MAX_LINKS: usize = 40;
/// Mode bits kept: permissions and the sticky bit. Set-user and set-group bits are dropped: the
/// files belong to whoever unpacked them, so the bits could only grant that user's own rights.
const KEPT_MODE: u32 = 0o1777;
/// Folders stay the owner's to write, so later layers and `mend images prune` can change them.
const FOLDER_OWNER: u32 = 0o700;

/// Most an image may claim: one file, and all files together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_file: u64,
    pub max_total: u64,
}

pub(crate) const LIMITS: Limits = Limits {
    max_file: 4 << 30,
    max_total: 64 << 30,
};

/// Why a layer was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The layer itself is malformed or hostile: the image is refused.
    Hostile(String),
    /// This machine could not read or write something.
    Io(String),
    /// The registry failed while a layer was fetched (worded with the reference and the fix).
    Fetch(String),
    /// Ctrl-C cut the pull or the unpack.
    Interrupted,
}

impl From<io::Error> for Refusal {
    fn from(err: io::Error) -> Refusal {
        // A blob that failed its digest surfaces as an error of the reader.
        if err.kind() == io::ErrorKind::InvalidData {
            Refusal::Hostile(err.to_string())
        } else {
            Refusal::Io(err.to_string())
        }
    }
}

/// Applies layers to one root, counting what they claim.
pub(crate) struct Unpacker<'a> {
    root: &'a Path,
    limits: Limits,
    claimed: u64,
    /// Device files and FIFOs left out.
    pub skipped: u64,
}

impl<'a> Unpacker<'a> {
    pub(crate) fn new(root: &'a Path, limits: Limits) -> Unpacker<'a> {
        Unpacker {
            root,
            limits,
            claimed: 0,
            skipped: 0,
        }
    }

    /// Applies one layer, gzip- or zstd-compressed or plain, read to its end.
    pub(crate) fn apply(&mut self, layer: &mut dyn Read) -> Result<(), Refusal> {
        let mut buffered = BufReader::with_capacity(1 << 16, layer);
        let head = buffered.fill_buf().map_err(unreadable)?;
        let mut archive: tar::Archive<Box<dyn Read + '_>> = if head.starts_with(&[0x1f, 0x8b]) {
            tar::Archive::new(Box::new(flate2::bufread::MultiGzDecoder::new(buffered)))
        } else if head.starts_with(&super::zstd_layer::MAGIC) {
            tar::Archive::new(Box::new(super::zstd_layer::ZstdFrames::new(buffered)))
        } else {
            tar::Archive::new(Box::new(buffered))
        };
        // What this layer wrote: an opaque marker empties its folder of the lower layers only.
        let mut written = HashSet::new();
        for entry in archive.entries().map_err(unreadable)? {
            self.entry(&mut entry.map_err(unreadable)?, &mut written)?;
        }
        // The rest of the stream (tar padding, the gzip trailer) still counts for the digest.
        io::copy(&mut archive.into_inner(), &mut io::sink()).map_err(unreadable)?;
        Ok(())
    }

    fn entry<R: Read>(
        &mut self,
        entry: &mut tar::Entry<R>,
        written: &mut HashSet<PathBuf>,
    ) -> Result<(), Refusal> {
        let raw = entry.path_bytes().into_owned();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let parts = parts(&raw, &shown)?;
        let Some((name, parent)) = parts.split_last() else {
            return Ok(()); // the root itself
        };
        self.claim(entry, &shown)?;
        let folder = resolve(self.root, parent, &shown)?;
        if name.as_bytes() == OPAQUE {
            return empty_below(&folder, written);
        }
        if let Some(hidden) = name.as_bytes().strip_prefix(WHITEOUT) {
            if hidden.is_empty() || hidden == b"." || hidden == b".." {
                return Err(Refusal::Hostile(format!(
                    "its whiteout `{shown}` names no file"
                )));
            }
            return remove_any(&folder.join(OsStr::from_bytes(hidden)));
        }
        let kind = entry.header().entry_type();
        if matches!(kind, EntryType::Char | EntryType::Block | EntryType::Fifo) {
            self.skipped += 1;
            return Ok(());
        }
        fs::create_dir_all(&folder)?;
        let target = folder.join(name);
        let existing = fs::symlink_metadata(&target).ok();
        if !(kind == EntryType::Directory && existing.as_ref().is_some_and(fs::Metadata::is_dir))
            && existing.is_some()
        {
            remove_any(&target)?;
        }
        self.write(entry, kind, &target, &shown)?;
        written.insert(target);
        Ok(())
    }

    /// Refuses a size over the caps from the header alone (a sparse file's claim included).
    fn claim<R: Read>(&mut self, entry: &tar::Entry<R>, shown: &str) -> Result<(), Refusal> {
        let header = entry.header();
        let sparse = header
            .as_gnu()
            .filter(|_| header.entry_type() == EntryType::GNUSparse)
            .and_then(|gnu| gnu.real_size().ok())
            .unwrap_or(0);
        let size = entry
            .size()
            .max(header.entry_size().unwrap_or(0))
            .max(sparse);
        if size > self.limits.max_file {
            return Err(Refusal::Hostile(format!(
                "its file `{shown}` claims {size} bytes, more than the {} mend unpacks for one file",
                self.limits.max_file
            )));
        }
        self.claimed += size;
        if self.claimed > self.limits.max_total {
            return Err(Refusal::Hostile(format!(
                "its files claim more than the {} bytes mend unpacks for one image",
                self.limits.max_total
            )));
        }
        Ok(())
    }

    fn write<R: Read>(
        &mut self,
        entry: &mut tar::Entry<R>,
        kind: EntryType,
        target: &Path,
        shown: &str,
    ) -> Result<(), Refusal> {
        let mode = entry.header().mode().unwrap_or(0o644) & KEPT_MODE;
        match kind {
            EntryType::Directory => {
                if !target.is_dir() {
                    fs::create_dir(target)?;
                }
                fs::set_permissions(target, fs::Permissions::from_mode(mode | FOLDER_OWNER))?;
            }
            EntryType::Symlink => {
                let link = entry.link_name_bytes().ok_or_else(|| {
                    Refusal::Hostile(format!("its symlink `{shown}` has no target"))
                })?;
                // Kept as written: inside the sandbox `/` is the image's root.
                symlink(OsStr::from_bytes(&link), target)?;
            }
            EntryType::Link => {
                let link = entry.link_name_bytes().ok_or_else(|| {
                    Refusal::Hostile(format!("its hard link `{shown}` has no target"))
                })?;
                let link_shown = String::from_utf8_lossy(&link).into_owned();
                let link_parts = parts(&link, &link_shown)?;
                let Some((name, parent)) = link_parts.split_last() else {
                    return Err(Refusal::Hostile(format!(
                        "its hard link `{shown}` points at the root"
                    )));
                };
                let source = resolve(self.root, parent, &link_shown)?.join(name);
                match fs::symlink_metadata(&source) {
                    Ok(meta) if !meta.is_dir() => fs::hard_link(&source, target)?,
                    _ => {
                        return Err(Refusal::Hostile(format!(
                            "its hard link `{shown}` points at `{link_shown}`, which no earlier entry made a file"
                        )))
                    }
                }
            }
            EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => {
                let mut file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(target)?;
                let mut buffer = vec![0; 1 << 16];
                loop {
                    let count = entry.read(&mut buffer).map_err(unreadable)?;
                    if count == 0 {
                        break;
                    }
                    io::Write::write_all(&mut file, &buffer[..count])?;
                }
                file.set_permissions(fs::Permissions::from_mode(mode))?;
                // Python's bytecode caches compare their source's time: keeping it keeps them valid.
                if let Ok(seconds) = entry.header().mtime() {
                    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))?;
                }
            }
            _ => self.skipped += 1,
        }
        Ok(())
    }
}

/// Reading the layer failed: its gzip, its tar or its digest is broken, whatever this machine
/// does (errors of writing the root are this machine's, [`Refusal::Io`]).
fn unreadable(err: io::Error) -> Refusal {
    Refusal::Hostile(if err.kind() == io::ErrorKind::InvalidData {
        err.to_string()
    } else {
        format!("a layer is not a tar mend can read ({err})")
    })
}

/// A layer path's parts; `..` anywhere refuses the image (no tool that builds images writes it).
fn parts(raw: &[u8], shown: &str) -> Result<Vec<OsString>, Refusal> {
    let mut parts = Vec::new();
    for part in raw.split(|byte| *byte == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                return Err(Refusal::Hostile(format!(
                    "its layer holds `{shown}`, a path that climbs out of the image with `..`"
                )))
            }
            part => parts.push(OsStr::from_bytes(part).to_owned()),
        }
    }
    Ok(parts)
}

/// `parts` under `root`, every symlink met on the way followed as the image would see it — an
/// absolute one from the root, a relative one from its folder — and never above the root.
pub(crate) fn resolve(root: &Path, parts: &[OsString], shown: &str) -> Result<PathBuf, Refusal> {
    let mut done: Vec<OsString> = Vec::new();
    let mut pending: Vec<OsString> = parts.iter().rev().cloned().collect();
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match part.as_bytes() {
            b"" | b"." => continue,
            b".." => {
                if done.pop().is_none() {
                    return Err(Refusal::Hostile(format!(
                        "`{shown}` leads through a symlink above the image's root"
                    )));
                }
                continue;
            }
            _ => {}
        }
        let candidate: PathBuf = root
            .iter()
            .chain(done.iter().map(OsString::as_os_str))
            .chain([part.as_os_str()])
            .collect();
        let Ok(meta) = fs::symlink_metadata(&candidate) else {
            done.push(part);
            continue;
        };
        if !meta.file_type().is_symlink() {
            done.push(part);
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Err(Refusal::Hostile(format!(
                "`{shown}` leads through a loop of symlinks"
            )));
        }
        let target = fs::read_link(&candidate)?;
        if target.is_absolute() {
            done.clear();
        }
        pending.extend(
            target
                .as_os_str()
                .as_bytes()
                .split(|byte| *byte == b'/')
                .rev()
                .map(|part| OsStr::from_bytes(part).to_owned()),
        );
    }
    Ok(root
        .iter()
        .chain(done.iter().map(OsString::as_os_str))
        .collect())
}

/// Deletes whatever `path` is (never following it), if anything.
fn remove_any(path: &Path) -> Result<(), Refusal> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path)?,
        Ok(_) => fs::remove_file(path)?,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err.into()),
    }
    Ok(())
}

/// An opaque folder: everything in it that this layer did not write goes.
fn empty_below(folder: &Path, written: &HashSet<PathBuf>) -> Result<(), Refusal> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    for entry in entries {
        let path = entry?.path();
        if !written.contains(&path) {
            remove_any(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
