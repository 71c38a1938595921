//! `mend apply`: a recorded run's change reaches the original only when the original is still
//! what the run started from, and only exactly.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

mod common;

use common::{mend, repo_root, sample_copy, tree_digest};

#[test]
fn the_recorded_repair_applies_to_a_pristine_copy_and_passes() {
    let copy = sample_copy();
    let repo = copy.path().to_str().unwrap();
    let applied = mend(&["apply", "fixtures/repair.json", "--repo", repo]);
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    let source = std::fs::read_to_string(copy.path().join("path_rules.py")).unwrap();
    let fixed = std::fs::read_to_string(repo_root().join("sample-repo/path_rules.py"))
        .unwrap()
        .replace(
            "PurePosixPath(name)",
            "PurePosixPath(name.replace('\\\\', '/'))",
        );
    assert_eq!(source, fixed);
    let verified = mend(&["verify", "--repo", repo, "--json"]);
    assert_eq!(
        verified.code, 0,
        "the applied repair passes: {}",
        verified.stdout
    );

    // Applying twice is refused: the copy is no longer what the run started from.
    let before = tree_digest(copy.path());
    let again = mend(&["apply", "fixtures/repair.json", "--repo", repo]);
    assert_eq!(again.code, 4);
    assert!(
        again.stderr.contains("is not what the run started from"),
        "{}",
        again.stderr
    );
    assert_eq!(
        tree_digest(copy.path()),
        before,
        "a refused apply writes nothing"
    );
}

#[test]
fn a_run_that_changed_nothing_applies_nothing() {
    let copy = sample_copy();
    let before = tree_digest(copy.path());
    let outcome = mend(&[
        "apply",
        "fixtures/bounded.json",
        "--repo",
        copy.path().to_str().unwrap(),
    ]);
    assert_eq!(
        (
            outcome.code,
            outcome.stdout.contains("The run changed nothing")
        ),
        (0, true),
        "{}",
        outcome.stdout
    );
    assert_eq!(tree_digest(copy.path()), before);
}
