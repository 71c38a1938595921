//! A task's tests run inside its image under bubblewrap: the image's root as `/` (read-only), its
//! config's Env and WorkingDir, a private `/tmp`, no network, the copy writable at the workdir,
//! and the verdict's rules (the witness and its account of the run) unchanged. A repository that comes
//! with the image (SWE-bench's `/testbed`) is copied out of the image's folder.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::tree_digest;
use crate::support::{layout, mend_images, names_in, pull};

const TESTS: &str = r#"
import os
import socket

import pytest


def test_the_image_is_the_root():
    with open("/etc/added-by-upper") as added:
        assert added.read() == "added by the second layer\n"
    assert not os.path.exists("/etc/removed-by-upper")
    assert os.environ["IMAGE_MARK"] == "from-the-config"
    assert os.getcwd() == "/work"
    assert os.path.exists("/work/tests/test_inside.py")


def test_the_root_is_read_only_and_tmp_is_private():
    with pytest.raises(OSError):
        open("/etc/written-by-a-test", "w")
    assert os.listdir("/tmp") == [] or all(name.startswith("mend-report-") for name in os.listdir("/tmp"))
    with open("/tmp/scratch", "w") as scratch:
        scratch.write("private")


def test_no_network():
    with pytest.raises(OSError):
        socket.create_connection(("10.255.255.1", 80), timeout=2)


def test_the_bug():
    assert 1 + 1 == 3
"#;

fn task_file(image: &str, workdir: &str, files: &str) -> String {
    format!(
        "[task]\nprompt = \"Fix it.\"\n\n[paths]\nreadable = [\"**/*.py\"]\neditable = [\"*.py\"]\n\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"{files}\"]\nplugins = false\n\n[tools]\nenabled = [\"read_file\", \"run_tests\", \"shell\"]\n\n[environment]\nimage = \"{image}\"\nworkdir = \"{workdir}\"\n"
    )
}

/// The verify run's sandbox, test summary and failing tests, from its JSON events.
fn verdict(events: &[Value]) -> Value {
    let of = |kind: &str| {
        events
            .iter()
            .find(|event| event["type"] == kind)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (sandbox, after) = (of("sandbox"), of("tests_after"));
    json!({"sandbox": sandbox["name"], "summary": after["run"]["summary"], "failing": after["run"]["failing"]})
}

#[test]
fn the_tests_run_inside_the_image_with_its_config_and_nothing_of_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir_all(repo.join("tests")).unwrap();
    fs::write(repo.join("tests/test_inside.py"), TESTS).unwrap();
    fs::write(
        repo.join("mend.toml"),
        task_file(
            &format!("oci:{}:base", layout().display()),
            "/work",
            "tests/*.py",
        ),
    )
    .unwrap();
    let before = tree_digest(&repo);
    let cache = dir.path().join("cache");
    let outcome = mend_images(
        &cache,
        &[
            "verify",
            "--json",
            "--sandbox",
            "bwrap",
            "--repo",
            repo.to_str().unwrap(),
        ],
        &[],
    );
    let events = outcome.events();
    assert_eq!(
        (outcome.code, verdict(&events)),
        (
            1,
            json!({
                "sandbox": "bwrap",
                "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0},
                "failing": ["tests/test_inside.py::test_the_bug"],
            })
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
    assert_eq!(tree_digest(&repo), before);
}

#[test]
fn a_repository_that_comes_with_the_image_is_copied_out_of_it_and_the_image_stays_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("task/mend.toml");
    fs::create_dir_all(task.parent().unwrap()).unwrap();
    fs::write(
        &task,
        task_file(
            &format!("oci:{}:base", layout().display()),
            "/testbed",
            "tests/*.py",
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let pulled = pull(&cache, &format!("oci:{}:base", layout().display()));
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let root = names_in(&cache)
        .into_iter()
        .find(|name| name.starts_with("sha256-"))
        .unwrap();
    let testbed = cache.join(root).join("rootfs/testbed");
    let before = tree_digest(&testbed);
    let outcome = mend_images(
        &cache,
        &["verify", "--json", "--task-file", task.to_str().unwrap()],
        &[],
    );
    let events = outcome.events();
    // /testbed's calc.half is wrong: one of its two tests fails.
    assert_eq!(
        (outcome.code, verdict(&events)),
        (
            1,
            json!({
                "sandbox": "bwrap",
                "summary": {"passed": 1, "failed": 1, "errors": 0, "skipped": 0},
                "failing": ["tests/test_calc.py::test_half"],
            })
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
    assert_eq!(tree_digest(&testbed), before);
    assert!(!Path::new(&testbed).join(".mend").exists());
}
