//! The independent check: the repository's own tests, run outside the loop before and after.
//! Its final result is the verdict; the model's stop reason never is.

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::interrupt::Watch;
use crate::pytest::{Summary, TestRunner};
use crate::task::{TestCommand, TestReport};
use crate::truncate::keep_tail;

/// How much of pytest's output an error message quotes when pytest did not run at all.
const FAILED_START_TAIL_CHARS: usize = 600;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// `None` when the run was killed at the timeout.
    pub exit_code: Option<i32>,
    /// pytest's counts; absent when the task reads only the exit code (`test.report`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    pub duration_ms: u64,
}

impl TestRun {
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
    }

    pub fn describe(&self) -> String {
        match (self.exit_code, &self.summary) {
            (None, _) => "timed out".to_owned(),
            (Some(_), Some(summary)) => summary.describe(),
            (Some(code), None) => format!("exit {code}"),
        }
    }
}

/// Runs the task's tests in `workdir`. Failing tests are a result; a test command that cannot
/// start, or a pytest that is not there, is an error that names the fix.
pub fn independent_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<TestRun, MendError> {
    let python = &runner.python;
    // Not cut by the first Ctrl-C: a cancelled run still gets its verdict (a second one exits).
    let finished = runner.run(test, workdir, Watch::NONE)?;
    let duration_ms = u64::try_from(finished.elapsed.as_millis()).unwrap_or(u64::MAX);
    let exit_code = finished.status.and_then(|status| status.code());
    let counted = test.report == TestReport::Pytest;
    if finished.timed_out() {
        return Ok(TestRun {
            exit_code: None,
            summary: counted.then(Summary::default),
            duration_ms,
        });
    }
    if !counted {
        return Ok(TestRun {
            exit_code,
            summary: None,
            duration_ms,
        });
    }
    let summary = Summary::parse(&finished.output).ok_or_else(|| {
        MendError::harness(format!(
            "the test command `{}` printed no pytest summary (is pytest installed for `{python}`? run `make venv` or pass --python PATH; for another test runner set test.report = \"exit_code\"):\n{}",
            test.argv.join(" "),
            keep_tail(finished.output.trim(), FAILED_START_TAIL_CHARS)
        ))
    })?;
    Ok(TestRun {
        exit_code,
        summary: Some(summary),
        duration_ms,
    })
}
