//! Patches made by `git diff` itself (and by `diff -u`) applied to the tree they were made
//! from must give exactly the tree they were made to.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use camino::Utf8Path;

use super::{apply_to_tree, parse};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.quotepath=true",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Every file under `dir` but `.git`: its text (a link's target) and whether it is executable.
fn tree(dir: &Path) -> BTreeMap<String, (String, bool)> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).expect("read dir").flatten() {
            let path = entry.path();
            let name = path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).expect("meta");
            if name == ".git" {
                continue;
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path)
                    .expect("link")
                    .to_string_lossy()
                    .into_owned();
                found.insert(name, (format!("-> {target}"), false));
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                let text = fs::read_to_string(&path).expect("text");
                found.insert(name, (text, meta.permissions().mode() & 0o100 != 0));
            }
        }
    }
    found
}

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

const LONG: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";

#[test]
fn what_git_diff_writes_applies_to_the_tree_it_was_made_from() {
    let repo = tempfile::tempdir().expect("temp");
    let dir = repo.path();
    git(dir, &["init", "-q"]);
    write(dir, "src/kept.py", LONG);
    write(dir, "src/dashes.py", "-- a/x\nkeep\n");
    write(dir, "gone.txt", "bye\n");
    write(dir, "old/name.py", &LONG.replace("7\n", "seven\n"));
    write(dir, "no_eol.txt", "a\nb");
    write(dir, "run.sh", "echo hi\n");
    write(dir, "caf\u{e9}.py", "x = 1\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    let base = tempfile::tempdir().expect("temp");
    git(
        dir,
        &["archive", "--format=tar", "-o", "../base.tar", "HEAD"],
    );
    Command::new("tar")
        .args(["-xf"])
        .arg(dir.join("../base.tar"))
        .current_dir(base.path())
        .status()
        .expect("tar");

    write(
        dir,
        "src/kept.py",
        &LONG
            .replace("2\n", "two\n")
            .replace("18\n", "eighteen\nmore\n"),
    );
    write(dir, "src/dashes.py", "keep\n");
    fs::remove_file(dir.join("gone.txt")).expect("rm");
    fs::create_dir_all(dir.join("new")).expect("mkdir");
    git(dir, &["mv", "old/name.py", "new/name.py"]);
    write(
        dir,
        "new/name.py",
        &LONG.replace("7\n", "seven\n").replace("20\n", "twenty\n"),
    );
    write(dir, "no_eol.txt", "a\nc");
    fs::set_permissions(dir.join("run.sh"), fs::Permissions::from_mode(0o755)).expect("chmod");
    write(dir, "tests/test_new.py", "def test():\n    assert True\n");
    std::os::unix::fs::symlink("src/kept.py", dir.join("link.py")).expect("link");
    write(dir, "caf\u{e9}.py", "x = 2\n");
    git(dir, &["add", "-A"]);
    let diff = git(dir, &["diff", "--cached", "-M"]);
    for expected in [
        "rename from old/name.py",
        "new file mode 120000",
        "deleted file mode",
        "old mode 100644",
        "\\ No newline",
        "\"a/caf\\303\\251.py\"",
    ] {
        assert!(
            diff.contains(expected),
            "git diff has no `{expected}`:\n{diff}"
        );
    }

    let patches = parse(&diff).expect("parses");
    let root = Utf8Path::from_path(base.path()).expect("utf-8");
    let mut written = apply_to_tree(root, &patches).expect("applies");
    written.sort();
    assert_eq!(tree(base.path()), tree(dir));
    assert_eq!(
        written,
        [
            "caf\u{e9}.py",
            "gone.txt",
            "link.py",
            "new/name.py",
            "no_eol.txt",
            "old/name.py",
            "run.sh",
            "src/dashes.py",
            "src/kept.py",
            "tests/test_new.py"
        ]
    );
}

#[test]
fn a_plain_unified_diff_with_times_applies_and_a_moved_hunk_is_found() {
    let dir = tempfile::tempdir().expect("temp");
    let root = Utf8Path::from_path(dir.path()).expect("utf-8");
    // The file gained three lines above the hunk since the patch was made.
    write(dir.path(), "f.py", &format!("a\nb\nc\n{LONG}"));
    let patch = "--- a/f.py\t2024-01-01 00:00:00\n+++ b/f.py\t2024-01-02 00:00:00\n@@ -9,3 +9,3 @@\n 9\n-10\n+ten\n 11\n";
    apply_to_tree(root, &parse(patch).expect("parses")).expect("applies");
    assert_eq!(
        fs::read_to_string(dir.path().join("f.py")).expect("read"),
        format!("a\nb\nc\n{}", LONG.replace("\n10\n", "\nten\n"))
    );
}

#[test]
fn a_patch_that_does_not_apply_changes_nothing_and_says_where() {
    let dir = tempfile::tempdir().expect("temp");
    let root = Utf8Path::from_path(dir.path()).expect("utf-8");
    write(dir.path(), "one.py", "x = 1\n");
    write(dir.path(), "two.py", "y = 1\n");
    let patch = "diff --git a/one.py b/one.py\n--- a/one.py\n+++ b/one.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n\
                 diff --git a/two.py b/two.py\n--- a/two.py\n+++ b/two.py\n@@ -1 +1 @@\n-y = 9\n+y = 2\n";
    let cases = [
        (patch.to_owned(), "two.py: the hunk at line 1 does not match the file (line 1 is \"y = 1\\n\", the patch expects \"y = 9\")"),
        (patch.replace("two.py", "../two.py"), "`../two.py` is not a file a patch may change inside the repository"),
        (patch.replace("two.py", ".git/config"), "`.git/config` is not a file a patch may change inside the repository"),
        ("diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/one.py\n@@ -0,0 +1 @@\n+z\n".to_owned(), "one.py already exists, but the patch creates it"),
        ("diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n".to_owned(), "img.png is a binary change, which a text patch cannot carry"),
    ];
    let got: Vec<String> = cases
        .iter()
        .map(|(patch, _)| apply_to_tree(root, &parse(patch).expect("parses")).expect_err(patch))
        .collect();
    let wanted: Vec<String> = cases.iter().map(|(_, why)| (*why).to_owned()).collect();
    assert_eq!(got, wanted);
    assert_eq!(
        tree(dir.path()),
        BTreeMap::from([
            ("one.py".to_owned(), ("x = 1\n".to_owned(), false)),
            ("two.py".to_owned(), ("y = 1\n".to_owned(), false)),
        ])
    );
}

#[test]
fn a_hunk_shorter_than_its_header_says_is_named() {
    assert_eq!(
        parse("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n"),
        Err("line 3: the hunk `@@ -1,3 +1,3 @@` ends early".to_owned())
    );
}
