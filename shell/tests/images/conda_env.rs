//! An image-only SWE-bench row whose image keeps the tests' environment in a prefix that must
//! be activated (the `conda` tag of build-image.sh: pytest only in
//! /opt/miniconda3/envs/testbed, found once `conda activate testbed` puts it on PATH). The
//! imported task runs its command as the harness does, after the activation, so the check
//! grades it; the bare command finds the image's base `python` and no pytest.

use std::fs;

use crate::support::{layout, mend_images};
use serde_json::json;

const GOLD: &str = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -3,4 +3,4 @@ def double(x):\n \n \n def half(x):\n-    return x // 3\n+    return x // 2\n";
const TEST_PATCH: &str = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -7,3 +7,7 @@ def test_double():\n \n def test_half():\n     assert half(8) == 4\n+\n+\n+def test_half_of_ten():\n+    assert half(10) == 5\n";

#[test]
fn an_image_row_runs_its_tests_in_the_activated_environment() {
    let dir = tempfile::tempdir().unwrap();
    let image = format!("oci:{}:conda", layout().display());
    let row = json!({
        "instance_id": "calc__calc-7",
        "repo": "calc/calc",
        "version": "1.0",
        "base_commit": "0123456789abcdef",
        "image_name": image,
        "patch": GOLD,
        "test_patch": TEST_PATCH,
        "problem_statement": "half(8) must be 4.",
        "FAIL_TO_PASS": "[\"tests/test_calc.py::test_half\", \"tests/test_calc.py::test_half_of_ten\"]",
        "PASS_TO_PASS": "[\"tests/test_calc.py::test_double\"]",
    });
    let file = dir.path().join("instances.jsonl");
    fs::write(&file, format!("{row}\n")).unwrap();
    let suite = dir.path().join("suite");
    let cache = dir.path().join("cache");
    let imported = crate::common::mend(&[
        "eval",
        "import",
        file.to_str().unwrap(),
        "--out",
        suite.to_str().unwrap(),
    ]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    let checked = mend_images(
        &cache,
        &["eval", "check", suite.join("suite.toml").to_str().unwrap()],
        &[],
    );
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    let check: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(suite.join("suite.check.json")).unwrap()).unwrap();
    let task = &check["tasks"][0];
    assert_eq!(
        json!([task["status"], task["problems"], task["failing_before"]]),
        json!([
            "valid",
            [],
            [
                "tests/test_calc.py::test_half",
                "tests/test_calc.py::test_half_of_ten"
            ]
        ]),
        "{check}"
    );
    // The same task with the bare command: the image's own `python` has no pytest.
    let task_file = suite.join("tasks/calc__calc-7/mend.toml");
    let text = fs::read_to_string(&task_file).unwrap();
    let start = text.find("command = ").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    let bare = format!(
        "{}command = [\"python\", \"-m\", \"pytest\", \"-rA\", \"tests/test_calc.py\"]{}",
        &text[..start],
        &text[end..]
    );
    fs::write(&task_file, bare).unwrap();
    let verified = mend_images(
        &cache,
        &["verify", "--task-file", task_file.to_str().unwrap()],
        &[],
    );
    assert_ne!(verified.code, 0, "{}", verified.stdout);
    assert!(
        verified.stdout.contains("No module named pytest")
            || verified.stderr.contains("No module named pytest"),
        "{}\n{}",
        verified.stdout,
        verified.stderr
    );
    // `--python` names the environment's interpreter by its path inside the image: the bare
    // command runs there and grades the image's unfixed project, the held-out tests included.
    let inside = mend_images(
        &cache,
        &[
            "verify",
            "--json",
            "--python",
            "/opt/miniconda3/envs/testbed/bin/python",
            "--task-file",
            task_file.to_str().unwrap(),
        ],
        &[],
    );
    let run = inside.tests_after();
    assert_eq!(
        (inside.code, run["summary"].clone()),
        (
            1,
            json!({"passed": 1, "failed": 2, "errors": 0, "skipped": 0})
        ),
        "{}",
        inside.stderr
    );
    // A path the image does not hold is named with the side it was looked up on.
    let missing = mend_images(
        &cache,
        &[
            "verify",
            "--python",
            "/usr/bin/python9",
            "--task-file",
            task_file.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        (missing.code, missing.stderr.trim_end().lines().last().unwrap_or("")),
        (2, format!("mend: error: --python names the Python `/usr/bin/python9`, looked up inside the image {image} (the task runs there, not on this machine), which has no such file — name the interpreter by its absolute path inside the image (e.g. /opt/miniconda3/envs/testbed/bin/python), or leave --python out to use the image's own `python`").as_str()),
    );
}

/// A row as swebench 5.x writes it: its `eval_script` (the harness's activation, git
/// housekeeping, the install, the test command between the markers) and `log_parser`.
#[test]
fn a_five_x_row_runs_its_eval_script_in_the_image_and_is_read_by_its_log_parser() {
    let dir = tempfile::tempdir().unwrap();
    let image = format!("oci:{}:conda", layout().display());
    let script = "#!/bin/bash\nset -uxo pipefail\nsource /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\ngit config --global --add safe.directory /testbed\ngit status\ngit -c core.fileMode=false diff 0123456789abcdef\nsource /opt/miniconda3/bin/activate\nconda activate testbed\npython -m pip install -e .\ngit checkout 0123456789abcdef tests/test_calc.py\ngit apply -v - <<'EOF_114329324912'\nEOF_114329324912\n: '>>>>> Start Test Output'\npytest -rA tests/test_calc.py\n: '>>>>> End Test Output'\ngit checkout 0123456789abcdef tests/test_calc.py\n";
    let row = json!({
        "instance_id": "calc__calc-8",
        "repo": "calc/calc",
        "version": "1.0",
        "base_commit": "0123456789abcdef",
        "image": image,
        "eval_script": script,
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
        "patch": GOLD,
        "test_patch": TEST_PATCH,
        "problem_statement": "half(8) must be 4.",
        "FAIL_TO_PASS": ["tests/test_calc.py::test_half", "tests/test_calc.py::test_half_of_ten"],
        "PASS_TO_PASS": ["tests/test_calc.py::test_double"],
    });
    let file = dir.path().join("instances.jsonl");
    fs::write(&file, format!("{row}\n")).unwrap();
    let suite = dir.path().join("suite");
    let imported = crate::common::mend(&[
        "eval",
        "import",
        file.to_str().unwrap(),
        "--out",
        suite.to_str().unwrap(),
    ]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    let task = fs::read_to_string(suite.join("tasks/calc__calc-8/mend.toml")).unwrap();
    assert!(
        task.contains("command = [\"bash\", \"-c\", \"\"\"\nsource /opt/miniconda3/bin/activate\nconda activate testbed\npytest -rA tests/test_calc.py\"\"\"]\n")
            && task.contains("report = \"pytest-ra\""),
        "{task}"
    );
    let cache = dir.path().join("cache");
    let checked = mend_images(
        &cache,
        &["eval", "check", suite.join("suite.toml").to_str().unwrap()],
        &[],
    );
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    let check: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(suite.join("suite.check.json")).unwrap()).unwrap();
    let task = &check["tasks"][0];
    assert_eq!(
        json!([task["status"], task["problems"], task["failing_before"]]),
        json!([
            "valid",
            [],
            [
                "tests/test_calc.py::test_half",
                "tests/test_calc.py::test_half_of_ten"
            ]
        ]),
        "{check}"
    );
}
