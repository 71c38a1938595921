//! Files mend writes for the user (records, patches, applied edits): all or nothing, so a crash
//! or a kill at any moment leaves the old file or the whole new one. Also the SHA-256 hex form
//! every record uses.

use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt;

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
    let mut temporary = filled(dir, fill, &Durability::Synced)?;
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
    let dir = match path.parent() {
        Some(dir) if !dir.as_str().is_empty() => dir,
        _ => Utf8Path::new("."),
    };
    let temporary = filled(dir, fill, &durability)?;
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

/// A temporary file in `dir` (made first if missing) holding what `fill` wrote, on disk when
/// `durability` asks for it.
fn filled(
    dir: &Utf8Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    durability: &Durability,
) -> io::Result<NamedTempFile> {
    fs::create_dir_all(dir)?;
    let temporary = tempfile::Builder::new()
        .prefix(".mend-")
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)?;
    let mut writer = BufWriter::new(temporary.as_file());
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
