//! `mend eval report --compare DIR_A DIR_B`: two runs naming the same model (two settings) are
//! set side by side per task rather than refused as one run seen twice.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::common;

fn results(dir: &Path, passes: &[(&str, &[bool])]) {
    fs::create_dir_all(dir).expect("mkdir");
    let lines: String = passes
        .iter()
        .flat_map(|(task, outcomes)| {
            outcomes.iter().enumerate().map(move |(attempt, passed)| {
                format!(
                    "{}\n",
                    json!({"task": task, "attempt": attempt, "seed": attempt, "stop": "assistant_finished", "passed": passed,
                           "turns": 2, "tokens": 100, "model_ms": 1000, "tool_ms": 10, "test_ms": 100,
                           "record": format!("{task}/{attempt}.json"), "suite_sha256": "s", "task_file_sha256": "t",
                           "repo_sha256": "r", "model": "qwen3:8b", "model_digest": "500a1f067a9f", "k": 2})
                )
            })
        })
        .collect();
    fs::write(dir.join("results.jsonl"), lines).expect("results");
}

#[test]
fn two_settings_of_one_model_are_compared_per_task_not_refused() {
    let dir = tempfile::tempdir().expect("temp");
    let (a, b) = (dir.path().join("t0"), dir.path().join("t07"));
    results(
        &a,
        &[
            ("alpha", &[false, false]),
            ("beta", &[true, false]),
            ("gamma", &[true, true]),
        ],
    );
    results(
        &b,
        &[
            ("alpha", &[true, false]),
            ("beta", &[true, true]),
            ("gamma", &[true, true]),
        ],
    );
    let (a_arg, b_arg) = (a.display().to_string(), b.display().to_string());
    let merged = common::mend(&["eval", "report", &a_arg, &b_arg]);
    let compared = common::mend(&["eval", "report", "--compare", &a_arg, &b_arg]);
    assert_eq!(
        merged.code, 4,
        "merging them is still refused: {}",
        merged.stderr
    );
    assert_eq!(
        (compared.code, compared.stdout),
        (
            0,
            format!(
                "A {a_arg}: qwen3:8b (digest 500a1f067a9f)\nB {b_arg}: qwen3:8b (digest 500a1f067a9f)\n\
                 task                     A pass@1 B pass@1     B - A  A pass@2  B pass@2   A tokens   B tokens\n\
                 alpha                       0.000    0.500    +0.500     0.000     1.000        200        200\n\
                 beta                        0.500    1.000    +0.500     1.000     1.000        200        200\n\
                 gamma                       1.000    1.000    +0.000     1.000     1.000        200        200\n\
                 mean                        0.500    0.833    +0.333\n\
                 B - A mean pass@1: 95 % interval [+0.007, +0.660] over 3 tasks (normal approximation over paired tasks: mean of (B - A) pass@1 ± 1.96 × sd / √n)\n"
            )
        )
    );
}
