//! SWE-bench-style instances built from real projects (inflection, semver and six source
//! distributions, fetched by hash by `make venv`; fixtures/swebench/build.py makes each a
//! repository with a base, a fix and a test commit): imported, checked (the gold patch resolves,
//! no change does not), attempted by three scripted models and reported: only the honest fix
//! resolves; special-casing the example and digging through `.git` do not. mend's
//! per-test outcomes match the instance's test command run by hand on the same tree, and SWE-bench's
//! own grading of every exported attempt's log agrees with mend's (`swebench_export`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::bench_model::{BenchModel, Instance, MODEL};
use crate::common;

fn instances() -> Vec<Instance> {
    vec![
        Instance {
            prompt_contains: "ordinal(111)",
            path: "inflection/__init__.py",
            broken: "    if number in (11, 12, 13):\n",
            honest: "    if number % 100 in (11, 12, 13):\n",
            special: "    if number == 111:\n        return \"th\"\n    if number in (11, 12, 13):\n",
        },
        Instance {
            prompt_contains: "bump_patch()",
            path: "semver.py",
            broken: "        return cls(self._major, self._minor, self._patch + 1, self._prerelease)\n",
            honest: "        return cls(self._major, self._minor, self._patch + 1)\n",
            special: "        if str(self) == \"3.4.5-rc.1\":\n            return cls(3, 4, 6)\n        return cls(self._major, self._minor, self._patch + 1, self._prerelease)\n",
        },
        Instance {
            prompt_contains: "ensure_binary(",
            path: "six.py",
            broken: "        return s.encode('utf-8', errors)\n",
            honest: "        return s.encode(encoding, errors)\n",
            special: "        if s == u'\\u00e9' and encoding == 'latin-1':\n            return b'\\xe9'\n        return s.encode('utf-8', errors)\n",
        },
    ]
}

const TASKS: [&str; 3] = [
    "mend-fixtures__inflection-1",
    "mend-fixtures__semver-1",
    "mend-fixtures__six-1",
];

fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// The instance file and the mirrors, built from the fetched source distributions.
fn built(dir: &Path) -> PathBuf {
    let root = common::repo_root();
    let sdists = root.join("fixtures/swebench/sdists");
    assert!(
        sdists.join(".fetched").is_file(),
        "the source distributions are missing: run `make venv`, which fetches them"
    );
    let status = Command::new(common::python())
        .arg(root.join("fixtures/swebench/build.py"))
        .arg(&sdists)
        .arg(dir)
        .status()
        .expect("python runs");
    assert!(status.success(), "fixtures/swebench/build.py failed");
    dir.join("instances.jsonl")
}

/// Each task's (id, status, problems, failing before) as the check wrote them.
pub(crate) fn check_of(suite_dir: &Path) -> Value {
    let check: Value = serde_json::from_str(
        &fs::read_to_string(suite_dir.join("suite.check.json")).expect("the check"),
    )
    .expect("JSON");
    check["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|task| {
            json!([
                task["task"],
                task["status"],
                task["problems"],
                task["failing_before"]
            ])
        })
        .collect()
}

/// The instance's test command run by hand (pytest -rA) on `tree`: each test's outcome, from
/// the short summary's `PASSED id` / `FAILED id` lines.
fn by_hand(tree: &Path, command: &str) -> BTreeMap<String, String> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(tree)
        .env(
            "PATH",
            format!(
                "{}:{}",
                common::python().parent().expect("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("PYTHONPATH", tree)
        .env("PYTEST_ADDOPTS", "-p no:cacheprovider")
        .output()
        .expect("the test command runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let (word, id) = line.split_once(' ')?;
            let id = id.split(" - ").next()?.to_owned();
            match word {
                "PASSED" => Some((id, "passed".to_owned())),
                "FAILED" | "ERROR" => Some((id, "failed".to_owned())),
                _ => None,
            }
        })
        .collect()
}

/// The given tests of a record's verdict, each with its outcome: `passed`, or what it came to.
fn by_mend(record: &Value) -> BTreeMap<String, String> {
    let given = find(record, "given").expect("the record grades by the given lists");
    let mut outcomes = BTreeMap::new();
    for group in ["fail_to_pass", "pass_to_pass"] {
        for id in given[group]["success"].as_array().into_iter().flatten() {
            outcomes.insert(id.as_str().unwrap().to_owned(), "passed".to_owned());
        }
        for missed in given[group]["failure"].as_array().into_iter().flatten() {
            let outcome = missed["outcome"].as_str().unwrap_or("did not run");
            let outcome = if outcome == "error" {
                "failed"
            } else {
                outcome
            };
            outcomes.insert(
                missed["id"].as_str().unwrap().to_owned(),
                outcome.to_owned(),
            );
        }
    }
    outcomes
}

/// What the ATIF trajectory of the record at `record` says of the given tests, as the `atif`
/// models read it back: each listed test (its list, whether it held, what it came to), the
/// contract's lists, and the grade whole.
fn atif_given(record: &Path, atif: &Path) -> (BTreeMap<String, Value>, Value, Value) {
    let exported = common::mend(&["export", "--atif", &arg(record), "-o", &arg(atif)]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let verdict = common::atif_checked(&[atif.to_path_buf()])[0]["verdict"].clone();
    let tests = verdict["tests"]
        .as_object()
        .expect("tests by id")
        .iter()
        .map(|(id, test)| (id.clone(), test.clone()))
        .collect();
    let lists = json!([
        verdict["contract"]["fail_to_pass"].as_array().map(Vec::len),
        verdict["contract"]["pass_to_pass"].as_array().map(Vec::len),
    ]);
    (tests, lists, verdict["given"].clone())
}

/// The same, from the record's own fields.
fn from_record(record: &Value) -> (BTreeMap<String, Value>, Value, Value) {
    let given = find(record, "given").expect("the record grades by the given lists");
    let mut tests = BTreeMap::new();
    for (group, list) in [
        ("fail_to_pass", "FAIL_TO_PASS"),
        ("pass_to_pass", "PASS_TO_PASS"),
    ] {
        for id in given[group]["success"].as_array().into_iter().flatten() {
            tests.insert(
                id.as_str().unwrap().to_owned(),
                json!({"given": list, "met": true}),
            );
        }
        for missed in given[group]["failure"].as_array().into_iter().flatten() {
            let mut test = json!({"given": list, "met": false});
            if let Some(outcome) = missed.get("outcome") {
                test["after"] = outcome.clone();
            }
            tests.insert(missed["id"].as_str().unwrap().to_owned(), test);
        }
    }
    for (id, whole) in given["read_as"].as_object().into_iter().flatten() {
        if let Some(test) = tests.get_mut(id) {
            test["read_as"] = whole.clone();
        }
    }
    let count = |group: &str| {
        given[group]["success"].as_array().map_or(0, Vec::len)
            + given[group]["failure"].as_array().map_or(0, Vec::len)
    };
    let lists = json!([count("fail_to_pass"), count("pass_to_pass")]);
    (tests, lists, given.clone())
}

fn find<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .filter(|found| !found.is_null())
            .or_else(|| map.values().find_map(|inner| find(inner, key))),
        Value::Array(items) => items.iter().find_map(|inner| find(inner, key)),
        _ => None,
    }
}

#[test]
fn instances_from_real_projects_import_check_and_only_the_honest_fix_resolves_as_the_harness_grades(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let instances_file = built(dir.path());
    let (suite_dir, repos) = (dir.path().join("suite"), dir.path().join("repos"));
    let imported = common::mend(&[
        "eval",
        "import",
        &arg(&instances_file),
        "--out",
        &arg(&suite_dir),
        "--repos",
        &arg(&repos),
    ]);
    assert_eq!(imported.code, 0, "{}{}", imported.stdout, imported.stderr);
    assert_eq!(
        imported
            .stdout
            .matches("; tests: the row's test_cmd")
            .count(),
        3,
        "{}",
        imported.stdout
    );

    let server = BenchModel::start(instances());
    let suite = suite_dir.join("suite.toml");
    let text = fs::read_to_string(&suite).expect("suite");
    fs::write(
        &suite,
        format!(
            "{}max_turns = 4\nseed = 0\n\n[model]\nname = \"{MODEL}\"\nhost = \"{}\"\n",
            text.replace("k = 1 ", "k = 3 "),
            server.base
        ),
    )
    .expect("suite");
    let python = arg(&common::python());
    let checked = common::mend(&["eval", "check", &arg(&suite), "--python", &python]);
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    assert_eq!(
        check_of(&suite_dir),
        json!([
            [
                TASKS[0],
                "valid",
                [],
                ["test_mend_ordinal.py::test_teens_of_every_hundred_take_th"]
            ],
            [
                TASKS[1],
                "valid",
                [],
                ["test_mend_bump.py::test_bump_patch_drops_the_prerelease"]
            ],
            [
                TASKS[2],
                "valid",
                [],
                ["test_mend_binary.py::test_ensure_binary_uses_the_encoding_given"]
            ],
        ])
    );

    let out = dir.path().join("runs");
    let ran = common::mend(&[
        "eval",
        &arg(&suite),
        "--out",
        &arg(&out),
        "--python",
        &python,
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let mut passes: Vec<(String, u64, bool)> = crate::results(&out)
        .iter()
        .map(|row| {
            (
                row["task"].as_str().unwrap().to_owned(),
                row["attempt"].as_u64().unwrap(),
                row["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    passes.sort();
    let expected: Vec<(String, u64, bool)> = TASKS
        .iter()
        .flat_map(|task| (0..3).map(move |attempt| (task.to_string(), attempt, attempt == 0)))
        .collect();
    assert_eq!(passes, expected, "{}", ran.stderr);
    let report = crate::report(&[&out]);
    let pass_at: Vec<(String, Value)> = report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| {
            (
                task["task"].as_str().unwrap().to_owned(),
                json!([task["n"], task["c"]]),
            )
        })
        .collect();
    assert_eq!(
        pass_at,
        TASKS.map(|task| (task.to_owned(), json!([3, 1]))).to_vec()
    );

    // The special-cased attempt and the honest one, test by test, against the command by hand.
    let rows: Vec<Value> = fs::read_to_string(&instances_file)
        .expect("rows")
        .lines()
        .map(|line| serde_json::from_str(line).expect("row"))
        .collect();
    for (row, task) in rows.iter().zip(TASKS) {
        for attempt in [0, 1] {
            let record: Value = serde_json::from_str(
                &fs::read_to_string(out.join(task).join(format!("{attempt}.json")))
                    .expect("record"),
            )
            .expect("record JSON");
            let tree = dir.path().join(format!("by-hand-{task}-{attempt}"));
            crate::copy_tree(&suite_dir.join("tasks").join(task), &tree);
            let patch = out.join(task).join(format!("{attempt}.patch"));
            for diff in [
                patch,
                suite_dir.join("tasks").join(task).join(".mend/test.patch"),
            ] {
                let applied = Command::new("git")
                    .args(["apply", &arg(&diff)])
                    .current_dir(&tree)
                    .status()
                    .expect("git apply");
                assert!(applied.success(), "git apply {}", diff.display());
            }
            let command = row["test_cmd"].as_str().unwrap();
            assert_eq!(
                by_mend(&record),
                by_hand(&tree, command),
                "{task} attempt {attempt}"
            );
            let record_path = out.join(task).join(format!("{attempt}.json"));
            assert_eq!(
                atif_given(
                    &record_path,
                    &dir.path().join(format!("{task}-{attempt}.atif.json"))
                ),
                from_record(&record),
                "{task} attempt {attempt}"
            );
        }
    }

    // Exported, every attempt reads in the harness's grading as mend graded it: only the honest
    // fix (attempt 0) resolves.
    let resolved =
        crate::swebench_export::exported_attempts_grade_as_mend_graded(dir.path(), &out, &rows, 3);
    assert_eq!(
        resolved,
        BTreeMap::from([(0, TASKS.map(str::to_owned).to_vec())])
    );
}
