//! Ctrl-C during a pull in `mend run`: the pull stops at once, exit 130 with one line saying
//! what was kept, no root (whole or half) left in the cache, and the next pull goes on from the
//! layer already fetched.

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{mend_command, sigint, wait_until};
use crate::support::{mend_images, names_in, Registry, TokenFront};

/// The bytes of the partial layer files in `blobs`.
fn partial_bytes(blobs: &std::path::Path) -> u64 {
    names_in(blobs)
        .iter()
        .filter(|name| name.ends_with(".partial"))
        .map(|name| fs::metadata(blobs.join(name)).map_or(0, |meta| meta.len()))
        .sum()
}

#[test]
fn ctrl_c_during_a_pull_in_mend_run_keeps_no_root_and_the_next_pull_goes_on() {
    let registry = Registry::start();
    registry.push("base", "mend/python:base");
    let slow = TokenFront::start_paced(&registry.address, None, Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir_all(repo.join("tests")).unwrap();
    fs::write(repo.join("tests/test_x.py"), "def test_x():\n    pass\n").unwrap();
    let reference = format!("{}/mend/python:base", slow.address);
    fs::write(
        repo.join("mend.toml"),
        format!("[task]\nprompt = \"x\"\n[paths]\nreadable = [\"**/*.py\"]\neditable = [\"*.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\"]\ntimeout_seconds = 30\nfiles = [\"tests/*.py\"]\n[tools]\nenabled = [\"run_tests\"]\n[environment]\nimage = \"{reference}\"\nworkdir = \"/work\"\n"),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let mut child = mend_command(dir.path())
        .args(["run", "--host", "http://127.0.0.1:9", "--repo"])
        .arg(&repo)
        .arg("--image-cache")
        .arg(&cache)
        .env("DOCKER_CONFIG", dir.path().join("no-docker"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let blobs = cache.join("blobs/sha256");
    wait_until("a layer is half fetched", || {
        partial_bytes(&blobs) > 256 << 10
    });
    sigint(&child);
    let give_up = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < give_up, "mend run did not stop on Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        (output.status.code(), stderr.trim()),
        (Some(130), format!("mend: error: the pull of {reference} was stopped by Ctrl-C: no root of it was kept, and the next run goes on from the layers already fetched").as_str())
    );
    let kept = partial_bytes(&blobs);
    assert!(kept > 0);
    // No root, whole or half: only the stores and the locks.
    assert_eq!(names_in(&cache), ["blobs", "locks", "refs"]);
    let partial = names_in(&blobs)
        .into_iter()
        .find(|name| name.ends_with(".partial"))
        .unwrap();
    let digest = partial.trim_end_matches(".partial").to_owned();

    let fast = TokenFront::start(&registry.address, None);
    let again = mend_images(
        &cache,
        &[
            "images",
            "pull",
            &format!("{}/mend/python:base", fast.address),
        ],
        &[],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let seen = fast.seen.lock().unwrap().clone();
    let asked: Vec<&String> = seen.iter().filter(|line| line.contains(&digest)).collect();
    assert!(
        asked.len() == 1 && asked[0].ends_with(&format!(" Range: bytes={kept}-")),
        "{seen:#?}"
    );
    assert_eq!(
        names_in(&cache)
            .iter()
            .filter(|name| name.starts_with("sha256-"))
            .count(),
        1
    );
}
