//! mend's verdict as a trajectory's `extra` carries it: passed or not, why, and each test by id
//! — before the run, after it, and what became of it (the contract). A task that gives its lists
//! (an imported SWE-bench instance's FAIL_TO_PASS and PASS_TO_PASS) is graded by them: each
//! listed test is there with its list and whether it held, and the contract is the lists'.

use serde_json::{json, Map, Value};

use crate::record::Record;
use crate::verdict::grade::given::{Graded, Group};

/// SWE-bench's names for the two lists, as the instances and its reports spell them.
const LISTS: [&str; 2] = ["FAIL_TO_PASS", "PASS_TO_PASS"];

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
    if let Some(given) = &ending.given {
        for (list, group) in LISTS
            .into_iter()
            .zip([&given.fail_to_pass, &given.pass_to_pass])
        {
            for (id, mut listed) in listed_tests(list, group) {
                // A listed id that stood for other whole ids (cut at a space, truncated).
                if let Some(whole) = given.read_as.get(&id) {
                    listed.insert("read_as".to_owned(), json!(whole));
                }
                match tests.get_mut(&id) {
                    Some(Value::Object(known)) => known.extend(listed),
                    _ => {
                        tests.insert(id, Value::Object(listed));
                    }
                }
            }
        }
    }
    let contract = match (&ending.contract, &ending.given) {
        (Some(contract), _) => json!(contract),
        (None, Some(given)) => given_contract(given),
        (None, None) => Value::Null,
    };
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
        "contract": contract,
        "given": ending.given,
    })
}

/// Each test of one given list: the list, whether it held, and, when it did not, what it came to
/// (absent: it did not run).
fn listed_tests(list: &str, group: &Group) -> Vec<(String, Map<String, Value>)> {
    let held = group.success.iter().map(|id| {
        let fields = json!({"given": list, "met": true});
        (id.clone(), fields)
    });
    let missed = group.failure.iter().map(|missed| {
        let mut fields = json!({"given": list, "met": false});
        if let Some(outcome) = missed.outcome {
            fields["after"] = json!(outcome);
        }
        (missed.id.clone(), fields)
    });
    held.chain(missed)
        .filter_map(|(id, fields)| match fields {
            Value::Object(fields) => Some((id, fields)),
            _ => None,
        })
        .collect()
}

/// The contract of a task that gives its lists: each list, test by test, as graded.
fn given_contract(given: &Graded) -> Value {
    let list = |list: &str, group: &Group| -> Value {
        listed_tests(list, group)
            .into_iter()
            .map(|(id, mut fields)| {
                fields.remove("given");
                fields.insert("id".to_owned(), json!(id));
                Value::Object(fields)
            })
            .collect()
    };
    json!({
        "given": true,
        "fail_to_pass": list(LISTS[0], &given.fail_to_pass),
        "pass_to_pass": list(LISTS[1], &given.pass_to_pass),
    })
}
