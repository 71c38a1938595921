//! Diffs written by real `git diff` and `diff -u`, applied to the tree they were made from,
//! must give exactly the tree they were made to.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use camino::Utf8Path;

use super::{apply_to_tree, touched_paths, TreePatchError};
use crate::test_support::project;

fn git(root: &Utf8Path, args: &[&str]) -> String {
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
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every file under `root` except `.git`, with its text (a link as `-> target`) and whether it
/// is executable, sorted.
fn snapshot(root: &Utf8Path) -> Vec<(String, String, bool)> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(folder) = pending.pop() {
        for entry in folder.read_dir_utf8().unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() == ".git" {
                continue;
            }
            let relative = entry.path().strip_prefix(root).unwrap().to_string();
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_symlink() {
                let target = fs::read_link(entry.path()).unwrap();
                files.push((relative, format!("-> {}", target.display()), false));
            } else if meta.is_dir() {
                pending.push(entry.path().to_owned());
            } else {
                let text = fs::read_to_string(entry.path()).unwrap();
                files.push((relative, text, meta.permissions().mode() & 0o100 != 0));
            }
        }
    }
    files.sort();
    files
}

const LONG: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";

#[test]
fn what_git_diff_writes_applies_to_the_tree_it_was_made_from() {
    let (_dir, root) = project(&[
        ("src/lib.py", LONG),
        (
            "src/moved.py",
            "def moved():\n    return 1\n\n\n# a long enough file\n# to be seen as renamed\n",
        ),
        ("tests/test_old.py", "def test_old():\n    pass\n"),
        ("run.sh", "echo hi\n"),
        ("no_newline.txt", "last line"),
        ("with space.txt", "a\n"),
        ("tést.txt", "accent\n"),
    ]);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "base"]);
    let before = snapshot(&root);
    fs::write(
        root.join("src/lib.py"),
        LONG.replace("2\n", "two\n").replace("14\n", "fourteen\n"),
    )
    .unwrap();
    fs::create_dir_all(root.join("src/pkg")).unwrap();
    git(&root, &["mv", "src/moved.py", "src/pkg/renamed.py"]);
    fs::write(
        root.join("src/pkg/renamed.py"),
        "def moved():\n    return 2\n\n\n# a long enough file\n# to be seen as renamed\n",
    )
    .unwrap();
    fs::remove_file(root.join("tests/test_old.py")).unwrap();
    fs::write(
        root.join("tests/test_new.py"),
        "def test_new():\n    assert True\n",
    )
    .unwrap();
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(root.join("no_newline.txt"), "last line, changed").unwrap();
    fs::write(root.join("with space.txt"), "a\nb\n").unwrap();
    fs::write(root.join("tést.txt"), "accent\nagain\n").unwrap();
    std::os::unix::fs::symlink("src/lib.py", root.join("link")).unwrap();
    git(&root, &["add", "-A"]);
    let diff = git(&root, &["diff", "--cached", "-M", "HEAD"]);
    let after = snapshot(&root);

    git(&root, &["reset", "-q", "--hard", "HEAD"]);
    git(&root, &["clean", "-qfd"]);
    assert_eq!(snapshot(&root), before);
    let written = apply_to_tree(&root, &diff).unwrap();
    assert_eq!(snapshot(&root), after, "{diff}");
    let expected: Vec<String> = [
        "link",
        "no_newline.txt",
        "run.sh",
        "src/lib.py",
        "src/moved.py",
        "src/pkg/renamed.py",
        "tests/test_new.py",
        "tests/test_old.py",
        "tést.txt",
        "with space.txt",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(
        (written, touched_paths(&diff).unwrap()),
        (expected.clone(), expected)
    );
}

#[test]
fn hunks_shift_to_where_their_lines_now_are_and_a_stale_patch_changes_nothing() {
    let (_dir, root) = project(&[("lib.py", LONG), ("other.py", "a\n")]);
    let diff = "diff --git a/lib.py b/lib.py\n--- a/lib.py\n+++ b/lib.py\n@@ -10,3 +10,3 @@\n 10\n-11\n+eleven\n 12\ndiff --git a/other.py b/other.py\n--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-a\n+b\n";
    // Three lines added above the hunk since the diff was made.
    fs::write(root.join("lib.py"), format!("x\ny\nz\n{LONG}")).unwrap();
    apply_to_tree(&root, diff).unwrap();
    assert_eq!(
        (
            fs::read_to_string(root.join("lib.py")).unwrap(),
            fs::read_to_string(root.join("other.py")).unwrap()
        ),
        (
            format!("x\ny\nz\n{}", LONG.replace("11\n", "eleven\n")),
            "b\n".to_owned()
        )
    );
    // Applied again: the lines it removes are gone, so nothing is written, other.py included.
    let snapshot_before = snapshot(&root);
    let error = apply_to_tree(&root, diff).unwrap_err();
    assert_eq!(
        (error, snapshot(&root) == snapshot_before),
        (
            TreePatchError::DoesNotApply("lib.py: the hunk at line 10 matches nowhere in the file (line 10 is \"7\\n\", the diff expects \"10\\n\")".to_owned()),
            true
        )
    );
}

#[test]
fn paths_outside_the_tree_or_into_git_are_refused() {
    let (_dir, root) = project(&[("a.py", "a\n")]);
    std::os::unix::fs::symlink("/tmp", root.join("out")).unwrap();
    let cases = [
        ("../escape.py", "`../escape.py` is not a path inside the repository (relative, without `..`, not in .git)"),
        (".git/hooks/pre-commit", "`.git/hooks/pre-commit` is not a path inside the repository (relative, without `..`, not in .git)"),
        ("out/planted.py", ""),
    ];
    for (path, message) in cases {
        let diff = format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n");
        let expected = if message.is_empty() {
            format!("`{path}` leads through the link {root}/out")
        } else {
            message.to_owned()
        };
        assert_eq!(
            apply_to_tree(&root, &diff),
            Err(TreePatchError::DoesNotApply(expected))
        );
    }
    // A path through a file: the diff's mistake too, not mend's.
    assert_eq!(
        apply_to_tree(&root, "--- /dev/null\n+++ b/a.py/x.py\n@@ -0,0 +1 @@\n+x\n"),
        Err(TreePatchError::DoesNotApply(
            "cannot read a.py/x.py: Not a directory (os error 20)".to_owned()
        ))
    );
    assert_eq!(
        apply_to_tree(&root, "just words\n"),
        Err(TreePatchError::DoesNotApply(
            "it holds no file changes (no `diff --git` or `---`/`+++` header)".to_owned()
        ))
    );
}
