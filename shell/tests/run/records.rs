//! Where runs are recorded and what a record remembers: `mend run` in a project writes to the
//! project's `.mend/` (which ignores itself in git), keeps the absolute repository, the
//! interpreter and the `--sandbox`, and `mend replay` / `mend apply` use them from any folder.
//! Also the messages for a repository that is missing or is a file.

use crate::common::server::Server;
use crate::common::turns::{recorded_replies, script};
use crate::common::{fixture, mend_with_env, python, repo_root, sample_copy, tree_digest};
use serde_json::Value;

fn repair_server() -> Server {
    Server::start(script(recorded_replies(&fixture("repair"))))
}

#[test]
fn a_run_records_into_the_repository_and_replays_and_applies_from_anywhere() {
    let server = repair_server();
    let copy = sample_copy();
    let repo = copy.path().canonicalize().unwrap();
    let sample_files = tree_digest(&repo);

    // In the project, with no --repo and no --record.
    let run = mend_with_env(
        &repo,
        &["run", "--sandbox", "none", "--host", &server.base],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let folder = repo.join(".mend");
    let mut written: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort();
    let stamp = written[1].trim_end_matches(".json").to_owned();
    assert_eq!(
        written,
        vec![
            ".gitignore".to_owned(),
            format!("{stamp}.json"),
            format!("{stamp}.patch"),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(folder.join(".gitignore")).unwrap(),
        "# Written by mend: records and patches of runs on this repository.\n*\n"
    );
    let record_path = folder.join(format!("{stamp}.json"));
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    assert_eq!(
        (
            &record["repo"],
            &record["python"],
            &record["sandbox_choice"]
        ),
        (
            &Value::from(repo.to_str().unwrap()),
            &Value::from(python().to_str().unwrap()),
            &Value::from("none")
        )
    );
    // The records of earlier runs stay out of every later copy.
    let kept = mend_with_env(
        &repo,
        &["verify", "--json", "--sandbox", "none", "--keep-workspace"],
        &[],
    );
    let copy_path = kept
        .events()
        .into_iter()
        .find(|event| event["type"] == "workspace_kept")
        .map(|event| event["path"].as_str().unwrap().to_owned())
        .unwrap();
    let copied = tree_digest(std::path::Path::new(&copy_path));
    std::fs::remove_dir_all(&copy_path).unwrap();
    assert_eq!(
        copied
            .keys()
            .filter(|file| file.starts_with(".mend"))
            .count(),
        0
    );
    let mut after_run = sample_files.clone();
    after_run.retain(|file, _| !file.starts_with(".mend/"));
    assert_eq!(
        after_run, sample_files,
        "only .mend/ was written in the repository"
    );

    // From another folder, with an interpreter in MEND_PYTHON that cannot run: the record's
    // repository, Python and sandbox are used.
    let elsewhere = tempfile::tempdir().unwrap();
    let record_arg = record_path.to_str().unwrap();
    let replayed = mend_with_env(
        elsewhere.path(),
        &["replay", "--json", record_arg],
        &[("MEND_PYTHON", "/bin/false")],
    );
    assert_eq!(replayed.code, 0, "{}{}", replayed.stdout, replayed.stderr);
    assert_eq!(
        replayed.events()[1]["name"],
        "none",
        "the record's --sandbox"
    );
    // A flag still overrides what the record says.
    let overridden = mend_with_env(
        elsewhere.path(),
        &["replay", "--python", "/bin/false", record_arg],
        &[],
    );
    assert_ne!(overridden.code, 0, "{}", overridden.stdout);

    let applied = mend_with_env(elsewhere.path(), &["apply", record_arg], &[]);
    assert_eq!(
        (applied.code, applied.stdout),
        (
            0,
            format!(
                "Applied the run's change to {}/path_rules.py.\n",
                repo.display()
            )
        ),
        "{}",
        applied.stderr
    );
    let again = mend_with_env(elsewhere.path(), &["apply", record_arg], &[]);
    assert_eq!(
        (again.code, again.stdout),
        (
            0,
            format!(
                "The run's change is already applied in {}; nothing was written.\n",
                repo.display()
            )
        )
    );
}

#[test]
fn a_missing_repository_and_a_file_are_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-project");
    let file = dir.path().join("setup.py");
    std::fs::write(&file, "").unwrap();
    let (missing, file) = (missing.to_str().unwrap(), file.to_str().unwrap());
    let outcomes: Vec<(i32, String)> = [
        vec!["verify", "--repo", missing],
        vec!["task", "--repo", file],
        vec!["init", "--repo", file],
    ]
    .iter()
    .map(|args| {
        let outcome = mend_with_env(dir.path(), args, &[]);
        (outcome.code, outcome.stderr)
    })
    .collect();
    let fix = "--repo takes the project's folder (the one that holds mend.toml)";
    assert_eq!(
        outcomes,
        vec![
            (
                2,
                format!("mend: error: the repository {missing} does not exist — {fix}\n")
            ),
            (
                2,
                format!("mend: error: {file} is a file, not a folder — {fix}\n")
            ),
            (
                2,
                format!("mend: error: {file} is a file, not a folder — {fix}\n")
            ),
        ]
    );

    // A record whose repository is gone says so, and how to point it elsewhere.
    let mut record = fixture("repair");
    record["repo"] = Value::from(missing);
    let record_path = dir.path().join("moved.json");
    std::fs::write(&record_path, record.to_string()).unwrap();
    let replayed = mend_with_env(dir.path(), &["replay", record_path.to_str().unwrap()], &[]);
    assert_eq!(
        (replayed.code, replayed.stderr),
        (
            2,
            format!(
                "mend: error: the repository {missing} does not exist — the record names it as the repository \
                 it was made on; pass --repo DIR to replay or apply it elsewhere\n"
            )
        )
    );
}

#[test]
fn a_folder_without_a_task_file_is_told_to_run_init() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = mend_with_env(dir.path(), &["verify"], &[]);
    let here = dir.path().canonicalize().unwrap();
    assert_eq!(
        (outcome.code, outcome.stderr),
        (
            2,
            format!(
                "mend: error: {}/mend.toml does not exist: run `mend init` there to write one (see \
                 docs/task-file.md), or pass --task-file PATH\n",
                here.display()
            )
        )
    );
}

#[test]
fn replay_without_a_record_replays_the_checkout_demo_or_says_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = mend_with_env(dir.path(), &["replay"], &[]);
    assert_eq!(
        (outcome.code, outcome.stderr),
        (
            2,
            "mend: error: name the record to replay, e.g. `mend replay .mend/<stamp>.json` (`mend run` \
             writes them to REPO/.mend/)\n"
                .to_owned()
        )
    );
    let in_checkout = mend_with_env(&repo_root(), &["replay", "--json"], &[]);
    let start = in_checkout.events()[0].clone();
    assert_eq!(
        (in_checkout.code, &start["command"], &start["source"]),
        (
            0,
            &Value::from("replay"),
            &Value::from("fixtures/repair.json")
        ),
        "{}",
        in_checkout.stderr
    );
}
