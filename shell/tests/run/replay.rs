//! Every fixture replayed by the real binary, with real tools and real pytest on temporary
//! copies, checked against the figures of `fixtures/README.md`; and the original sample checked
//! byte for byte after every command.

use crate::common;
use crate::common::{fixture, mend, repo_root, tree_digest, Outcome};
use serde_json::{json, Value};

/// The figures a replay is judged by, compared as one value.
#[derive(Debug, PartialEq)]
struct Figures {
    exit_code: i32,
    model_turns: usize,
    tool_calls: Vec<(String, String)>,
    stop: String,
    tests_before: Value,
    tests_after: Value,
    replay_matched: bool,
}

fn figures(outcome: &Outcome) -> Figures {
    let events = outcome.events();
    let of_type = |kind: &'static str| events.iter().filter(move |event| event["type"] == kind);
    let summary = |kind: &'static str| {
        of_type(kind)
            .next()
            .map(|event| event["run"]["summary"].clone())
            .unwrap_or(Value::Null)
    };
    let verdict = of_type("verdict").next().cloned().unwrap_or(Value::Null);
    Figures {
        exit_code: outcome.code,
        model_turns: of_type("model_start").count(),
        tool_calls: of_type("tool_result")
            .map(|event| {
                (
                    event["name"].as_str().unwrap().to_owned(),
                    event["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect(),
        stop: of_type("stopped")
            .next()
            .map(|event| event["reason"].as_str().unwrap().to_owned())
            .unwrap_or_default(),
        tests_before: summary("tests_before"),
        tests_after: summary("tests_after"),
        replay_matched: verdict["replay_matched"] == json!(true),
    }
}

/// The path of the copy `--keep-workspace` kept, as the JSON events report it.
fn kept_workspace(outcome: &Outcome) -> std::path::PathBuf {
    outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == "workspace_kept")
        .and_then(|event| event["path"].as_str().map(std::path::PathBuf::from))
        .expect("the kept workspace is reported")
}

fn counts(passed: u32, failed: u32) -> Value {
    json!({"passed": passed, "failed": failed, "errors": 0, "skipped": 0})
}

fn calls(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(name, status)| ((*name).to_owned(), (*status).to_owned()))
        .collect()
}

fn replay(fixture: &str) -> Outcome {
    let sample_before = tree_digest(&repo_root().join("sample-repo"));
    let outcome = mend(&["replay", "--json", &format!("fixtures/{fixture}.json")]);
    assert_eq!(
        tree_digest(&repo_root().join("sample-repo")),
        sample_before,
        "the original sample changed"
    );
    outcome
}

#[test]
fn the_recorded_repair_passes_in_five_turns_and_four_calls() {
    let outcome = replay("repair");
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 0,
            model_turns: 5,
            tool_calls: calls(&[
                ("read_file", "ok"),
                ("read_file", "ok"),
                ("replace_text", "ok"),
                ("run_tests", "ok")
            ]),
            stop: "assistant_finished".to_owned(),
            tests_before: counts(3, 1),
            tests_after: counts(4, 0),
            replay_matched: true,
        }
    );
    let record = fixture("repair");
    assert_eq!(
        record["test_file_sha256_before"], record["test_file_sha256_after"],
        "the test file must not change"
    );
}

#[test]
fn the_repaired_module_accepts_windows_separators() {
    let outcome = mend(&[
        "replay",
        "--json",
        "--keep-workspace",
        "fixtures/repair.json",
    ]);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let kept = kept_workspace(&outcome);
    // One backslash per separator, as a Windows change list writes it.
    let check = "from path_rules import python_sources\n\
                 assert python_sources(['src\\\\api\\\\routes.py']) == ['src/api/routes.py'], python_sources(['src\\\\api\\\\routes.py'])\n\
                 assert python_sources(['src/app.py', 'docs/setup.md']) == ['src/app.py']\n";
    let status = std::process::Command::new(common::python())
        .args(["-c", check])
        .current_dir(&kept)
        .status()
        .expect("python runs");
    std::fs::remove_dir_all(&kept).unwrap();
    assert!(
        status.success(),
        "the repaired module does not select the Windows-style path"
    );
}

#[test]
fn the_bounded_run_sends_one_request_and_stops_at_the_budget() {
    let outcome = replay("bounded");
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 1,
            model_turns: 1,
            tool_calls: calls(&[("read_file", "ok")]),
            stop: "max_turns".to_owned(),
            tests_before: counts(3, 1),
            tests_after: counts(3, 1),
            replay_matched: true,
        }
    );
}

#[test]
fn the_unfinished_stream_runs_no_tool_and_leaves_the_copy_unchanged() {
    let outcome = mend(&[
        "replay",
        "--json",
        "--keep-workspace",
        "fixtures/unfinished.json",
    ]);
    let kept = kept_workspace(&outcome);
    let unchanged = tree_digest(&kept) == tree_digest(&repo_root().join("sample-repo"));
    std::fs::remove_dir_all(&kept).unwrap();
    assert!(unchanged, "the workspace changed although no tool ran");
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 1,
            model_turns: 1,
            tool_calls: vec![],
            stop: "incomplete_model_turn".to_owned(),
            tests_before: counts(3, 1),
            tests_after: counts(3, 1),
            replay_matched: true,
        }
    );
}

#[test]
fn a_false_claim_of_success_is_judged_by_the_tests() {
    let outcome = replay("false-claim");
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 1,
            model_turns: 2,
            tool_calls: calls(&[("run_tests", "ok")]),
            stop: "assistant_finished".to_owned(),
            tests_before: counts(3, 1),
            tests_after: counts(3, 1),
            replay_matched: true,
        }
    );
}

#[test]
fn the_broken_turns_end_with_their_reasons_and_run_nothing() {
    let cases = [
        (
            "unknown-tool",
            2,
            calls(&[("shell", "refused")]),
            "assistant_finished",
        ),
        ("length", 1, vec![], "incomplete_model_turn"),
        ("model-error", 1, vec![], "model_error"),
    ];
    for (fixture, model_turns, tool_calls, stop) in cases {
        let outcome = replay(fixture);
        assert_eq!(
            figures(&outcome),
            Figures {
                exit_code: 1,
                model_turns,
                tool_calls,
                stop: stop.to_owned(),
                tests_before: counts(3, 1),
                tests_after: counts(3, 1),
                replay_matched: true,
            },
            "{fixture}"
        );
    }
}

#[test]
fn the_second_task_is_repaired_with_the_general_tools() {
    let repo = repo_root().join("fixtures/slugify-repo");
    let repo_before = tree_digest(&repo);
    // No --repo: the record names the repository it was made on.
    let outcome = mend(&["replay", "--json", "fixtures/slugify.json"]);
    assert_eq!(
        tree_digest(&repo),
        repo_before,
        "the original repository changed"
    );
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 0,
            model_turns: 7,
            tool_calls: calls(&[
                ("list_files", "ok"),
                ("grep", "ok"),
                ("read_file", "ok"),
                ("read_file", "ok"),
                ("run_tests", "ok"),
                ("write_file", "ok"),
                ("run_tests", "ok")
            ]),
            stop: "assistant_finished".to_owned(),
            tests_before: counts(4, 3),
            tests_after: counts(7, 0),
            replay_matched: true,
        }
    );
}

#[test]
fn the_second_tasks_repair_applies_to_a_pristine_copy_and_passes() {
    let copy = common::copy_of(&repo_root().join("fixtures/slugify-repo"));
    let repo = copy.path().to_str().unwrap();
    let applied = mend(&["apply", "fixtures/slugify.json", "--repo", repo]);
    assert_eq!(
        (applied.code, applied.stdout),
        (
            0,
            format!("Applied the run's change to {repo}/textkit/slug.py.\n")
        )
    );
    let verified = mend(&["verify", "--repo", repo, "--json"]);
    assert_eq!(
        verified.code, 0,
        "the applied repair passes: {}",
        verified.stdout
    );
}

#[test]
fn a_run_cancelled_while_a_tool_ran_replays_to_the_same_cut() {
    // The bounded run's first turn asks for read_file; Ctrl-C landed while it ran, so the
    // record keeps the call without a result and stops `cancelled`.
    let mut record = fixture("bounded");
    record["max_turns"] = json!(8);
    record["tool_calls"][0]["result"] = Value::Null;
    record["stop"] = json!({"reason": "cancelled"});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.json");
    std::fs::write(&path, record.to_string()).unwrap();
    let outcome = mend(&["replay", "--json", path.to_str().unwrap()]);
    assert_eq!(
        figures(&outcome),
        Figures {
            exit_code: 1,
            model_turns: 1,
            tool_calls: vec![],
            stop: "cancelled".to_owned(),
            tests_before: counts(3, 1),
            tests_after: counts(3, 1),
            replay_matched: true,
        }
    );
}
