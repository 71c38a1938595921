//! `mend mcp` driven by the official MCP Python SDK (in the project venv): the handshake, the
//! tool list, `task`, and `verify` with and without a patch — whose verdict is the one `mend
//! verify` gives for the same change — and a verify of a folder that does not exist.

use std::process::Command;

use serde_json::{json, Value};

use crate::common::turns::{NEW, OLD};
use crate::common::{mend, python, repo_root, sample_copy, tree_digest};

/// The sample's fix as a unified diff (`path_rules.py`, line 13).
fn fix_patch() -> String {
    format!("--- a/path_rules.py\n+++ b/path_rules.py\n@@ -13 +13 @@\n-{OLD}\n+{NEW}\n")
}

/// The run `mend verify --json` reports, with a patch file or without.
fn verify_by_cli(repo: &str, patch: Option<&str>) -> Value {
    let mut args = vec!["verify", "--json", "--sandbox", "none", "--repo", repo];
    if let Some(patch) = patch {
        args.extend(["--patch", patch]);
    }
    let outcome = mend(&args);
    outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == "tests_after")
        .map(|event| event["run"].clone())
        .unwrap_or_else(|| {
            panic!(
                "no tests_after event:\n{}\n{}",
                outcome.stdout, outcome.stderr
            )
        })
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
    let output = Command::new(python())
        .arg(repo_root().join("shell/tests/interop/mcp_client.py"))
        .args([
            env!("CARGO_BIN_EXE_mend"),
            &repo_path,
            patch_path.to_str().unwrap(),
        ])
        .arg(python())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the MCP client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
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
            &json!("2025-11-25"),
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
    assert_eq!(
        tree_digest(repo.path()),
        before,
        "the repository was written"
    );
}
