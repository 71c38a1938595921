//! Build outputs never lie: the copy keeps modification times, so a build tool judges a stale
//! `target/` in the copy exactly as it does in place, and caches that could fool the tests
//! (`__pycache__`) are left out of the copy.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::common::{copy_of, mend, python, repo_root};

const BUGGY_PARTS: &str = "        let a_part = a_parts.get(index).map_or(\"0\".to_owned(), u64::to_string);\n        let b_part = b_parts.get(index).map_or(\"0\".to_owned(), u64::to_string);\n";
const FIXED_PARTS: &str = "        let a_part = a_parts.get(index).copied().unwrap_or(0);\n        let b_part = b_parts.get(index).copied().unwrap_or(0);\n";

/// The toolchain running these tests: cargo sets `CARGO` for them. Its folder holds rustc too.
fn toolchain_path() -> String {
    let cargo = PathBuf::from(std::env::var("CARGO").expect("cargo sets CARGO for its tests"));
    format!("{}:/usr/bin:/bin", cargo.parent().unwrap().display())
}

/// The crate, its test command pointed at this toolchain (the default sandbox hides rustup's
/// folders, so these runs use `--sandbox none`).
fn crate_copy() -> tempfile::TempDir {
    let copy = copy_of(&repo_root().join("fixtures/projects/semver-lite"));
    let task = copy.path().join("mend.toml");
    let text = fs::read_to_string(&task).unwrap().replace(
        r#"command = ["cargo", "test", "--offline", "--quiet"]"#,
        &format!(
            r#"command = ["env", "PATH={}", "cargo", "test", "--offline", "--quiet"]"#,
            toolchain_path()
        ),
    );
    fs::write(task, text).unwrap();
    copy
}

/// `cargo test` in place, in the same environment mend gives the copy.
fn cargo_test_in_place(dir: &Path) -> i32 {
    Command::new("env")
        .args([
            &format!("PATH={}", toolchain_path()),
            "cargo",
            "test",
            "--offline",
            "--quiet",
        ])
        .current_dir(dir)
        .env_clear()
        .env("HOME", dir)
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap()
        .status
        .code()
        .unwrap()
}

fn set_modified(path: &Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[test]
fn a_stale_target_folder_gets_the_verdict_cargo_gives_in_place() {
    let mut seen = Vec::new();
    for fix_time in ["newer than the build", "older than the build"] {
        let project = crate_copy();
        let dir = project.path();
        // The buggy version is built in place, as a developer's checkout would be.
        assert_eq!(
            cargo_test_in_place(dir),
            101,
            "the fixture's bug fails its tests"
        );
        // Then the fix arrives: saved by an editor (now), or restored by `cp -p`, `tar` or an
        // archive with the time it had before the build.
        let source = dir.join("src/lib.rs");
        let fixed = fs::read_to_string(&source)
            .unwrap()
            .replace(BUGGY_PARTS, FIXED_PARTS);
        fs::write(&source, fixed).unwrap();
        if fix_time.starts_with("older") {
            set_modified(&source, SystemTime::now() - Duration::from_secs(3600));
        }
        let verified = mend(&[
            "verify",
            "--sandbox",
            "none",
            "--repo",
            dir.to_str().unwrap(),
        ]);
        let in_place = cargo_test_in_place(dir);
        seen.push((fix_time, verified.code, i32::from(in_place != 0)));
    }
    // In place, cargo trusts the build when the source is older: the copy must say the same.
    assert_eq!(
        seen,
        [
            ("newer than the build", 0, 0),
            ("older than the build", 1, 1)
        ]
    );
}

#[test]
fn a_stale_pycache_is_left_out_of_the_copy_unless_the_task_keeps_it() {
    let project = copy_of(&repo_root().join("fixtures/projects/tinyi18n"));
    let dir = project.path();
    let catalog = dir.join("src/tinyi18n/catalog.py");
    let built = fs::metadata(&catalog).unwrap().modified().unwrap();
    // Bytecode of the buggy module, checked by the source's time and size only.
    let compiled = Command::new(python())
        .args(["-m", "compileall", "-q", "src/tinyi18n/catalog.py"])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(compiled.success());
    // The fix has the same size, and comes back with the same time (a `git stash pop` or a
    // restore within the same second).
    let fixed = fs::read_to_string(&catalog)
        .unwrap()
        .replace("replace(\"_\", \"-\")", "replace(\"-\", \"_\")");
    fs::write(&catalog, fixed).unwrap();
    set_modified(&catalog, built);

    let in_place = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let verify = |dir: &Path| mend(&["verify", "--repo", dir.to_str().unwrap()]);
    let default = verify(dir);
    fs::write(
        dir.join("mend.toml"),
        fs::read_to_string(dir.join("mend.toml")).unwrap() + "\n[copy]\nexclude = []\n",
    )
    .unwrap();
    let kept = verify(dir);
    // In place the stale bytecode runs the bug; the copy without caches runs the source, and so
    // does a copy that keeps them: mend's test runs read no bytecode they did not write.
    assert_eq!(
        (in_place.status.code(), default.code, kept.code),
        (Some(1), 0, 0),
        "{}\n{}",
        default.stderr,
        kept.stderr
    );
}
