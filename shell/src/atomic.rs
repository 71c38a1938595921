//! Files mend writes for the user (records, patches, applied edits): all or nothing, so a crash
//! or a kill at any moment leaves the old file or the whole new one. Also the SHA-256 hex form
//! every record uses.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

use camino::{Utf8Path, Utf8PathBuf};
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;

/// The mode a new file asks for, which the user's umask narrows as for any file they create
/// (0644 under the usual 022), not the owner-only 0600 of a temporary file.
const NEW_FILE_MODE: u32 = 0o666;

/// Writes `path` through a temporary file in the same folder: `fill` writes the contents, which
/// are flushed to disk, then renamed over `path`, and the folder is synced. A file it replaces
/// keeps its permissions; a new one gets the umask's.
pub fn write_file(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write(path, fill, Durability::Synced)
}

/// The path that names standard output for an output flag (`-o -`, `--html -`).
pub const STANDARD_OUTPUT: &str = "-";

/// Writes output the user asked for by path (`--html OUT`, `-o FILE`): [`STANDARD_OUTPUT`] is
/// standard output, where a closed pipe ends the command quietly; any other path as
/// [`write_file`].
pub fn write_output(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if path != STANDARD_OUTPUT {
        return write_file(path, fill);
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let written = fill(&mut out).and_then(|()| out.flush());
    if let Err(err) = &written {
        crate::pipe::end_if_closed(err);
    }
    written
}

/// As [`write_file`], whole or not at all against a kill, but without waiting for the disk: for
/// files mend can make again from others (hundreds of pages of one report), where two syncs each
/// would be nearly all of the time.
pub fn write_derived_file(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write(path, fill, Durability::Renamed)
}

/// Writes a new file in `dir` under the first of `names` that no file holds yet, all or
/// nothing as [`write_file`], and returns its path. The name is taken by the rename itself
/// (no-clobber), so two writers racing for one name each get their own file, and nothing is
/// left under any name before the contents are whole.
pub fn write_new_file(
    dir: &Utf8Path,
    names: impl IntoIterator<Item = String>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Utf8PathBuf> {
    let mut temporary = filled(dir, &mut Some(fill), &Durability::Synced)?;
    for name in names {
        let path = dir.join(name);
        match temporary.persist_noclobber(&path) {
            Ok(_) => {
                File::open(dir)?.sync_all()?;
                return Ok(path);
            }
            Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => {
                temporary = err.file;
            }
            Err(err) => return Err(err.error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("every name mend tries in {dir} is taken"),
    ))
}

#[derive(PartialEq)]
enum Durability {
    Synced,
    Renamed,
}

fn write(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    durability: Durability,
) -> io::Result<()> {
    match destination(path) {
        Destination::File(file) => replace(&file, fill, durability),
        Destination::Through => write_through(path, fill),
    }
}

/// Where a write to `path` lands, as a Unix tool writing to it would see it.
enum Destination {
    /// A regular file (or none yet): replaced whole through a temporary file. A link to one is
    /// followed, so the link stays and its target gets the contents.
    File(Utf8PathBuf),
    /// A device, a FIFO, a socket, a descriptor link (`/dev/stdout`, `/proc/self/fd/N`) or a
    /// dangling link: opened and written, as `cat > PATH` would; renaming over it would replace
    /// the device or the link itself.
    Through,
}

fn destination(path: &Utf8Path) -> Destination {
    let Ok(entry) = fs::symlink_metadata(path) else {
        return Destination::File(path.to_owned());
    };
    if entry.file_type().is_file() {
        return Destination::File(path.to_owned());
    }
    if !entry.file_type().is_symlink() {
        // A folder is left to the rename, which fails with its own message.
        return match entry.is_dir() {
            true => Destination::File(path.to_owned()),
            false => Destination::Through,
        };
    }
    let followed_to_file = fs::metadata(path).is_ok_and(|target| target.is_file());
    match (
        followed_to_file,
        links_to_descriptor(path),
        path.canonicalize_utf8(),
    ) {
        (true, false, Ok(target)) => Destination::File(target),
        _ => Destination::Through,
    }
}

/// Whether any link on the way from `path` passes through `/proc` or `/dev`, where a link names
/// an open descriptor (`/dev/stdout` → `/proc/self/fd/1` → the shell's redirection): written
/// through, a `>>` or a pipe set up by the shell keeps working.
fn links_to_descriptor(path: &Utf8Path) -> bool {
    let mut hop = path.to_path_buf();
    // Linux follows at most 40 links in one path; a longer chain is no descriptor's.
    for _ in 0..40 {
        if hop.starts_with("/proc") || hop.starts_with("/dev") {
            return true;
        }
        let Ok(next) = fs::read_link(&hop) else {
            return false;
        };
        let Ok(next) = Utf8PathBuf::from_path_buf(next) else {
            return false;
        };
        hop = match (next.is_absolute(), hop.parent()) {
            (false, Some(parent)) => parent.join(next),
            _ => next,
        };
    }
    false
}

/// Opens `path` for writing (creating a link's missing target) and writes `fill` into it.
fn write_through(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(NEW_FILE_MODE)
        .open(path)?;
    let mut writer = BufWriter::new(file);
    let written = fill(&mut writer).and_then(|()| writer.flush());
    // A pipe whose reader left (`-o /proc/self/fd/1 | head`) ends the command as a closed
    // standard output does: quietly, by SIGPIPE, not with an error about the path.
    if let Err(err) = &written {
        crate::pipe::end_if_closed(err);
    }
    written
}

/// Replaces the regular file `path` whole: a temporary file in its folder, renamed over it. A
/// folder mend may not create a file in, holding a file it may write, gets the file written in
/// place, as any tool would.
fn replace(
    path: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    durability: Durability,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_str().is_empty() => dir,
        _ => Utf8Path::new("."),
    };
    let mut fill = Some(fill);
    let temporary = match filled(dir, &mut fill, &durability) {
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied && writable_file(path) => {
            return match fill.take() {
                Some(fill) => write_through(path, fill),
                None => Err(err),
            };
        }
        other => other?,
    };
    if let Ok(existing) = fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())?;
    }
    temporary.persist(path).map_err(|err| err.error)?;
    if durability == Durability::Synced {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// An existing regular file this process may open for writing.
fn writable_file(path: &Utf8Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_file())
        && OpenOptions::new().write(true).open(path).is_ok()
}

/// A temporary file in `dir` (made first if missing) holding what `fill` wrote, on disk when
/// `durability` asks for it.
fn filled<F: FnOnce(&mut dyn Write) -> io::Result<()>>(
    dir: &Utf8Path,
    fill: &mut Option<F>,
    durability: &Durability,
) -> io::Result<NamedTempFile> {
    fs::create_dir_all(dir)?;
    let temporary = tempfile::Builder::new()
        .prefix(".mend-")
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)?;
    let mut writer = BufWriter::new(temporary.as_file());
    // The fill is taken only once the temporary file exists, so a folder that refuses one
    // leaves it to the caller's fallback.
    let Some(fill) = fill.take() else {
        return Err(io::Error::other("the contents were already written"));
    };
    fill(&mut writer)?;
    writer.flush()?;
    drop(writer);
    if *durability == Durability::Synced {
        temporary.as_file().sync_all()?;
    }
    Ok(temporary)
}

/// The SHA-256 of the file at `path` as [`sha256_hex`] gives it; `None` when there is no file
/// to read.
pub(crate) fn sha256_of_file(path: &Utf8Path) -> Option<String> {
    fs::read(path).ok().map(|bytes| sha256_hex(&bytes))
}

/// The SHA-256 of `bytes`, as lowercase hex (64 characters, no prefix).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests;
