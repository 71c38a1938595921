//! mend's verdict as a trajectory's `extra` carries it: passed or not, why, and each test by id
//! — before the run, after it, and what became of it (the contract).

use serde_json::{json, Map, Value};

use crate::record::Record;

pub(crate) fn verdict(record: &Record) -> Value {
    let Some(ending) = &record.ending else {
        // A chat that never ended has had no independent check.
        return json!({"judged": false});
    };
    let judged = ending.verdict(&record.test_file_sha256_before);
    let mut tests = Map::new();
    if let Some(contract) = &ending.contract {
        for transition in contract
            .fail_to_pass
            .iter()
            .chain(&contract.pass_to_pass)
            .chain(&contract.added)
        {
            tests.insert(
                transition.id.clone(),
                json!({"before": transition.before, "after": transition.after}),
            );
        }
    }
    let after = &ending.tests_after;
    json!({
        "judged": true,
        "passed": judged.passed,
        "reasons": judged.reasons,
        "warnings": judged.warnings,
        "tests": tests,
        "failing": after.failing,
        "summary_after": after.summary,
        "summary_before": record.tests_before.as_ref().and_then(|run| run.summary),
        "not_trusted": after.not_trusted,
        "test_files_changed": record.test_files_changed(),
        "contract": ending.contract,
    })
}
