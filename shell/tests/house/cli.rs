//! The command line's failures: each ends with one clear message and its documented exit code,
//! and leaves the original repository untouched.

use crate::common::{fixture, installed_runner, mend, mend_in, sample_copy, tree_digest};
use serde_json::Value;

#[test]
fn replay_refuses_a_sample_whose_tests_changed() {
    let copy = sample_copy();
    let test_file = copy.path().join("tests/test_path_rules.py");
    let mut text = std::fs::read_to_string(&test_file).unwrap();
    text.push_str("\n\ndef test_added_later():\n    assert True\n");
    std::fs::write(&test_file, text).unwrap();
    let before = tree_digest(copy.path());

    let repo = copy.path().to_str().unwrap();
    let outcome = mend(&["replay", "--repo", repo, "fixtures/repair.json"]);
    assert_eq!(outcome.code, 4, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains(&format!(
            "tests/test_path_rules.py in {repo} changed since this run was recorded"
        )),
        "{}",
        outcome.stderr
    );
    assert_eq!(outcome.stdout, "", "nothing ran");
    assert_eq!(tree_digest(copy.path()), before);
}

#[test]
fn replay_reports_the_first_divergence_from_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = fixture("repair");
    record["tool_calls"][2]["result"]["replaced"] = Value::from(2);
    let tampered = dir.path().join("tampered.json");
    std::fs::write(&tampered, serde_json::to_string(&record).unwrap()).unwrap();

    let outcome = mend(&["replay", "--json", tampered.to_str().unwrap()]);
    assert_eq!(outcome.code, 3, "{}", outcome.stderr);
    let divergence: Vec<Value> = outcome
        .events()
        .into_iter()
        .filter(|event| event["type"] == "divergence")
        .collect();
    assert_eq!(divergence.len(), 1);
    assert_eq!(
        divergence[0]["what"],
        "turn 3, tool call 0 (`replace_text`)"
    );
    assert_eq!(
        divergence[0]["expected"]["result"],
        serde_json::json!({"path": "path_rules.py", "replaced": 2})
    );
    assert_eq!(
        divergence[0]["got"]["result"],
        serde_json::json!({"path": "path_rules.py", "replaced": 1})
    );
}

#[test]
fn usage_errors_and_unreadable_records_have_their_codes() {
    let bad_flag = mend(&["replay", "--no-such-flag"]);
    assert_eq!(bad_flag.code, 2);

    let missing = mend(&["replay", "fixtures/does-not-exist.json"]);
    assert_eq!(missing.code, 4);
    assert!(
        missing
            .stderr
            .starts_with("mend: error: cannot read the record fixtures/does-not-exist.json"),
        "{}",
        missing.stderr
    );

    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"format\": \"mend-record/1\"").unwrap();
    let unreadable = mend(&["replay", garbage.to_str().unwrap()]);
    assert_eq!(unreadable.code, 4);
    assert!(
        unreadable.stderr.contains("is not a mend record"),
        "{}",
        unreadable.stderr
    );
}

#[test]
fn a_python_without_pytest_is_named_with_the_fix() {
    let outcome = mend(&["verify", "--repo", "sample-repo", "--python", "/bin/false"]);
    assert_eq!(outcome.code, 6, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("the test command `python -m pytest -q` gave no verdict: the tests stopped before reporting: exit 1 with no pytest report — is pytest installed for `/bin/false`?"),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains(
            "Install it there (`/bin/false -m pip install pytest`) or pass --python PATH."
        ),
        "{}",
        outcome.stderr
    );
    assert!(!outcome.stderr.contains("make venv"), "{}", outcome.stderr);
}

#[test]
fn verify_reports_the_pristine_sample_as_failing() {
    let outcome = mend(&[
        "verify",
        "--repo",
        "sample-repo",
        "--json",
        "--sandbox",
        "bwrap",
    ]);
    assert_eq!(outcome.code, 1, "{}", outcome.stderr);
    let mut events = outcome.events();
    // The duration and pytest's output (with its timing) vary from run to run.
    let run = events[1]["run"].as_object_mut().unwrap();
    run.remove("duration_ms");
    let tail = run.remove("output_tail").unwrap_or_default();
    assert!(
        tail.as_str()
            .unwrap_or_default()
            .contains("FAILED tests/test_path_rules.py::test_accepts_windows_separators"),
        "{tail}"
    );
    // The times vary too: each is a whole number of milliseconds.
    if let Some(costs) = events.get_mut(2).and_then(|event| event.as_object_mut()) {
        for value in costs.values_mut().filter(|value| value.is_u64()) {
            *value = serde_json::json!("ms");
        }
    }
    assert_eq!(
        events,
        vec![
            serde_json::json!({"type": "sandbox", "name": "bwrap"}),
            serde_json::json!({"type": "tests_after", "run": {"exit_code": 1, "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0}, "failing": ["tests/test_path_rules.py::test_accepts_windows_separators"], "runner": installed_runner()}}),
            serde_json::json!({"type": "costs", "setup_ms": "ms", "copy_ms": "ms", "sandbox_start_ms": "ms", "tests_ms": "ms", "cleanup_ms": "ms"}),
        ]
    );
}

#[test]
fn help_lists_the_exit_codes() {
    let outcome = mend(&["replay", "--help"]);
    assert_eq!(outcome.code, 0);
    assert!(
        outcome.stdout.contains("3  replay divergence"),
        "{}",
        outcome.stdout
    );
}

#[test]
fn a_malformed_task_file_is_a_usage_error_that_names_line_and_field() {
    let copy = sample_copy();
    let task_file = copy.path().join("mend.toml");
    let text = std::fs::read_to_string(&task_file)
        .unwrap()
        .replace("timeout_seconds = 120", "timeout_seconds = -120");
    std::fs::write(&task_file, text).unwrap();
    let before = tree_digest(copy.path());
    let outcome = mend(&["verify", "--repo", copy.path().to_str().unwrap()]);
    assert_eq!(
        (outcome.code, outcome.stderr),
        (
            2,
            format!(
                "mend: error: {}:29: invalid value: integer `-120`, expected u64 (in test.timeout_seconds) (see docs/task-file.md)\n",
                task_file.display()
            )
        )
    );
    assert_eq!(tree_digest(copy.path()), before);
}

#[test]
fn replay_diverges_at_the_first_request_when_the_task_file_changed_the_tools() {
    let copy = sample_copy();
    let task_file = copy.path().join("mend.toml");
    let text = std::fs::read_to_string(&task_file).unwrap().replace(
        "read_file_line_range = false",
        "read_file_line_range = true",
    );
    std::fs::write(&task_file, text).unwrap();
    let outcome = mend(&[
        "replay",
        "--json",
        "--repo",
        copy.path().to_str().unwrap(),
        "fixtures/repair.json",
    ]);
    assert_eq!(outcome.code, 3, "{}", outcome.stderr);
    let divergences: Vec<Value> = outcome
        .events()
        .into_iter()
        .filter(|event| event["type"] == "divergence")
        .map(|mut event| {
            event["expected"] = Value::from("…");
            event["got"] = Value::from("…");
            event
        })
        .collect();
    assert_eq!(
        divergences,
        vec![serde_json::json!({
            "type": "divergence",
            "what": "the first request (sha256 of its body: prompts and tool schemas)",
            "expected": "…",
            "got": "…"
        })]
    );
}

#[test]
fn a_run_without_a_prompt_is_told_where_to_give_one() {
    let copy = sample_copy();
    let task_file = copy.path().join("mend.toml");
    let text = std::fs::read_to_string(&task_file).unwrap();
    let start = text.find("[task]").unwrap();
    let end = text.find("[paths]").unwrap();
    std::fs::write(&task_file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    // No server is needed to learn this: the address is never asked.
    let outcome = mend(&[
        "run",
        "--repo",
        copy.path().to_str().unwrap(),
        "--host",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(
        (outcome.code, outcome.stderr),
        (
            2,
            format!(
                "mend: error: {} has no task.prompt: add one, or say what to do with --task \"...\"\n",
                task_file.display()
            )
        )
    );
}

#[test]
fn a_task_with_another_test_runner_is_judged_by_its_exit_code() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(
        repo.path().join("mend.toml"),
        r#"
[paths]
readable = ["*.txt"]
editable = ["*.txt"]
[test]
command = ["/bin/sh", "-c", "grep -q fixed state.txt"]
timeout_seconds = 10
report = "exit_code"
[tools]
enabled = ["read_file", "write_file", "run_tests"]
"#,
    )
    .unwrap();
    std::fs::write(repo.path().join("state.txt"), "broken\n").unwrap();
    let verify = || {
        let outcome = mend(&["verify", "--json", "--repo", repo.path().to_str().unwrap()]);
        let mut run = outcome.tests_after();
        run.as_object_mut().unwrap().remove("duration_ms");
        (outcome.code, run)
    };
    assert_eq!(
        verify(),
        (1, serde_json::json!({"exit_code": 1, "by_exit_code": true}))
    );
    std::fs::write(repo.path().join("state.txt"), "fixed\n").unwrap();
    assert_eq!(
        verify(),
        (0, serde_json::json!({"exit_code": 0, "by_exit_code": true}))
    );
}

#[test]
fn verify_in_a_subfolder_works_on_the_project_above_and_says_so() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(
        repo.path().join("mend.toml"),
        r#"
[paths]
readable = ["**/*.txt"]
editable = ["*.txt"]
[test]
command = ["/bin/sh", "-c", "grep -q fixed state.txt"]
timeout_seconds = 10
report = "exit_code"
files = ["tests/*.txt"]
[tools]
enabled = ["read_file", "write_file", "run_tests"]
"#,
    )
    .unwrap();
    std::fs::write(repo.path().join("state.txt"), "fixed\n").unwrap();
    let tests = repo.path().join("tests").join("deeper");
    std::fs::create_dir_all(&tests).unwrap();
    let root = repo.path().canonicalize().unwrap();
    let outcome = mend_in(&tests, &["verify", "--json"]);
    let mut run = outcome.tests_after();
    run.as_object_mut().unwrap().remove("duration_ms");
    let said: Vec<&str> = outcome
        .stderr
        .lines()
        .filter(|line| line.contains("mend.toml"))
        .collect();
    assert_eq!(
        (outcome.code, run, said),
        (
            0,
            serde_json::json!({"exit_code": 0, "by_exit_code": true}),
            vec![format!(
                "mend: working on the project at {} (the nearest folder above with a mend.toml)",
                root.display()
            )
            .as_str()]
        )
    );
}
