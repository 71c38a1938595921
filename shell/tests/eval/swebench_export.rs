//! An eval's attempts exported in SWE-bench's layout (`mend eval export --swebench`) and graded
//! by the pinned `swebench` package's own grading (fixtures/readers/swebench_report.py): on every
//! instance and attempt it reads from the exported log what mend reported, and mend's report is
//! the record's own grade of the given lists.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common;

fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// What the harness's grading writes into report.json for each exported instance of `export`,
/// without its advisory triage of a log it could not read (which mend leaves to it).
fn harness_reports(export: &Path, rows: &[Value]) -> Vec<Value> {
    let cases: Vec<Value> = rows
        .iter()
        .map(|row| {
            let id = row["instance_id"].as_str().unwrap();
            let list = |name: &str| -> Value {
                serde_json::from_str(row[name].as_str().unwrap()).unwrap()
            };
            json!({
                "instance_id": id,
                "log_path": export.join(id).join("test_output.txt"),
                "log_parser": "parse_log_pytest",
                "eval_type": "pass_and_fail",
                "FAIL_TO_PASS": list("FAIL_TO_PASS"),
                "PASS_TO_PASS": list("PASS_TO_PASS"),
            })
        })
        .collect();
    let script = common::repo_root().join("fixtures/readers/swebench_report.py");
    let mut child = Command::new(common::python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json!(cases).to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "SWE-bench's grading did not run (`make venv` installs it): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut reports: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    for report in &mut reports {
        for entry in report.as_object_mut().unwrap().values_mut() {
            let entry = entry.as_object_mut().unwrap();
            entry.remove("infra_failure_reason");
            entry.insert("infra_failure".to_owned(), json!(false));
        }
    }
    reports
}

/// The record's own grade of the given lists, as ids: resolved, and each list's success and
/// failure.
fn mend_grade(record: &Value) -> Value {
    let given = &record["ending"]["given"];
    let ids = |group: &str, side: &str| -> Vec<String> {
        given[group][side]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item.get("id").unwrap_or(item).as_str().unwrap().to_owned())
            .collect()
    };
    let groups =
        |group: &str| json!({"success": ids(group, "success"), "failure": ids(group, "failure")});
    json!({
        "resolved": ids("fail_to_pass", "failure").is_empty() && ids("pass_to_pass", "failure").is_empty(),
        "FAIL_TO_PASS": groups("fail_to_pass"),
        "PASS_TO_PASS": groups("pass_to_pass"),
    })
}

/// Exports each of the `k` attempts of the eval in `out` and has the harness grade them; returns
/// per attempt the instances the harness called resolved.
pub fn exported_attempts_grade_as_mend_graded(
    dir: &Path,
    out: &Path,
    rows: &[Value],
    k: u32,
) -> BTreeMap<u32, Vec<String>> {
    let mut resolved = BTreeMap::new();
    for attempt in 0..k {
        let export = dir.join(format!("swebench-{attempt}"));
        let exported = common::mend(&[
            "eval",
            "export",
            &arg(out),
            "--swebench",
            &arg(&export),
            "--attempt",
            &attempt.to_string(),
        ]);
        assert_eq!(exported.code, 0, "{}", exported.stderr);
        let theirs = harness_reports(&export, rows);
        for (row, theirs) in rows.iter().zip(theirs) {
            let id = row["instance_id"].as_str().unwrap();
            let ours: Value = serde_json::from_str(
                &fs::read_to_string(export.join(id).join("report.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(ours, theirs, "{id} attempt {attempt}");
            let record: Value = serde_json::from_str(
                &fs::read_to_string(out.join(id).join(format!("{attempt}.json"))).unwrap(),
            )
            .unwrap();
            let status = &theirs[id]["tests_status"];
            assert_eq!(
                mend_grade(&record),
                json!({
                    "resolved": theirs[id]["resolved"],
                    "FAIL_TO_PASS": status["FAIL_TO_PASS"],
                    "PASS_TO_PASS": status["PASS_TO_PASS"],
                }),
                "{id} attempt {attempt}"
            );
            let patch = fs::read_to_string(out.join(id).join(format!("{attempt}.patch")))
                .unwrap_or_default();
            assert_eq!(
                fs::read_to_string(export.join(id).join("patch.diff")).unwrap(),
                patch
            );
            if theirs[id]["resolved"] == json!(true) {
                resolved
                    .entry(attempt)
                    .or_insert_with(Vec::new)
                    .push(id.to_owned());
            }
        }
    }
    resolved
}
