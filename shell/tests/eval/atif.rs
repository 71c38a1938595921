//! `mend eval report --atif DIR`: every attempt of a real eval (two tasks, k = 4, the scripted
//! model) as an ATIF trajectory, each validated by the `atif` package's models, with the
//! attempt's verdict.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{atif_checked, mend};
use crate::server::SeededServer;
use crate::{fixes, suite_folder};

#[test]
fn every_attempt_of_an_eval_exports_as_a_trajectory_the_atif_models_validate() {
    let server = SeededServer::start(fixes());
    let dir = suite_folder(&server.base);
    let suite = dir.path().join("suite.toml").display().to_string();
    let out = dir.path().join("out").display().to_string();
    let ran = mend(&["eval", &suite, "--out", &out, "--jobs", "2"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let atif = dir.path().join("atif");
    let report = mend(&[
        "eval",
        "report",
        &out,
        "--json",
        "--atif",
        atif.to_str().unwrap(),
    ]);
    assert_eq!(report.code, 0, "{}", report.stderr);

    let mut files: Vec<_> = std::fs::read_dir(&atif)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    let checked = atif_checked(&files);
    // Each trajectory's verdict is its attempt's, as the results lines say.
    let by_file: BTreeMap<String, Value> = files
        .iter()
        .zip(&checked)
        .map(|(file, summary)| {
            let name = file.file_name().unwrap().to_str().unwrap().to_owned();
            (name, summary["verdict"]["passed"].clone())
        })
        .collect();
    let report: Value = serde_json::from_str(report.stdout.trim()).unwrap();
    let expected: BTreeMap<String, Value> = results_rows(&out)
        .into_iter()
        .map(|row| {
            let name = format!("{}-{}.json", row["task"].as_str().unwrap(), row["attempt"]);
            (name, row["passed"].clone())
        })
        .collect();
    assert_eq!(by_file, expected, "{report}");
    assert_eq!(by_file.len(), 8);
}

/// Every results line of an eval's --out folder.
fn results_rows(out: &str) -> Vec<Value> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .flat_map(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).unwrap())
                .collect::<Vec<_>>()
        })
        .filter(|row| row.get("task").is_some())
        .collect()
}
