//! What a run in an image leaves in its record: the reference and the manifest digest it
//! resolved to, shown by `mend show` and by `mend replay` (which names the record's image when
//! it is not the one it runs in); and the original's shared folders (`copy.share`) seen inside
//! the image as on this machine, read-only.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{say, script};
use crate::support::{layout, mend_images};

const TESTS: &str = r#"
import os

import pytest


def test_the_shared_folder_is_seen_through_its_link():
    assert os.path.islink("vendor")
    with open("vendor/data.txt") as data:
        assert data.read() == "shared\n"


def test_the_shared_folder_is_read_only():
    with pytest.raises(OSError):
        open("vendor/written-by-a-test", "w")
"#;

/// A repository whose `vendor` folder the copy shares, run in the test image at /work.
fn repository(dir: &Path) -> (std::path::PathBuf, String) {
    let repo = dir.join("repo");
    fs::create_dir_all(repo.join("tests")).unwrap();
    fs::create_dir_all(repo.join("vendor")).unwrap();
    fs::write(repo.join("vendor/data.txt"), "shared\n").unwrap();
    fs::write(repo.join("tests/test_shared.py"), TESTS).unwrap();
    let reference = format!("oci:{}:base", layout().display());
    fs::write(
        repo.join("mend.toml"),
        format!("[task]\nprompt = \"Look.\"\n\n[paths]\nreadable = [\"**/*.py\"]\neditable = [\"*.py\"]\n\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\nplugins = false\n\n[copy]\nshare = [\"vendor\"]\n\n[tools]\nenabled = [\"read_file\", \"run_tests\"]\n\n[environment]\nimage = \"{reference}\"\nworkdir = \"/work\"\n"),
    )
    .unwrap();
    (repo, reference)
}

/// The `Image:` and `Recorded image:` lines of a text output.
fn image_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.starts_with("Image: ") || line.starts_with("Recorded image: "))
        .collect()
}

#[test]
fn shared_folders_are_bound_inside_the_image_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repository(dir.path());
    let outcome = mend_images(
        &dir.path().join("cache"),
        &["verify", "--json", "--repo", repo.to_str().unwrap()],
        &[],
    );
    let after = outcome.tests_after();
    assert_eq!(
        (outcome.code, after["summary"].clone()),
        (
            0,
            json!({"passed": 2, "failed": 0, "errors": 0, "skipped": 0})
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
    assert_eq!(
        fs::read_dir(repo.join("vendor")).unwrap().count(),
        1,
        "nothing was written into the original's shared folder"
    );
}

#[test]
fn the_record_keeps_the_images_digest_and_show_and_replay_print_it() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, reference) = repository(dir.path());
    let cache = dir.path().join("cache");
    let pulled = mend_images(&cache, &["images", "pull", &reference], &[]);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    // `REF: sha256:… at PATH`
    let digest = pulled.stdout.split(' ').nth(1).unwrap().to_owned();
    let server = Server::start(script(vec![say("Nothing to change.")]));
    let record = dir.path().join("run.json");
    let run = mend_images(
        &cache,
        &[
            "run",
            "--host",
            &server.base,
            "--repo",
            repo.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ],
        &[],
    );
    let expected = format!("Image: {reference} ({digest})");
    assert_eq!(
        (run.code, image_lines(&run.stdout)),
        (0, vec![expected.as_str()]),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let saved: Value = serde_json::from_str(&fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(
        saved["image"],
        json!({"reference": reference, "digest": digest})
    );
    let shown = crate::common::mend(&["show", record.to_str().unwrap()]);
    assert_eq!(
        (shown.code, image_lines(&shown.stdout)),
        (0, vec![expected.as_str()]),
        "{}",
        shown.stderr
    );
    let replayed = mend_images(&cache, &["replay", record.to_str().unwrap()], &[]);
    assert_eq!(
        (replayed.code, image_lines(&replayed.stdout)),
        (0, vec![expected.as_str()]),
        "{}\n{}",
        replayed.stdout,
        replayed.stderr
    );
    // A record made in another image (a tag that moved since) is named beside this one.
    let mut moved = saved.clone();
    let other = format!("sha256:{}", "0".repeat(64));
    moved["image"]["digest"] = json!(other);
    let moved_path = dir.path().join("moved.json");
    fs::write(&moved_path, moved.to_string()).unwrap();
    let replayed = mend_images(&cache, &["replay", moved_path.to_str().unwrap()], &[]);
    assert_eq!(
        image_lines(&replayed.stdout),
        [
            expected.clone(),
            format!("Recorded image: {reference} ({other}) — not the image this replay runs in, so its tests may differ")
        ]
    );
}
