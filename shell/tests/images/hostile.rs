//! Absolute symlinks in an image's repository (the folder the copy is made from) lead where the
//! image says, never into this machine: a link in the project is read inside the sandbox as
//! the image's own file, and a `.git` that would send git on this machine out of the image is
//! refused before anything is copied.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::support::{layout_copy, mend_images};

fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The test image with a third layer (tag `hostile`) holding three repositories: `/linked`,
/// whose `leak.txt` is an absolute link to `/etc/hostname` (the image's says so); `/gitlink`,
/// whose `.git` is an absolute link to `host_git`; `/gitshallow`, whose `.git/shallow` is an
/// absolute link to `/etc/hostname`.
fn hostile_layout(dir: &Path, host_git: &Path) -> PathBuf {
    let layout = layout_copy(dir);
    let bundle = dir.join("bundle");
    let image = format!("{}:base", layout.display());
    run(
        "umoci",
        &[
            "unpack",
            "--rootless",
            "--image",
            &image,
            bundle.to_str().unwrap(),
        ],
    );
    let rootfs = bundle.join("rootfs");
    fs::write(rootfs.join("etc/hostname"), "inside the image\n").unwrap();
    fs::create_dir_all(rootfs.join("linked/tests")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", rootfs.join("linked/leak.txt")).unwrap();
    fs::write(
        rootfs.join("linked/tests/test_leak.py"),
        "import os\n\n\ndef test_the_link_reads_the_images_file():\n    assert os.readlink(\"leak.txt\") == \"/etc/hostname\"\n    with open(\"leak.txt\") as leak:\n        assert leak.read() == \"inside the image\\n\"\n",
    )
    .unwrap();
    fs::create_dir_all(rootfs.join("gitlink/tests")).unwrap();
    fs::write(
        rootfs.join("gitlink/tests/test_x.py"),
        "def test_x():\n    pass\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(host_git, rootfs.join("gitlink/.git")).unwrap();
    fs::create_dir_all(rootfs.join("gitshallow/tests")).unwrap();
    fs::write(
        rootfs.join("gitshallow/tests/test_x.py"),
        "def test_x():\n    pass\n",
    )
    .unwrap();
    run(
        "git",
        &["init", "-q", rootfs.join("gitshallow").to_str().unwrap()],
    );
    std::os::unix::fs::symlink("/etc/hostname", rootfs.join("gitshallow/.git/shallow")).unwrap();
    run(
        "umoci",
        &[
            "repack",
            "--image",
            &format!("{}:hostile", layout.display()),
            bundle.to_str().unwrap(),
        ],
    );
    layout
}

fn task_file(dir: &Path, layout: &Path, workdir: &str) -> PathBuf {
    let task = dir.join(workdir.trim_start_matches('/')).join("mend.toml");
    fs::create_dir_all(task.parent().unwrap()).unwrap();
    fs::write(
        &task,
        format!("[task]\nprompt = \"x\"\n[paths]\nreadable = [\"**/*.py\"]\neditable = [\"*.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\nplugins = false\n[tools]\nenabled = [\"run_tests\"]\n[environment]\nimage = \"oci:{}:hostile\"\nworkdir = \"{workdir}\"\n", layout.display()),
    )
    .unwrap();
    task
}

#[test]
fn links_in_an_images_repository_never_lead_into_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let host_repo = dir.path().join("host-repo");
    run("git", &["init", "-q", host_repo.to_str().unwrap()]);
    let layout = hostile_layout(dir.path(), &host_repo.join(".git"));
    let cache = dir.path().join("cache");
    let tasks = dir.path().join("tasks");

    let linked = task_file(&tasks, &layout, "/linked");
    let outcome = mend_images(
        &cache,
        &["verify", "--json", "--task-file", linked.to_str().unwrap()],
        &[],
    );
    assert_eq!(
        (outcome.code, outcome.tests_after()["summary"].clone()),
        (
            0,
            json!({"passed": 1, "failed": 0, "errors": 0, "skipped": 0})
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );

    for (workdir, why) in [
        ("/gitlink", "/gitlink/.git is a symlink"),
        ("/gitshallow", "/gitshallow/.git/shallow is a symlink"),
    ] {
        let task = task_file(&tasks, &layout, workdir);
        let outcome = mend_images(
            &cache,
            &["verify", "--json", "--task-file", task.to_str().unwrap()],
            &[],
        );
        assert_eq!(
            (outcome.code, outcome.stderr.trim()),
            (4, format!("mend: error: refused the image oci:{}:hostile: its repository's {why}, which git on this machine would follow out of the image — use an image whose .git is git's own, or give the repository with --repo", layout.display()).as_str()),
            "{}",
            outcome.stdout
        );
        // Nothing was written beside the task file.
        assert!(!task.parent().unwrap().join(".mend").exists());
    }
}
