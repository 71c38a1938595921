//! Files mend writes for the user (records, patches, applied edits): all or nothing, so a crash
//! or a kill at any moment leaves the old file or the whole new one. Also the SHA-256 hex form
//! every record uses.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};

use camino::Utf8Path;
use sha2::{Digest, Sha256};

/// Writes `path` through a temporary file in the same folder: `fill` writes the contents, which
/// are flushed to disk, then renamed over `path`, and the folder is synced. A file it replaces
/// keeps its permissions.
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
    fs::create_dir_all(dir)?;
    let temporary = tempfile::Builder::new().prefix(".mend-").tempfile_in(dir)?;
    if let Ok(existing) = fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())?;
    }
    let mut writer = BufWriter::new(temporary.as_file());
    fill(&mut writer)?;
    writer.flush()?;
    drop(writer);
    if durability == Durability::Synced {
        temporary.as_file().sync_all()?;
    }
    temporary.persist(path).map_err(|err| err.error)?;
    if durability == Durability::Synced {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The SHA-256 of `bytes`, as lowercase hex (64 characters, no prefix).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use camino::Utf8PathBuf;

    use super::*;

    /// Both ways of writing: the whole new contents with the old file's mode, or, when filling
    /// fails, the old file untouched and no temporary left behind.
    #[test]
    fn a_write_replaces_whole_or_not_at_all() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).expect("utf-8");
        let mut outcomes = Vec::new();
        let writer = |path: &Utf8Path, fill: &dyn Fn(&mut dyn Write) -> io::Result<()>| {
            if path.as_str().ends_with("derived") {
                write_derived_file(path, fill)
            } else {
                write_file(path, fill)
            }
        };
        for name in ["synced", "derived"] {
            let path = folder.join(name);
            fs::write(&path, "old").expect("old file");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("mode");
            let failed = writer(&path, &|file: &mut dyn Write| {
                file.write_all(b"half")?;
                Err(io::Error::other("disk full"))
            });
            let after_failure = fs::read_to_string(&path).expect("read");
            writer(&path, &|file: &mut dyn Write| file.write_all(b"new")).expect("write");
            let mode = fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
            outcomes.push((
                failed.is_err(),
                after_failure,
                fs::read_to_string(&path).expect("read"),
                mode,
            ));
        }
        let mut left: Vec<String> = fs::read_dir(&folder)
            .expect("list")
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let expected = (true, "old".to_owned(), "new".to_owned(), 0o640);
        assert_eq!(
            (outcomes, left),
            (
                vec![expected.clone(), expected],
                vec!["derived".to_owned(), "synced".to_owned()]
            )
        );
    }
}
