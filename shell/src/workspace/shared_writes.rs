//! Writes into the folders a copy shares with the original instead of copying (a venv,
//! `node_modules`). Inside bubblewrap they are shown read-only; without it a test run could write
//! through the link into the original — a `.pth` in the project's own `.venv`, which every later
//! Python process runs at start, before pytest or mend's witness. Every entry of those folders is
//! stamped before the loop (see [`super::stamp`]) and compared after the final run.

use std::collections::BTreeSet;
use std::fs;
use std::io;

use camino::{Utf8Path, Utf8PathBuf};

use crate::workspace::stamp::{Stamp, Stamps};

/// How many written entries are named; the count says how many more there were.
const NAMED_ENTRIES: usize = 10;

/// The shared folders' entries as they were before the loop.
pub struct SharedStamps {
    original: Utf8PathBuf,
    folders: Vec<String>,
    stamps: Stamps,
}

impl SharedStamps {
    /// Stamps every entry of `folders` (paths from the root of `original`, as
    /// [`super::Workspace::shared`] lists them), not following links.
    pub fn take(original: &Utf8Path, folders: &[String]) -> io::Result<SharedStamps> {
        let stamps = walk(original, folders)?;
        Ok(SharedStamps {
            original: original.to_owned(),
            folders: folders.to_vec(),
            stamps,
        })
    }

    /// The entries added, changed or removed since, by path from the original's root, sorted;
    /// the first few, then how many more.
    pub fn written_since(&self) -> io::Result<Vec<String>> {
        let now = walk(&self.original, &self.folders)?;
        let mut written: BTreeSet<&String> = now
            .iter()
            .filter(|(path, stamp)| self.stamps.get(*path) != Some(stamp))
            .map(|(path, _)| path)
            .collect();
        written.extend(self.stamps.keys().filter(|path| !now.contains_key(*path)));
        let more = written.len().saturating_sub(NAMED_ENTRIES);
        let mut named: Vec<String> = written.into_iter().take(NAMED_ENTRIES).cloned().collect();
        if more > 0 {
            named.push(format!("and {more} more"));
        }
        Ok(named)
    }
}

fn walk(original: &Utf8Path, folders: &[String]) -> io::Result<Stamps> {
    let mut stamps = Stamps::new();
    let mut pending: Vec<String> = folders.to_vec();
    while let Some(path) = pending.pop() {
        let meta = match fs::symlink_metadata(original.join(&path)) {
            Ok(meta) => meta,
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(err),
        };
        stamps.insert(path.clone(), Stamp::of(&meta));
        if meta.is_dir() {
            for entry in original.join(&path).read_dir_utf8()? {
                pending.push(format!("{path}/{}", entry?.file_name()));
            }
        }
    }
    Ok(stamps)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::SharedStamps;
    use crate::test_support::project;

    #[test]
    fn an_entry_added_changed_or_removed_in_a_shared_folder_is_named() {
        let (_dir, original) = project(&[
            (".venv/lib/site-packages/pkg/__init__.py", "x = 1\n"),
            (".venv/lib/site-packages/old.pth", "/elsewhere\n"),
            (".venv/pyvenv.cfg", "home = /usr\n"),
            ("src/app.py", "not shared\n"),
        ]);
        let stamps = SharedStamps::take(&original, &[".venv".to_owned()]).unwrap();
        assert_eq!(stamps.written_since().unwrap(), Vec::<String>::new());
        // The clock must move on for a status-change time to differ.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let site = original.join(".venv/lib/site-packages");
        fs::write(site.join("zz_mend.pth"), "import evil\n").unwrap();
        fs::write(site.join("pkg/__init__.py"), "x = 2\n").unwrap();
        fs::remove_file(site.join("old.pth")).unwrap();
        fs::write(original.join("src/app.py"), "changed, but copied\n").unwrap();
        assert_eq!(
            stamps.written_since().unwrap(),
            [
                ".venv/lib/site-packages",
                ".venv/lib/site-packages/old.pth",
                ".venv/lib/site-packages/pkg/__init__.py",
                ".venv/lib/site-packages/zz_mend.pth",
            ]
        );
    }
}
