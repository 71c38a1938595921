use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use crate::task::{GivenTests, ListedIds, SkippedPassToPass};
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::Summary;

/// A final run of pytest -rA: each test's outcome, the summary and the failing ids from them,
/// and the output pytest prints for them (its short summary lines).
fn pytest_run(exit: Option<i32>, outcomes: &[(&str, CaseOutcome)]) -> (TestRun, String) {
    use CaseOutcome::*;
    let count = |wanted: CaseOutcome| {
        u32::try_from(outcomes.iter().filter(|(_, got)| *got == wanted).count()).unwrap()
    };
    let summary = Summary {
        passed: count(CaseOutcome::Passed),
        failed: count(CaseOutcome::Failed),
        errors: count(CaseOutcome::Error),
        skipped: count(CaseOutcome::Skipped),
        xfailed: count(CaseOutcome::Xfailed),
    };
    let failing = outcomes
        .iter()
        .filter(|(_, got)| matches!(got, CaseOutcome::Failed | CaseOutcome::Error))
        .map(|(id, _)| (*id).to_owned())
        .collect();
    // The short summary of `-rA`, in pytest's order; a skip is folded into a line naming no test.
    let mut output = String::from("============================= test session starts ==============================\n\n=========================== short test summary info ============================\n");
    for wanted in [Passed, Skipped, Xfailed, Error, Failed] {
        for (id, _) in outcomes.iter().filter(|(_, got)| *got == wanted) {
            output.push_str(&match wanted {
                Passed => format!("PASSED {id}\n"),
                Skipped => "SKIPPED [1] t.py:7: not today\n".to_owned(),
                Xfailed => format!("XFAIL {id} - known\n"),
                Error => format!("ERROR {id} - RuntimeError\n"),
                Failed => format!("FAILED {id} - assert 0\n"),
            });
        }
    }
    let run = TestRun {
        exit_code: exit,
        summary: Some(summary),
        failing,
        cases: outcomes
            .iter()
            .map(|(id, outcome)| ((*id).to_owned(), *outcome))
            .collect(),
        ..TestRun::default()
    };
    (run, output)
}

fn graded(run: &TestRun, fail_to_pass: &[&str], pass_to_pass: &[&str]) -> Graded {
    let given = GivenTests {
        fail_to_pass: fail_to_pass.iter().map(|id| (*id).to_owned()).collect(),
        pass_to_pass: pass_to_pass.iter().map(|id| (*id).to_owned()).collect(),
        ids: ListedIds::UpToFirstSpace,
        skipped: SkippedPassToPass::Kept,
    };
    Graded::grade(&given, &run.cases)
}

#[test]
fn the_log_holds_the_output_between_the_markers_and_the_exit_status_after() {
    let (run, output) = pytest_run(Some(1), &[("t.py::a", CaseOutcome::Failed)]);
    assert_eq!(
        test_output(&run, &output),
        format!(
            ">>>>> Start Test Output\n{output}>>>>> End Test Output\n>>>>> Test Exit Code: 1\n"
        )
    );
    let cut = TestRun {
        exit_code: None,
        not_trusted: Some(Untrusted::Unfinished(Note::TimedOut { seconds: 9 })),
        ..TestRun::default()
    };
    assert_eq!(
        test_output(&cut, "collected 3 items"),
        ">>>>> Start Test Output\ncollected 3 items\n>>>>> End Test Output\n>>>>> Tests Timed Out\n"
    );
    let refused = TestRun {
        not_trusted: Some(Untrusted::HeldOutPatchRefused {
            patch: ".mend/test.patch".to_owned(),
            problem: "tests/t.py: no such file".to_owned(),
        }),
        ..TestRun::default()
    };
    assert_eq!(
        test_output(&refused, ""),
        "mend: the test patch .mend/test.patch does not apply over the change: tests/t.py: no such file\n"
    );
}

/// Runs the harness's grading (fixtures/readers/swebench_report.py) on each log; its answers
/// keyed as report.json is, without the advisory triage of a log it could not read
/// (`infra_failure`, `infra_failure_reason`), which mend leaves to the harness.
fn harness_reports(logs: &[(String, &Graded, &[&str], &[&str])]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<Value> = logs
        .iter()
        .enumerate()
        .map(|(n, (log, _, fail_to_pass, pass_to_pass))| {
            let path = dir.path().join(format!("{n}.txt"));
            std::fs::write(&path, log).unwrap();
            json!({
                "instance_id": format!("i-{n}"),
                "log_path": path,
                "log_parser": "parse_log_pytest",
                "eval_type": "pass_and_fail",
                "FAIL_TO_PASS": fail_to_pass,
                "PASS_TO_PASS": pass_to_pass,
            })
        })
        .collect();
    let answers: Vec<Value> =
        crate::test_support::swebench_script("swebench_report.py", &json!(cases));
    answers
        .into_iter()
        .map(|mut answer| {
            for entry in answer.as_object_mut().unwrap().values_mut() {
                let entry = entry.as_object_mut().unwrap();
                entry.remove("infra_failure_reason");
                entry.insert("infra_failure".to_owned(), json!(false));
            }
            answer
        })
        .collect()
}

#[test]
fn the_harness_grades_each_kind_of_run_from_the_log_as_mend_reports_it() {
    use CaseOutcome::*;
    let ids = ["t.py::fixed", "t.py::kept", "t.py::p[a b]"];
    let runs: Vec<(&str, TestRun, String)> = vec![
        (
            "resolved",
            Some(0),
            vec![(ids[0], Passed), (ids[1], Passed), (ids[2], Passed)],
        ),
        (
            "still failing",
            Some(1),
            vec![(ids[0], Failed), (ids[1], Passed), (ids[2], Passed)],
        ),
        (
            "a kept test skipped",
            Some(0),
            vec![(ids[0], Passed), (ids[1], Skipped), (ids[2], Xfailed)],
        ),
        (
            "an error",
            Some(1),
            vec![(ids[0], Passed), (ids[1], Error), (ids[2], Passed)],
        ),
        (
            "non-zero, no failure",
            Some(2),
            vec![(ids[0], Passed), (ids[1], Passed)],
        ),
        ("nothing ran", Some(5), vec![]),
        ("killed", None, vec![(ids[0], Passed)]),
    ]
    .into_iter()
    .map(|(name, exit, outcomes)| {
        let (run, output) = pytest_run(exit, &outcomes);
        (name, run, output)
    })
    .collect();
    let (fail_to_pass, pass_to_pass) = (&[ids[0]][..], &[ids[1], "t.py::p[a"][..]);
    let mut cases = Vec::new();
    let mut ours = BTreeMap::new();
    for (n, (name, run, output)) in runs.iter().enumerate() {
        let given = graded(run, fail_to_pass, pass_to_pass);
        ours.insert(*name, json!({ format!("i-{n}"): report(run, &given) }));
        cases.push((test_output(run, output), given));
    }
    let logs: Vec<(String, &Graded, &[&str], &[&str])> = cases
        .iter()
        .map(|(log, given)| (log.clone(), given, fail_to_pass, pass_to_pass))
        .collect();
    let theirs: BTreeMap<&str, Value> = runs
        .iter()
        .map(|(name, ..)| *name)
        .zip(harness_reports(&logs))
        .collect();
    assert_eq!(ours, theirs);
    // The cases differ where they should: not every run reads the same.
    let resolved: Vec<&str> = ours
        .iter()
        .filter(|(_, report)| {
            report.as_object().unwrap().values().next().unwrap()["resolved"] == json!(true)
        })
        .map(|(name, _)| *name)
        .collect();
    // A skipped test is named by no line of `-rA`: listed to keep passing, it did not run.
    assert_eq!(resolved, ["resolved"]);
}
