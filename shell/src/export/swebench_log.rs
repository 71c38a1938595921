//! One attempt as SWE-bench's harness leaves an instance: `test_output.txt`, the test command's
//! output between the markers its grading looks for (swebench.harness.constants), and
//! `report.json`, the report its `get_eval_report` writes, here filled with mend's own grade.
//!
//! The report follows the harness's reading of the log, on mend's account of the same run: no
//! verdict when the run never happened (the test patch refused), was cut (time limit, signal),
//! read no test at all, or exited non-zero while no test failed; else the given lists as mend
//! graded them (`verdict::grade::given`), resolved when neither list has a failure.

use serde::Serialize;

use crate::verdict::check::TestRun;
use crate::verdict::grade::given::{Graded, Group};
use crate::verdict::read::note::Note;
use crate::verdict::trust::untrusted::Untrusted;

pub(crate) const START_TEST_OUTPUT: &str = ">>>>> Start Test Output";
pub(crate) const END_TEST_OUTPUT: &str = ">>>>> End Test Output";
const TEST_EXIT_CODE: &str = ">>>>> Test Exit Code";
const TESTS_TIMEOUT: &str = ">>>>> Tests Timed Out";
const TESTS_ERROR: &str = ">>>>> Tests Errored";

/// The log of the final run `run`, whose whole output is `output`, as the harness's eval script
/// prints it: the output between the markers, then the test command's exit status.
pub(crate) fn test_output(run: &TestRun, output: &str) -> String {
    if let Some(Untrusted::HeldOutPatchRefused { patch, problem }) = &run.not_trusted {
        // No test ran: no markers, which the harness reads as a test patch that did not apply.
        return format!("mend: the test patch {patch} does not apply over the change: {problem}\n");
    }
    let output = output.strip_suffix('\n').unwrap_or(output);
    let mut log = format!("{START_TEST_OUTPUT}\n{output}\n{END_TEST_OUTPUT}\n");
    match (run.exit_code, timed_out(run)) {
        (Some(code), _) => log.push_str(&format!("{TEST_EXIT_CODE}: {code}\n")),
        (None, true) => log.push_str(&format!("{TESTS_TIMEOUT}\n")),
        (None, false) => log.push_str(&format!("{TESTS_ERROR}\n")),
    }
    log
}

fn timed_out(run: &TestRun) -> bool {
    let timeout = |note: &Note| matches!(note, Note::TimedOut { .. });
    run.note.as_ref().is_some_and(timeout)
        || matches!(&run.not_trusted, Some(Untrusted::Unfinished(note)) if timeout(note))
}

/// `report.json`: the instance's entry, keyed by its id, in the harness's field order.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub(crate) struct InstanceReport {
    #[serde(rename = "patch_is_None")]
    patch_is_none: bool,
    patch_exists: bool,
    patch_successfully_applied: bool,
    resolved: bool,
    infra_failure: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    tests_status: Option<TestsStatus>,
}

#[derive(Debug, PartialEq, Eq, Serialize)]
struct TestsStatus {
    #[serde(rename = "FAIL_TO_PASS")]
    fail_to_pass: Ids,
    #[serde(rename = "PASS_TO_PASS")]
    pass_to_pass: Ids,
    #[serde(rename = "FAIL_TO_FAIL")]
    fail_to_fail: Ids,
    #[serde(rename = "PASS_TO_FAIL")]
    pass_to_fail: Ids,
}

#[derive(Debug, Default, PartialEq, Eq, Serialize)]
struct Ids {
    success: Vec<String>,
    failure: Vec<String>,
}

impl Ids {
    fn of(group: &Group) -> Ids {
        Ids {
            success: group.success.clone(),
            failure: group
                .failure
                .iter()
                .map(|missed| missed.id.clone())
                .collect(),
        }
    }
}

/// The report of a final run `run` whose given lists mend graded as `given`.
pub(crate) fn report(run: &TestRun, given: &Graded) -> InstanceReport {
    let read = read_as_the_harness_would(run);
    InstanceReport {
        patch_is_none: false,
        patch_exists: true,
        patch_successfully_applied: read,
        resolved: read && given.resolved(),
        infra_failure: false,
        tests_status: read.then(|| TestsStatus {
            fail_to_pass: Ids::of(&given.fail_to_pass),
            pass_to_pass: Ids::of(&given.pass_to_pass),
            fail_to_fail: Ids::default(),
            pass_to_fail: Ids::default(),
        }),
    }
}

/// Whether the harness would find test results in the log [`test_output`] writes, told from
/// mend's account of the run (`get_logs_eval`'s rules).
fn read_as_the_harness_would(run: &TestRun) -> bool {
    let Some(code) = run.exit_code else {
        return false;
    };
    if matches!(run.not_trusted, Some(Untrusted::HeldOutPatchRefused { .. })) {
        return false;
    }
    let Some(summary) = &run.summary else {
        return false;
    };
    let failed = summary.failed + summary.errors > 0 || !run.failing.is_empty();
    let any = summary.passed + summary.skipped + summary.xfailed > 0 || failed;
    any && (code == 0 || failed)
}

#[cfg(test)]
mod tests;
