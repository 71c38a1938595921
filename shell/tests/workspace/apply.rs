//! `mend apply`: a recorded run's change reaches the original only when the original is still
//! what the run started from, and only exactly.

use crate::common::{copy_of, fixture, mend, repo_root, sample_copy, tree_digest};

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

    // Applying twice is recognised: the copy already holds what the run ended with.
    let before = tree_digest(copy.path());
    let again = mend(&["apply", "fixtures/repair.json", "--repo", repo]);
    assert_eq!(
        (again.code, again.stdout, again.stderr),
        (
            0,
            format!("The run's change is already applied in {repo}; nothing was written.\n"),
            String::new()
        )
    );
    assert_eq!(tree_digest(copy.path()), before, "nothing was written");
}

#[test]
fn a_refusal_of_an_older_record_names_the_changed_file_of_its_diff() {
    let copy = sample_copy();
    let repo = copy.path().to_str().unwrap();
    let source = copy.path().join("path_rules.py");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(
        &source,
        text.replace("PurePosixPath(name)", "PurePosixPath(name )"),
    )
    .unwrap();
    let before = tree_digest(copy.path());
    let refused = mend(&["apply", "fixtures/repair.json", "--repo", repo]);
    assert_eq!(
        (refused.code, refused.stderr),
        (
            4,
            format!(
                "mend: error: {repo} is not what the run started from: path_rules.py changed; nothing was applied \
                 (restore those files, or make a new run on the repository as it is)\n"
            )
        )
    );
    assert_eq!(
        tree_digest(copy.path()),
        before,
        "a refused apply writes nothing"
    );
}

/// The slug repair's record with the per-file digests a live run keeps (`file_sha256_before`),
/// taken from the pristine task repository.
fn slugify_record_with_file_digests(dir: &std::path::Path) -> std::path::PathBuf {
    let mut record = fixture("slugify");
    let pristine = tree_digest(&repo_root().join("fixtures/slugify-repo"));
    let digests: serde_json::Map<String, serde_json::Value> = pristine
        .into_iter()
        .filter(|(file, _)| file.ends_with(".py"))
        .map(|(file, digest)| (file, serde_json::Value::from(digest)))
        .collect();
    record["file_sha256_before"] = serde_json::Value::Object(digests);
    let path = dir.join("slugify.json");
    std::fs::write(&path, serde_json::to_string(&record).unwrap()).unwrap();
    path
}

#[test]
fn a_refusal_names_every_file_that_differs_from_the_start_of_the_run() {
    let copy = copy_of(&repo_root().join("fixtures/slugify-repo"));
    let records = tempfile::tempdir().unwrap();
    let record = slugify_record_with_file_digests(records.path());
    let repo = copy.path().to_str().unwrap();
    std::fs::write(copy.path().join("textkit/extra.py"), "X = 1\n").unwrap();
    let test_file = copy.path().join("tests/test_wrap.py");
    let mut text = std::fs::read_to_string(&test_file).unwrap();
    text.push_str("\n# edited\n");
    std::fs::write(&test_file, text).unwrap();
    std::fs::remove_file(copy.path().join("tests/test_slug.py")).unwrap();
    let before = tree_digest(copy.path());

    let refused = mend(&["apply", record.to_str().unwrap(), "--repo", repo]);
    assert_eq!(
        (refused.code, refused.stderr),
        (
            4,
            format!(
                "mend: error: {repo} is not what the run started from: tests/test_slug.py was removed, \
                 tests/test_wrap.py changed, textkit/extra.py is new; nothing was applied \
                 (restore those files, or make a new run on the repository as it is)\n"
            )
        )
    );
    assert_eq!(
        tree_digest(copy.path()),
        before,
        "a refused apply writes nothing"
    );
}

/// `mend replay` and `mend resume` refuse a changed repository as apply does, naming the files,
/// so a person knows what to restore rather than comparing two digests.
#[test]
fn replay_and_resume_of_a_changed_repository_name_its_changed_files() {
    let copy = copy_of(&repo_root().join("fixtures/slugify-repo"));
    let records = tempfile::tempdir().unwrap();
    let record = slugify_record_with_file_digests(records.path());
    let repo = copy.path().to_str().unwrap();
    std::fs::write(copy.path().join("textkit/extra.py"), "X = 1\n").unwrap();
    std::fs::write(copy.path().join("textkit/slug.py"), "broken = True\n").unwrap();
    std::fs::remove_file(copy.path().join("textkit/wrap.py")).unwrap();
    let before = tree_digest(copy.path());

    let record = record.to_str().unwrap();
    let replayed = mend(&["replay", record, "--repo", repo]);
    let out = records.path().join("resumed.json");
    let out = out.to_str().unwrap();
    let resumed = mend(&[
        "resume",
        record,
        "--repo",
        repo,
        "--message",
        "go on",
        "--out",
        out,
    ]);
    let expected = format!(
        "mend: error: textkit/**/*.py in {repo} changed since this run was recorded \
         (textkit/extra.py is new, textkit/slug.py changed, textkit/wrap.py was removed); \
         restore it (e.g. `git checkout -- {repo}`) or record a new run\n"
    );
    assert_eq!(
        [
            (replayed.code, replayed.stderr),
            (resumed.code, resumed.stderr)
        ],
        [(4, expected.clone()), (4, expected)]
    );
    assert_eq!(tree_digest(copy.path()), before, "a refusal writes nothing");
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
