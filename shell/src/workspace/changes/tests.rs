use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;

use camino::{Utf8Path, Utf8PathBuf};

use super::*;
use crate::task::PathSet;
use crate::test_support::make_fifo;

fn everything() -> PathSet {
    PathSet::new(vec!["**".to_owned()]).unwrap()
}

fn root_of(dir: &tempfile::TempDir) -> Utf8PathBuf {
    Utf8Path::from_path(dir.path()).unwrap().to_owned()
}

fn write(root: &Utf8Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// A package in the shape of a real one: text, a PNG-like binary, a link to a folder, a broken
/// link, a link out of the repository, a FIFO, and a big generated file.
fn project(root: &Utf8Path) {
    write(root, "pkg/core.py", b"def f():\n    return 1\n");
    write(root, "pkg/data/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(root, "docs/index.md", b"# docs\n");
    symlink("../docs", root.join("pkg/docs")).unwrap();
    symlink("missing.py", root.join("pkg/broken.py")).unwrap();
    symlink("/etc/hostname", root.join("pkg/outside")).unwrap();
    make_fifo(&root.join("pkg/pipe"));
    let big = fs::File::create(root.join("pkg/big.bin")).unwrap();
    big.set_len(DIFF_TEXT_CAP_BYTES + 1).unwrap();
}

fn sha(bytes: &[u8]) -> String {
    atomic::sha256_hex(bytes)
}

#[test]
fn every_kind_of_file_has_a_digest_and_a_fifo_is_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_of(&dir);
    project(&root);
    let expected: BTreeMap<String, String> = [
        ("docs/index.md", sha(b"# docs\n")),
        (
            "pkg/big.bin",
            sha(&vec![0; (DIFF_TEXT_CAP_BYTES + 1) as usize]),
        ),
        ("pkg/broken.py", sha(b"missing.py")),
        ("pkg/core.py", sha(b"def f():\n    return 1\n")),
        ("pkg/data/logo.png", sha(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")),
        ("pkg/docs", sha(b"../docs")),
        ("pkg/outside", sha(b"/etc/hostname")),
    ]
    .into_iter()
    .map(|(path, digest)| (path.to_owned(), digest))
    .collect();
    assert_eq!(file_digests(&root, &everything()).unwrap(), expected);
}

#[test]
fn a_diff_shows_text_as_lines_links_as_targets_and_binary_files_as_one_line() {
    let (before, after) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (original, copy) = (root_of(&before), root_of(&after));
    project(&original);
    project(&copy);
    assert_eq!(unified_diff(&original, &copy, &everything()).unwrap(), "");

    write(&copy, "pkg/core.py", b"def f():\n    return 2\n");
    write(
        &copy,
        "pkg/data/logo.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0",
    );
    write(&copy, "pkg/data/new.mo", b"\xde\x12\x04\x95\0\0");
    fs::remove_file(copy.join("pkg/docs")).unwrap();
    symlink("../other", copy.join("pkg/docs")).unwrap();
    symlink("core.py", copy.join("pkg/alias.py")).unwrap();
    fs::remove_file(copy.join("pkg/broken.py")).unwrap();
    fs::OpenOptions::new()
        .append(true)
        .open(copy.join("pkg/big.bin"))
        .unwrap()
        .write_all(b"x")
        .unwrap();

    let diff = unified_diff(&original, &copy, &everything()).unwrap();
    assert_eq!(
        diff,
        "\
diff --git a/pkg/alias.py b/pkg/alias.py
new file mode 120000
--- a/pkg/alias.py
+++ b/pkg/alias.py
@@ -0,0 +1 @@
+core.py
\\ No newline at end of file
Files a/pkg/big.bin and b/pkg/big.bin differ
diff --git a/pkg/broken.py b/pkg/broken.py
deleted file mode 120000
--- a/pkg/broken.py
+++ b/pkg/broken.py
@@ -1 +0,0 @@
-missing.py
\\ No newline at end of file
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,2 +1,2 @@
 def f():
-    return 1
+    return 2
Binary files a/pkg/data/logo.png and b/pkg/data/logo.png differ
Binary files a/pkg/data/new.mo and b/pkg/data/new.mo differ
diff --git a/pkg/docs b/pkg/docs
--- a/pkg/docs
+++ b/pkg/docs
@@ -1 +1 @@
-../docs
\\ No newline at end of file
+../other
\\ No newline at end of file
"
    );
    assert_eq!(
        untextual_files(&diff),
        [
            "pkg/alias.py",
            "pkg/big.bin",
            "pkg/broken.py",
            "pkg/data/logo.png",
            "pkg/data/new.mo",
            "pkg/docs"
        ]
    );
}

#[test]
fn a_link_that_replaces_a_file_says_so_in_its_modes() {
    let (before, after) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (original, copy) = (root_of(&before), root_of(&after));
    write(&original, "a.py", b"x = 1\n");
    symlink("b.py", copy.join("a.py")).unwrap();
    assert_eq!(
        unified_diff(&original, &copy, &everything()).unwrap(),
        "\
diff --git a/a.py b/a.py
old mode 100644
new mode 120000
--- a/a.py
+++ b/a.py
@@ -1 +1 @@
-x = 1
+b.py
\\ No newline at end of file
"
    );
}

#[test]
fn only_lines_outside_hunks_name_untextual_files() {
    let diff = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-Files a/x and b/x differ\n+Binary files a/y and b/y differ\n";
    assert_eq!(untextual_files(diff), Vec::<String>::new());
}
