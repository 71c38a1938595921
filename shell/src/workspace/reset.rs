//! Putting a used copy back to what it was when it was made, so the final independent run can
//! take place in the loop's own copy instead of a second full one.
//!
//! What changed is told by the entries' stamps ([`super::stamp`]): an entry whose stamp differs
//! is removed and copied again from the original; an entry without a stamp (anything the tests
//! or tools made) is removed.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;

use camino::Utf8Path;

use super::copy::{restore_folder, Copy, GitFolder};
use super::stamp::{Stamp, Stamps};
use crate::task::copy::Exclusion;

/// One reset in progress.
pub(super) struct Reset<'a> {
    pub original: &'a Utf8Path,
    pub exclude: &'a Exclusion,
    pub stamps: &'a mut Stamps,
    /// The paths removed or copied again, not in order.
    pub changed: Vec<String>,
    /// Where the copy's `.git` comes from.
    pub git: GitFolder<'a>,
}

impl Reset<'_> {
    /// Puts the folder `to` of the copy back to what the original's `from` holds; returns
    /// whether any of its entries was removed or made (so the caller puts its times back).
    pub(super) fn folder(
        &mut self,
        from: &Utf8Path,
        to: &Utf8Path,
        relative: &str,
    ) -> io::Result<bool> {
        let mut names = Vec::new();
        for entry in to.read_dir_utf8()? {
            names.push(entry?.file_name().to_owned());
        }
        let mut entries_changed = false;
        for name in names {
            let path = join(relative, &name);
            let target = to.join(&name);
            let source = match self.git.source_of(relative, &name) {
                Some(Some(folder)) => folder.to_owned(),
                _ => from.join(&name),
            };
            let meta = fs::symlink_metadata(&target)?;
            // Made under an exclusion that let it in (a final tree holds the held-out tests),
            // it is no part of a copy made under this one.
            let excluded = self.git.source_of(relative, &name).is_none()
                && self.exclude.excludes_entry(&path)
                && !self.exclude.shares_entry(&path);
            match self.stamps.get(&path) {
                _ if excluded => {
                    remove_all(&target)?;
                    self.stamps.remove(&path);
                    self.changed.push(path);
                    entries_changed = true;
                }
                Some(stamp) if meta.is_dir() && stamp.same_entry(&meta) => {
                    if *stamp == Stamp::of(&meta) {
                        if self.folder(&source, &target, &path)? {
                            self.put_back_folder(&source, &target, &path)?;
                        }
                    } else {
                        // The folder itself changed (its entries, mode or times): it may no
                        // longer be listable, so its owner's rights come first.
                        fs::set_permissions(&target, fs::Permissions::from_mode(0o700))?;
                        self.folder(&source, &target, &path)?;
                        self.put_back_folder(&source, &target, &path)?;
                    }
                }
                Some(stamp) if *stamp == Stamp::of(&meta) => {}
                _ => {
                    remove_all(&target)?;
                    self.stamps.remove(&path);
                    self.changed.push(path);
                    entries_changed = true;
                }
            }
        }
        let mut copy = Copy {
            original: self.original,
            exclude: self.exclude,
            skipped: Vec::new(),
            shared: Vec::new(),
            stamps: self.stamps,
            only_missing: true,
            made: Vec::new(),
            git: self.git,
        };
        match copy.tree(from, to, relative) {
            // The original's folder cannot be listed: the copy has it empty, as it was made.
            Err(err)
                if err.kind() == io::ErrorKind::PermissionDenied
                    && from.read_dir_utf8().is_err() => {}
            Err(err) => return Err(err),
            Ok(()) => {}
        }
        let made = copy.made;
        let entries_changed = entries_changed || !made.is_empty();
        self.changed.extend(made);
        Ok(entries_changed)
    }

    /// Gives the copy's folder `target` the times and mode of `source` again, and stamps it.
    fn put_back_folder(
        &mut self,
        source: &Utf8Path,
        target: &Utf8Path,
        path: &str,
    ) -> io::Result<()> {
        let meta = fs::symlink_metadata(source)?;
        let stamp = restore_folder(&File::open(target)?, &meta)?;
        self.stamps.insert(path.to_owned(), stamp);
        Ok(())
    }
}

fn join(relative: &str, name: &str) -> String {
    if relative.is_empty() {
        name.to_owned()
    } else {
        format!("{relative}/{name}")
    }
}

/// Removes `path` whatever the tests did to it: a folder they made unlistable or read-only is
/// opened up first. A link is removed, never followed.
fn remove_all(path: &Utf8Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if !meta.is_dir() {
        return fs::remove_file(path);
    }
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))?;
    for entry in path.read_dir_utf8()? {
        remove_all(entry?.path())?;
    }
    fs::remove_dir(path)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::time::{Duration, SystemTime};

    use camino::Utf8Path;

    use crate::task::copy::Exclusion;
    use crate::test_support::project;
    use crate::workspace::tests::entries;
    use crate::workspace::Workspace;

    /// (path, what it is) pairs.
    type Listing = Vec<(String, String)>;

    /// Every entry below `root` with its time and mode (links by target), and each file's text.
    fn state(root: &Utf8Path) -> (Listing, Listing) {
        let texts = entries(root)
            .into_iter()
            .filter(|(path, _)| root.join(path).is_file() && !root.join(path).is_symlink())
            .map(|(path, _)| {
                let text = fs::read_to_string(root.join(&path)).unwrap();
                (path, text)
            })
            .collect();
        (entries(root), texts)
    }

    #[test]
    fn a_reset_copy_is_a_fresh_copy_whatever_the_tests_did_and_only_what_changed_is_copied_again() {
        let (_dir, original) = project(&[
            ("pkg/core.py", "bug\n"),
            ("pkg/util.py", "util\n"),
            ("pkg/deep/data.txt", "data\n"),
            ("tests/test_core.py", "test\n"),
            ("target/debug/app", "binary\n"),
            ("target/debug/deps/libdep.rlib", "dependency\n"),
            ("node_modules/dep/index.js", "shared\n"),
            ("gone.txt", "deleted by the tests\n"),
        ]);
        symlink("pkg/util.py", original.join("link")).unwrap();
        let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        fs::File::options()
            .write(true)
            .open(original.join("pkg/util.py"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let exclude = Exclusion::defaults();
        let mut copy =
            Workspace::copy_of(&original, &exclude, &crate::task::History::None).unwrap();
        let root = copy.root().to_owned();
        let fresh = state(&root);

        // Rewritten with the same size and its modification time put back: only its ctime
        // tells.
        fs::write(root.join("pkg/util.py"), "UTIL\n").unwrap();
        fs::File::options()
            .write(true)
            .open(root.join("pkg/util.py"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        fs::write(root.join("conftest.py"), "planted\n").unwrap();
        fs::create_dir_all(root.join("pkg/__pycache__")).unwrap();
        fs::write(root.join("pkg/__pycache__/core.pyc"), "cache").unwrap();
        fs::remove_file(root.join("gone.txt")).unwrap();
        fs::write(root.join("target/debug/app"), "rebuilt by the tests\n").unwrap();
        fs::write(root.join("target/debug/new.o"), "new\n").unwrap();
        fs::set_permissions(
            root.join("tests/test_core.py"),
            fs::Permissions::from_mode(0o777),
        )
        .unwrap();
        fs::remove_file(root.join("link")).unwrap();
        symlink("/etc/passwd", root.join("link")).unwrap();
        fs::remove_dir_all(root.join("pkg/deep")).unwrap();
        fs::write(root.join("pkg/deep"), "a file where a folder was").unwrap();
        fs::set_permissions(root.join("pkg"), fs::Permissions::from_mode(0o000)).unwrap();

        let changed = copy.reset(&original, &exclude).unwrap();
        assert_eq!(
            (state(copy.root()), changed),
            (
                fresh,
                Some(
                    [
                        "conftest.py",
                        "gone.txt",
                        "link",
                        "pkg/__pycache__",
                        "pkg/deep",
                        "pkg/util.py",
                        "target/debug/app",
                        "target/debug/new.o",
                        "tests/test_core.py",
                    ]
                    .map(str::to_owned)
                    .to_vec()
                )
            )
        );
        // A reset copy is reset again from where it now stands; nothing changed, nothing done.
        assert_eq!(copy.reset(&original, &exclude).unwrap(), Some(Vec::new()));
    }

    #[test]
    fn a_reset_under_a_narrower_exclusion_removes_what_it_now_leaves_out() {
        let (_dir, original) = project(&[
            ("pkg/core.py", "bug\n"),
            ("tests/held_out/test_new.py", "held out\n"),
            ("tests/test_old.py", "kept\n"),
        ]);
        let wide = Exclusion::new(Vec::new()).unwrap();
        let narrow = Exclusion::new(vec!["tests/held_out".to_owned()]).unwrap();
        let mut used = Workspace::copy_of(&original, &wide, &crate::task::History::None).unwrap();
        let fresh = Workspace::copy_of(&original, &narrow, &crate::task::History::None).unwrap();
        let changed = used.reset(&original, &narrow).unwrap();
        assert_eq!(
            (state(used.root()), changed),
            (state(fresh.root()), Some(vec!["tests/held_out".to_owned()]))
        );
    }
}
