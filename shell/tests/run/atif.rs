//! `mend export --atif`: a resumed record (two messages, a run cut by its turn budget and gone
//! on live) and a replayed fixture exported, then loaded and validated by the `atif` package's
//! models in the project venv, and what they hold compared whole.

use std::path::Path;

use serde_json::json;

use crate::common::server::Server;
use crate::common::turns::{fix, say, script, DIGEST, MODEL, NEW, OLD};
use crate::common::{atif_checked, mend, repo_root};
use crate::support::{cut_by_max_turns, records, resume};

fn export(record: &Path, out: &Path) {
    let exported = mend(&[
        "export",
        "--atif",
        record.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
}

#[test]
fn a_resumed_run_and_a_replayed_fixture_export_as_trajectories_the_atif_models_validate() {
    let (repo, dir, first, second) = records();
    let (_server, cut) = cut_by_max_turns(repo.path(), &first);
    assert_eq!(cut.code, 1, "{}", cut.stderr);
    let live = Server::start(script(vec![fix("c2"), say("Fixed.")]));
    let resumed = resume(&live.base, &first, &second, &["--max-turns", "3"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);

    let files = [
        dir.path().join("second.atif.json"),
        dir.path().join("repair.atif.json"),
    ];
    export(&second, &files[0]);
    export(&repo_root().join("fixtures/repair.json"), &files[1]);
    let got = atif_checked(&files);

    let id = |name: &str| format!("tests/test_path_rules.py::{name}");
    let kept = json!({"before": "passed", "after": "passed"});
    let tests = json!({
        id("test_accepts_windows_separators"): {"before": "failed", "after": "passed"},
        id("test_empty_changes_select_nothing"): kept,
        id("test_preserves_nested_modules"): kept,
        id("test_selects_only_python_under_src"): kept,
    });
    let resumed_summary = &got[0];
    let verdict = &resumed_summary["verdict"];
    assert_eq!(
        json!({
            "schema_version": resumed_summary["schema_version"],
            "agent": resumed_summary["agent"],
            "sources": resumed_summary["sources"],
            "calls": resumed_summary["calls"],
            "observed": resumed_summary["observed"],
            "timed": resumed_summary["timed"],
            "total_steps": resumed_summary["total_steps"],
            "verdict": [verdict["judged"], verdict["passed"], &verdict["tests"]],
        }),
        json!({
            "schema_version": "ATIF-v1.8",
            "agent": ["mend", MODEL, DIGEST],
            "sources": ["system", "user", "agent", "user", "agent", "agent"],
            "calls": [
                [["read_file", {"path": "path_rules.py"}]],
                [["replace_text", {"old": OLD, "new": NEW}]],
                [],
            ],
            "observed": [["c1"], ["c2"], []],
            "timed": true,
            "total_steps": 3,
            "verdict": [true, true, tests],
        })
    );
    // The fixture (a record of the oldest format) keeps its token counts per turn.
    let fixture = &got[1];
    assert_eq!(
        (
            fixture["sources"].as_array().map(Vec::len),
            fixture["tokens"]
                .as_array()
                .map(|tokens| tokens.iter().all(|t| t[0].as_u64() > Some(0))),
            &fixture["verdict"]["passed"],
        ),
        (Some(7), Some(true), &json!(true))
    );
}
