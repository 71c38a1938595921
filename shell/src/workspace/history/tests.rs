//! A repository whose fix is a later commit, reachable every way git keeps one (a branch, a
//! tag, a stash, the reflog, ORIG_HEAD, FETCH_HEAD, a remote): the copy holds none of it.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::task::copy::Exclusion;
use crate::task::History;
use crate::test_support::project;
use crate::workspace::Workspace;

const FIXED: &str = "return round(a * b)  # the fix";

fn git(root: &Utf8Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn ok(root: &Utf8Path, args: &[&str]) -> String {
    let (success, out) = git(root, args);
    assert!(success, "git {args:?} failed");
    out
}

/// Every file under `folder` with its bytes, sorted: what "untouched" means for a `.git`.
fn digest(folder: &Utf8Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in dir.read_dir_utf8().unwrap() {
            let entry = entry.unwrap();
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                pending.push(entry.path().to_owned());
            } else {
                files.push((entry.path().to_string(), fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn lines(text: &str) -> BTreeSet<String> {
    text.lines().map(str::to_owned).collect()
}

/// A repository on `main` at its base commit, the fix kept in every way git keeps one.
fn repository_with_a_later_fix() -> (tempfile::TempDir, camino::Utf8PathBuf, String) {
    let (dir, root) = project(&[
        ("calc.py", "def times(a, b):\n    return int(a * b)\n"),
        (
            "tests/test_calc.py",
            "from calc import times\n\ndef test_rounds():\n    assert times(1.5, 1) == 2\n",
        ),
    ]);
    ok(&root, &["init", "-q"]);
    ok(&root, &["add", "-A"]);
    ok(&root, &["commit", "-qm", "base"]);
    let base = ok(&root, &["rev-parse", "HEAD"]).trim().to_owned();
    let fixed = format!("def times(a, b):\n    {FIXED}\n");
    ok(&root, &["checkout", "-qb", "fix"]);
    fs::write(root.join("calc.py"), &fixed).unwrap();
    ok(&root, &["commit", "-qam", "the fix"]);
    ok(&root, &["tag", "-a", "v2", "-m", "fixed"]);
    ok(&root, &["checkout", "-q", "main"]);
    // The fix committed on main, then undone: the reflog and ORIG_HEAD keep it.
    fs::write(root.join("calc.py"), fixed.replace("fix", "fix again")).unwrap();
    ok(&root, &["commit", "-qam", "again"]);
    ok(&root, &["reset", "-q", "--hard", &base]);
    // And a stash of it, a remote and a FETCH_HEAD naming the fix branch.
    fs::write(root.join("calc.py"), fixed.replace("fix", "stashed fix")).unwrap();
    ok(&root, &["stash", "-q"]);
    ok(
        &root,
        &[
            "remote",
            "add",
            "origin",
            "https://example.invalid/calc.git",
        ],
    );
    let fix = ok(&root, &["rev-parse", "fix"]).trim().to_owned();
    fs::write(
        root.join(".git/FETCH_HEAD"),
        format!("{fix}\t\tbranch 'fix' of origin\n"),
    )
    .unwrap();
    assert_eq!(ok(&root, &["rev-parse", "HEAD"]).trim(), base);
    (dir, root, fix)
}

#[test]
fn the_copy_holds_only_what_the_base_reaches_and_the_original_is_untouched() {
    let (_dir, original, fix) = repository_with_a_later_fix();
    let before = digest(&original.join(".git"));
    let reachable = lines(&ok(&original, &["rev-list", "--objects", "HEAD"]))
        .into_iter()
        .map(|line| line.split(' ').next().unwrap().to_owned())
        .collect::<BTreeSet<String>>();
    let copy = Workspace::copy_of(
        &original,
        &Exclusion::defaults(),
        &History::Base("HEAD".to_owned()),
    )
    .unwrap();
    let root = copy.root();
    let objects: BTreeSet<String> = ok(
        root,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    )
    .lines()
    .map(str::to_owned)
    .collect();
    let grep = Command::new("grep")
        .args(["-rI", "the fix", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(
        (
            ok(root, &["log", "--all", "--format=%s"]),
            git(root, &["show", &fix]).0,
            ok(root, &["for-each-ref"]),
            ok(root, &["stash", "list"]),
            git(root, &["rev-parse", "--verify", "-q", "ORIG_HEAD"]).0,
            git(root, &["rev-parse", "--verify", "-q", "FETCH_HEAD"]).0,
            ok(root, &["remote"]),
            ok(root, &["status", "--porcelain"]),
            objects == reachable,
            String::from_utf8_lossy(&grep.stdout).into_owned(),
            ok(root, &["symbolic-ref", "HEAD"]),
        ),
        (
            "base\n".to_owned(),
            false,
            format!(
                "{} commit\trefs/heads/main\n",
                ok(&original, &["rev-parse", "HEAD"]).trim()
            ),
            String::new(),
            false,
            false,
            String::new(),
            String::new(),
            true,
            String::new(),
            "refs/heads/main\n".to_owned(),
        )
    );
    assert!(
        git(root, &["fsck", "--no-dangling"]).0,
        "the copy's repository is whole"
    );
    assert_eq!(
        digest(&original.join(".git")),
        before,
        "the original's .git changed"
    );
}

#[test]
fn a_reset_puts_the_clean_git_back_and_none_leaves_it_out() {
    let (_dir, original, _fix) = repository_with_a_later_fix();
    let exclude = Exclusion::defaults();
    let mut copy =
        Workspace::copy_of(&original, &exclude, &History::Base("HEAD".to_owned())).unwrap();
    let root = copy.root().to_owned();
    let clean = digest(&root.join(".git"));
    fs::write(root.join("calc.py"), "changed\n").unwrap();
    ok(&root, &["commit", "-qam", "work in the copy"]);
    ok(&root, &["tag", "planted"]);
    let changed = copy.reset(&original, &exclude).unwrap().unwrap();
    let clean_again = digest(&root.join(".git")) == clean;
    assert_eq!(
        (
            changed.iter().any(|path| path.starts_with(".git")),
            clean_again,
            ok(&root, &["log", "--all", "--format=%s"])
        ),
        (true, true, "base\n".to_owned())
    );
    let none = Workspace::copy_of(&original, &exclude, &History::None).unwrap();
    assert_eq!(
        (
            none.root().join(".git").exists(),
            none.root().join("calc.py").exists()
        ),
        (false, true)
    );
}

#[test]
fn a_base_other_than_the_checked_out_commit_is_refused_with_the_fix() {
    let (_dir, original, fix) = repository_with_a_later_fix();
    let error = Workspace::copy_of(
        &original,
        &Exclusion::defaults(),
        &History::Base("fix".to_owned()),
    )
    .err()
    .unwrap();
    let head = ok(&original, &["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(
        error,
        MendError::usage(format!("copy.base: `fix` is commit {fix}, but the files of {original} are at HEAD {head}: check the base out there (`git checkout fix`), so that the files are those the attempt starts from"))
    );
    let unknown = Workspace::copy_of(
        &original,
        &Exclusion::defaults(),
        &History::Base("nope".to_owned()),
    )
    .err()
    .unwrap();
    assert_eq!(
        unknown,
        MendError::usage(format!("copy.base: `nope` names no commit of {original}"))
    );
}

#[test]
fn a_held_out_file_the_base_tracks_is_refused_with_the_fix() {
    let (_dir, original, _fix) = repository_with_a_later_fix();
    let exclude = Exclusion::defaults()
        .holding_out(vec!["tests/**".to_owned()])
        .unwrap();
    let error = Workspace::copy_of(&original, &exclude, &History::Base("HEAD".to_owned()))
        .err()
        .unwrap();
    assert_eq!(
        error,
        MendError::usage("test.held_out: the base commit tracks tests/test_calc.py, so the copy's history would hand it to the model (`git show`): give the held-out tests as test.patch or untracked files, or set copy.history = \"none\"")
    );
    let without_git = Workspace::copy_of(&original, &exclude, &History::None).unwrap();
    assert_eq!(
        (
            without_git.root().join("tests").exists(),
            without_git.root().join("calc.py").exists()
        ),
        (false, true)
    );
}

/// A history git cannot copy is mend's failure, not the task file's: exit 6, not 2.
#[test]
fn a_history_git_cannot_pack_is_a_harness_error() {
    let (_dir, original, _fix) = repository_with_a_later_fix();
    // The base's blob of calc.py lost from the object store: HEAD still resolves, packing fails.
    let blob = ok(&original, &["rev-parse", "HEAD:calc.py"])
        .trim()
        .to_owned();
    fs::remove_file(original.join(format!(".git/objects/{}/{}", &blob[..2], &blob[2..]))).unwrap();
    let error = Workspace::copy_of(
        &original,
        &Exclusion::defaults(),
        &History::Base("HEAD".to_owned()),
    )
    .err()
    .unwrap();
    assert_eq!(
        (
            error.exit_code,
            error.message.starts_with(&format!(
                "git pack-objects could not copy the history of {original}: "
            ))
        ),
        (exit::HARNESS, true),
        "{error}"
    );
}
