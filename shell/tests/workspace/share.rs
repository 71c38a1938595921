//! Installed dependencies are shared, not copied: a project with a 100,000-file `node_modules`
//! verifies (no entry limit counts it), its tests load their dependencies through the copy's
//! link, bubblewrap keeps the folder read-only, and the original comes out unchanged.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{mend, tree_digest};
use serde_json::{json, Value};

const PACKAGES: usize = 1_000;
const FILES_PER_PACKAGE: usize = 100;

/// The test: loads the last generated package through `node_modules`, then tries to write into
/// it. Exit 0: loaded and refused; 3: loaded and written; anything else: not loaded.
const TEST_JS: &str = r#"
const fs = require("fs");
const last = require("dep-999");
if (last.value !== 999 * 100 + 99) process.exit(2);
try {
  fs.writeFileSync("node_modules/written-by-a-test.txt", "x");
} catch (err) {
  console.log("node_modules is read-only: " + err.code);
  process.exit(0);
}
process.exit(3);
"#;

/// A node project outside /tmp (which bubblewrap hides anyway) whose `node_modules` holds
/// `packages` × 100 generated files.
fn project(packages: usize) -> tempfile::TempDir {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("share");
    fs::create_dir_all(&scratch).unwrap();
    let dir = tempfile::tempdir_in(&scratch).unwrap();
    let root = dir.path();
    fs::write(
        root.join("mend.toml"),
        "[paths]\nreadable = [\"*.js\"]\neditable = [\"lib.js\"]\n\
         [test]\ncommand = [\"node\", \"test.js\"]\ntimeout_seconds = 60\nreport = \"exit_code\"\n\
         files = [\"test.js\"]\n[tools]\nenabled = [\"run_tests\"]\n",
    )
    .unwrap();
    fs::write(root.join("test.js"), TEST_JS).unwrap();
    fs::write(root.join("lib.js"), "module.exports = 1;\n").unwrap();
    for package in (0..packages).map(|index| PACKAGES - packages + index) {
        let folder = root.join(format!("node_modules/dep-{package}"));
        fs::create_dir_all(&folder).unwrap();
        for file in 1..FILES_PER_PACKAGE {
            fs::write(folder.join(format!("part-{file}.js")), "").unwrap();
        }
        let value = package * FILES_PER_PACKAGE + FILES_PER_PACKAGE - 1;
        fs::write(
            folder.join("index.js"),
            format!("module.exports = {{ value: {value} }};\n"),
        )
        .unwrap();
    }
    dir
}

fn verify(repo: &Path, sandbox: &str) -> (i32, Value, String) {
    let outcome = mend(&[
        "verify",
        "--json",
        "--sandbox",
        sandbox,
        "--repo",
        repo.to_str().unwrap(),
    ]);
    let tests = outcome.tests_after();
    (
        outcome.code,
        tests["exit_code"].clone(),
        outcome
            .stderr
            .lines()
            .filter(|line| line.contains("error"))
            .collect(),
    )
}

#[test]
fn a_100000_file_node_modules_is_shared_read_only_under_bubblewrap() {
    let repo = project(PACKAGES);
    let before = tree_digest(repo.path());
    assert_eq!(before.len(), PACKAGES * FILES_PER_PACKAGE + 3);
    assert_eq!(verify(repo.path(), "bwrap"), (0, json!(0), String::new()));
    assert_eq!(tree_digest(repo.path()), before);
}

#[test]
fn without_a_sandbox_the_tests_could_write_through_the_link_as_the_docs_say() {
    let repo = project(1);
    assert_eq!(verify(repo.path(), "none"), (1, json!(3), String::new()));
    assert_eq!(
        fs::read_to_string(repo.path().join("node_modules/written-by-a-test.txt")).unwrap(),
        "x"
    );
}

#[test]
fn verify_says_where_its_time_went_outside_the_tests() {
    let repo = project(1);
    let outcome = mend(&[
        "verify",
        "--json",
        "--sandbox",
        "none",
        "--repo",
        repo.path().to_str().unwrap(),
    ]);
    let shape: Vec<(String, Vec<String>)> = outcome
        .events()
        .iter()
        .map(|event| {
            let object = event.as_object().unwrap();
            let fields = object
                .iter()
                .filter(|(name, value)| *name != "type" && value.is_u64())
                .map(|(name, _)| name.clone())
                .collect();
            (event["type"].as_str().unwrap().to_owned(), fields)
        })
        .collect();
    let costs: Vec<String> = [
        "setup_ms",
        "copy_ms",
        "sandbox_start_ms",
        "tests_ms",
        "cleanup_ms",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(
        shape,
        [
            ("sandbox".to_owned(), Vec::new()),
            ("tests_after".to_owned(), Vec::new()),
            ("costs".to_owned(), costs),
        ]
    );
}
