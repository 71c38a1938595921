//! `mend mcp` driven by the official MCP Python SDK (in the project venv): the handshake, the
//! tool list, `task`, and `verify` with and without a patch — whose verdict is the one `mend
//! verify` gives for the same change — and a verify of a folder that does not exist; and on a
//! task in SWE-bench's shape, a verify that answers only whether the change resolves it and how
//! many tests passed, with no held-out id, source or output (the caller may be the model).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::benchmark::{instance, BUGGY, FIXED, HELD_OUT, HIDDEN_FILE_TEST, HIDDEN_TEST, TAX_TEST};
use crate::common::turns::{NEW, OLD};
use crate::common::{mend, python, repo_root, sample_copy, tree_digest};

/// The sample's fix as a unified diff (`path_rules.py`, line 13).
fn fix_patch() -> String {
    format!("--- a/path_rules.py\n+++ b/path_rules.py\n@@ -13 +13 @@\n-{OLD}\n+{NEW}\n")
}

/// What the official MCP client got from `mend mcp` for `calls` (`KEY: [TOOL, ARGUMENTS]`), with
/// the older handshake.
fn mcp_client(calls: Value) -> Value {
    mcp_client_in(&python(), "legacy", calls)
}

/// The Python of the venv `make test` makes with the SDK's previous line (1.x), which speaks
/// only the older handshake: mend serves the clients people still run.
fn previous_sdk_python() -> PathBuf {
    let python = repo_root().join("target/interop-venvs/mcp1/bin/python");
    assert!(
        python.exists(),
        "{} is missing: `make test` makes it (the Makefile's MCP1_VENV)",
        python.display()
    );
    python
}

/// As [`mcp_client`], with the SDK installed for `client`, in `era`: `legacy` (initialize) or
/// `modern` (2026-07-28, stateless).
fn mcp_client_in(client: &Path, era: &str, calls: Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let calls_path = dir.path().join("calls.json");
    std::fs::write(&calls_path, calls.to_string()).unwrap();
    let output = Command::new(client)
        .arg(repo_root().join("shell/tests/interop/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_mend"))
        .arg(&calls_path)
        .arg(era)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the MCP client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The `tests_after` event `mend verify --json` prints in `sandbox`, with a patch file or
/// without.
fn verify_event(repo: &str, sandbox: &str, patch: Option<&str>) -> Value {
    let mut args = vec!["verify", "--json", "--sandbox", sandbox, "--repo", repo];
    if let Some(patch) = patch {
        args.extend(["--patch", patch]);
    }
    let outcome = mend(&args);
    outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == "tests_after")
        .unwrap_or_else(|| {
            panic!(
                "no tests_after event:\n{}\n{}",
                outcome.stdout, outcome.stderr
            )
        })
}

/// The run `mend verify --json` reports, with a patch file or without.
fn verify_by_cli(repo: &str, patch: Option<&str>) -> Value {
    verify_event(repo, "none", patch)["run"].clone()
}

/// What the CLI and MCP both say of a run: its counts and failing tests.
fn judged(run: &Value) -> Value {
    json!({"exit_code": run["exit_code"], "summary": run["summary"], "failing": run.get("failing").cloned().unwrap_or(json!([]))})
}

#[test]
fn the_python_sdk_verifies_a_patch_over_mcp_as_mend_verify_does() {
    let repo = sample_copy();
    let repo_path = repo.path().to_str().unwrap().to_owned();
    let before = tree_digest(repo.path());
    let dir = tempfile::tempdir().unwrap();
    let patch_path = dir.path().join("fix.patch");
    std::fs::write(&patch_path, fix_patch()).unwrap();
    let python = python();
    let python = python.to_str().unwrap();
    let sdks = [
        (crate::common::python(), "legacy", "2025-11-25"),
        (previous_sdk_python(), "legacy", "2025-11-25"),
        (crate::common::python(), "modern", "2026-07-28"),
    ];
    for (client, era, version) in sdks {
        let got = mcp_client_in(
            &client,
            era,
            json!({
                "task": ["task", {"repo": repo_path}],
                "verify": ["verify", {"repo": repo_path, "python": python, "sandbox": "none", "detail": "tests"}],
                "verify_patched": ["verify", {"repo": repo_path, "patch": fix_patch(), "python": python, "sandbox": "none", "detail": "tests"}],
                "verify_short": ["verify", {"repo": repo_path, "python": python, "sandbox": "none"}],
                "verify_missing": ["verify", {"repo": format!("{repo_path}/no-such-folder")}],
            }),
        );
        let results = &got["results"];
        let test = |name: &str| format!("tests/test_path_rules.py::{name}");
        let tests_before = json!({
            test("test_selects_only_python_under_src"): "passed",
            test("test_preserves_nested_modules"): "passed",
            test("test_accepts_windows_separators"): "failed",
            test("test_empty_changes_select_nothing"): "passed",
        });
        let task = &results["task"]["structured"];
        assert_eq!(
            (
                &got["protocol_version"],
                &got["server"],
                &got["tools"],
                json!([
                    task["readable"],
                    task["editable"],
                    task["test_files"],
                    task["test_command"]
                ]),
            ),
            (
                &json!(version),
                &json!("mend"),
                &json!(["task", "verify"]),
                json!([
                    ["path_rules.py", "tests/test_path_rules.py"],
                    ["path_rules.py"],
                    ["tests/test_path_rules.py"],
                    ["python", "-m", "pytest", "-q"]
                ]),
            )
        );
        // An error result has no structured content: its text says why.
        for key in ["verify", "verify_patched"] {
            assert_eq!(
                results[key]["is_error"],
                json!(false),
                "{era} {key}: {}",
                results[key]["text"]
            );
        }
        let verify = &results["verify"]["structured"];
        let patched = &results["verify_patched"]["structured"];
        let all_passed: Value = tests_before
            .as_object()
            .unwrap()
            .keys()
            .map(|id| (id.clone(), json!("passed")))
            .collect::<serde_json::Map<_, _>>()
            .into();
        assert_eq!(
            (
                &verify["passed"],
                &verify["tests"],
                &patched["passed"],
                &patched["tests"],
                &patched["patch_applied"],
            ),
            (
                &json!(false),
                &tests_before,
                &json!(true),
                &all_passed,
                &json!(true)
            )
        );
        // The same verdict as `mend verify`, with the patch and without.
        assert_eq!(
            (judged(verify), judged(patched)),
            (
                judged(&verify_by_cli(&repo_path, None)),
                judged(&verify_by_cli(
                    &repo_path,
                    Some(patch_path.to_str().unwrap())
                ))
            )
        );
        let missing = &results["verify_missing"];
        assert_eq!(
            (&missing["is_error"], &missing["structured"]),
            (&json!(true), &Value::Null)
        );
        assert!(
            missing["text"][0]
                .as_str()
                .unwrap()
                .contains("no-such-folder"),
            "{missing}"
        );
        // By default the answer is bounded: counts, failing ids and the output's end, no test map.
        let short = &results["verify_short"]["structured"];
        assert_eq!(
            (
                short.get("tests"),
                &short["failing"],
                &short["failing_count"],
                short["output_tail"]
                    .as_str()
                    .map(|tail| tail.chars().count() <= 1_500),
            ),
            (
                None,
                &json!([test("test_accepts_windows_separators")]),
                &json!(1),
                Some(true)
            )
        );
    }
    assert_eq!(
        tree_digest(repo.path()),
        before,
        "the repository was written"
    );
}

/// The invoice fix as a unified diff against the instance's `invoice/totals.py`.
fn invoice_fix(repo: &Path) -> String {
    let source = std::fs::read_to_string(repo.join("invoice/totals.py")).unwrap();
    let line = source
        .lines()
        .position(|line| format!("{line}\n") == BUGGY)
        .unwrap()
        + 1;
    format!(
        "--- a/invoice/totals.py\n+++ b/invoice/totals.py\n@@ -{line} +{line} @@\n-{BUGGY}+{FIXED}"
    )
}

#[test]
fn a_verify_over_mcp_of_a_task_with_held_out_tests_answers_resolved_and_counts_only() {
    // The task offers the shell tool, which runs only in bubblewrap.
    let instance = instance();
    let root = instance.repo.path();
    let repo = root.to_str().unwrap().to_owned();
    let before = tree_digest(root);
    let fix = invoice_fix(root);
    let python = python();
    let python = python.to_str().unwrap();
    let got = mcp_client(json!({
        "as_it_is": ["verify", {"repo": repo, "python": python, "sandbox": "bwrap", "detail": "tests"}],
        "fixed": ["verify", {"repo": repo, "patch": fix, "python": python, "sandbox": "bwrap", "detail": "tests"}],
    }));
    let results = &got["results"];
    // `mend verify` of the same change: the run the counts come from, the grade the counts
    // are of, the files put back.
    let dir = tempfile::tempdir().unwrap();
    let patch_path = dir.path().join("fix.patch");
    std::fs::write(&patch_path, &fix).unwrap();
    let by_cli = |patch: Option<&str>| verify_event(&repo, "bwrap", patch);
    let counted = |group: &Value| {
        json!({
            "success": group["success"].as_array().unwrap().len(),
            "failure": group["failure"].as_array().unwrap().len(),
        })
    };
    let expected = |event: Value, passed: bool, patch_applied: bool| {
        json!({
            "passed": passed,
            "counts": event["run"]["summary"],
            "held_out_files": HELD_OUT.len(),
            "given": {
                "fail_to_pass": counted(&event["given"]["fail_to_pass"]),
                "pass_to_pass": counted(&event["given"]["pass_to_pass"]),
            },
            "withheld": "this task holds tests out of the attempt (test.held_out): verify answers whether the change resolves it and how many tests passed or failed, never their ids, source or output, so that it cannot be used to learn what the held-out tests check",
            "warnings": [],
            "sandbox": "bwrap",
            "patch_applied": patch_applied,
        })
    };
    let cli_fixed = by_cli(Some(patch_path.to_str().unwrap()));
    assert_eq!(cli_fixed["given"]["fail_to_pass"]["failure"], json!([]));
    assert_eq!(
        (
            &results["as_it_is"]["structured"],
            &results["fixed"]["structured"]
        ),
        (
            &expected(by_cli(None), false, false),
            &expected(cli_fixed, true, true)
        ),
        "{got}"
    );
    // Nothing of the held-out tests anywhere in what the client got, text content included.
    let said = got.to_string();
    let named: Vec<&str> = [TAX_TEST, HIDDEN_TEST, HIDDEN_FILE_TEST]
        .into_iter()
        .chain(HELD_OUT.iter().copied())
        .filter(|secret| said.contains(secret))
        .collect();
    assert_eq!(named, Vec::<&str>::new(), "{said}");
    assert_eq!(tree_digest(root), before, "the repository was written");
}
