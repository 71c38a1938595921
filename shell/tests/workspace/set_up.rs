//! `environment.setup` on a package whose version file and metadata exist only once it is
//! built (fixtures/projects/scm-version, setuptools_scm's shape): the set-up makes them in the
//! copy, under bubblewrap and without a sandbox, runs once for every copy of the same original,
//! and a failing step is a harness error that names it.

use std::path::Path;

use crate::common::{copy_of, mend, repo_root, tree_digest, Outcome};
use serde_json::{json, Value};

fn fixture() -> tempfile::TempDir {
    copy_of(&repo_root().join("fixtures/projects/scm-version"))
}

fn verify(repo: &Path, sandbox: &str) -> Outcome {
    mend(&[
        "verify",
        "--json",
        "--sandbox",
        sandbox,
        "--repo",
        repo.to_str().unwrap(),
    ])
}

/// The exit code and the counts of the run that graded the copy.
fn graded(outcome: &Outcome) -> (i32, Value) {
    let run = outcome.tests_after();
    (
        outcome.code,
        json!({"exit_code": run["exit_code"], "summary": run["summary"]}),
    )
}

fn passed(count: u32) -> (i32, Value) {
    (
        0,
        json!({"exit_code": 0, "summary": {"passed": count, "failed": 0, "errors": 0, "skipped": 0}}),
    )
}

/// The project's task file with its `[environment]` replaced by `table`.
fn with_environment(repo: &Path, table: &str) {
    let path = repo.join("mend.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("[environment]").unwrap();
    let end = text.find("[tools]").unwrap();
    std::fs::write(
        &path,
        format!("{}{table}\n{}", &text[..start], &text[end..]),
    )
    .unwrap();
}

const RAN: &str = "mend: set-up: 1 step(s) ran in";

const COSTS_WITH_SET_UP: [&str; 6] = [
    "cleanup_ms",
    "copy_ms",
    "sandbox_start_ms",
    "set_up_ms",
    "setup_ms",
    "tests_ms",
];

/// The figures of a verify's costs event, by name, sorted.
fn cost_fields(outcome: &Outcome) -> Vec<String> {
    let events = outcome.events();
    let costs = events
        .iter()
        .find(|event| event["type"] == "costs")
        .and_then(Value::as_object)
        .expect("a costs event");
    let mut fields: Vec<String> = costs
        .iter()
        .filter(|(_, value)| value.is_u64())
        .map(|(name, _)| name.clone())
        .collect();
    fields.sort();
    fields
}

#[test]
fn the_set_up_makes_the_version_file_once_for_every_copy_under_either_sandbox() {
    let dir = fixture();
    let repo = dir.path();
    let without_records = |repo: &Path| {
        let mut digest = tree_digest(repo);
        digest.retain(|path, _| !path.starts_with(".mend"));
        digest
    };
    let before = without_records(repo);
    let first = verify(repo, "bwrap");
    assert_eq!(graded(&first), passed(3), "{}", first.stderr);
    assert!(first.stderr.contains(RAN), "{}", first.stderr);
    // The set-up's time is shown apart from the tests'.
    assert_eq!(cost_fields(&first), COSTS_WITH_SET_UP);
    // The next copies get the kept result: the steps do not run again, with or without a
    // sandbox, and the original never holds what they wrote.
    for sandbox in ["none", "bwrap"] {
        let again = verify(repo, sandbox);
        assert_eq!(graded(&again), passed(3), "{sandbox}: {}", again.stderr);
        assert!(!again.stderr.contains(RAN), "{sandbox}: {}", again.stderr);
        assert_eq!(cost_fields(&again), COSTS_WITH_SET_UP);
    }
    assert_eq!(without_records(repo), before, "the original changed");
    let kept: Vec<_> = std::fs::read_dir(repo.join(".mend/setup"))
        .unwrap()
        .collect();
    assert_eq!(kept.len(), 1, "one set-up is kept");
    let kept = kept[0].as_ref().unwrap().path();
    let manifest = std::fs::read_to_string(kept.join("manifest")).unwrap();
    let files: Vec<&str> = manifest.lines().map(|line| &line[66..]).collect();
    assert_eq!(
        files,
        [
            "src/chronicle.egg-info/PKG-INFO",
            "src/chronicle.egg-info/SOURCES.txt",
            "src/chronicle.egg-info/dependency_links.txt",
            "src/chronicle.egg-info/top_level.txt",
            "src/chronicle/_version.py",
        ]
    );
    assert!(std::fs::read_to_string(kept.join("log"))
        .unwrap()
        .starts_with("$ python setup.py --quiet egg_info\n"));
    // A kept file that is not what the set-up wrote is never handed on: the steps run again.
    std::fs::write(
        kept.join("files/src/chronicle/_version.py"),
        "version = __version__ = 'x'\n",
    )
    .unwrap();
    let tampered = verify(repo, "none");
    assert_eq!(graded(&tampered), passed(3), "{}", tampered.stderr);
    assert!(tampered.stderr.contains(RAN), "{}", tampered.stderr);
}

#[test]
fn without_its_set_up_the_package_cannot_be_imported() {
    let dir = fixture();
    with_environment(dir.path(), "");
    let outcome = verify(dir.path(), "bwrap");
    assert_ne!(outcome.code, 0, "{}", outcome.stdout);
    assert!(
        outcome
            .stdout
            .contains("No module named 'chronicle._version'"),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn a_failing_step_is_a_harness_error_naming_it_with_its_exit_code_and_output() {
    let dir = fixture();
    with_environment(
        dir.path(),
        "[environment]\nsetup = [\"python setup.py --quiet egg_info\", \"echo building the extension >&2; echo gcc: not found; exit 3\"]\n",
    );
    for sandbox in ["bwrap", "none"] {
        let outcome = verify(dir.path(), sandbox);
        assert_eq!(outcome.code, 6, "{sandbox}: {}", outcome.stdout);
        let log = dir.path().join(".mend/setup");
        let failed_log = std::fs::read_dir(&log)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| path.to_string_lossy().ends_with(".failed.log"))
            .expect("the failed set-up's log is kept");
        assert_eq!(
            outcome
                .stderr
                .lines()
                .skip_while(|line| !line.starts_with("mend: error:"))
                .take(2)
                .collect::<Vec<_>>(),
            [
                format!(
                    "mend: error: the set-up step 2 of 2 `echo building the extension >&2; echo gcc: not found; exit 3` exited 3, so no test ran (its whole output: {}):",
                    failed_log.display()
                ),
                "building the extension".to_owned(),
            ],
            "{sandbox}"
        );
        assert!(
            outcome.stderr.contains("gcc: not found"),
            "{}",
            outcome.stderr
        );
    }
}

#[test]
fn a_step_past_its_limit_is_stopped() {
    let dir = fixture();
    with_environment(
        dir.path(),
        "[environment]\nsetup = [\"sleep 30\"]\nsetup_timeout_seconds = 1\n",
    );
    let outcome = verify(dir.path(), "bwrap");
    assert_eq!(outcome.code, 6, "{}", outcome.stdout);
    assert!(
        outcome.stderr.contains("the set-up step 1 of 1 `sleep 30` did not finish in 1 s (environment.setup_timeout_seconds)"),
        "{}",
        outcome.stderr
    );
}
