//! One attempt at the task: a fresh copy, the tests before, the loop, the tests after. Shared by
//! `mend run` and `mend replay`, which differ only in where the model's turns come from.

use camino::Utf8Path;
use mend_core::Config;
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::session::driver::{Driver, ModelSource, Transcript};
use crate::session::render::{Render, RunEvent};
use crate::task::Task;
use crate::verdict::verify::{final_check, independent_check, TestRun};
use crate::workspace::changes::{set_sha256, unified_diff};
use crate::workspace::runner::TestRunner;
use crate::workspace::Workspace;

pub struct Setup<'a> {
    /// The original repository; only ever read.
    pub repo: &'a Utf8Path,
    pub task: &'a Task,
    pub runner: &'a TestRunner,
    pub keep_workspace: bool,
}

pub struct Attempt {
    pub transcript: Transcript,
    pub checks: Checks,
}

/// What the independent check saw around the loop: the tests and the hashes before and after,
/// and the diff. A record stores these as they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    pub tests_before: TestRun,
    /// The verdict.
    pub tests_after: TestRun,
    /// SHA-256 of the task's test files (see [`set_sha256`]); before and after must be equal.
    pub test_file_sha256_before: String,
    pub test_file_sha256_after: String,
    /// SHA-256 of the editable files.
    pub source_sha256_before: String,
    pub source_sha256_after: String,
    /// The unified diff of the editable files, original against the copy after the run (empty
    /// when nothing changed).
    #[serde(default)]
    pub diff: String,
}

pub fn run_attempt(
    setup: &Setup,
    config: Config,
    source: &mut dyn ModelSource,
    render: &mut dyn Render,
) -> Result<Attempt, MendError> {
    let task = setup.task;
    let test_file_sha256_before = set_sha256(setup.repo, &task.test.files)?;
    let source_sha256_before = set_sha256(setup.repo, &task.editable)?;
    let workspace = Workspace::copy_of(setup.repo, &task.exclude)?;

    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));
    let tests_before = independent_check(setup.runner, &task.test, workspace.root())?;
    render.run_event(&RunEvent::TestsBefore {
        run: tests_before.clone(),
    });

    let mut driver = Driver {
        source,
        root: workspace.root(),
        task,
        runner: setup.runner,
        observer: render,
    };
    let mut transcript = driver.run(config)?;

    let tests_after = final_check(setup.runner, &task.test, workspace.root())?;
    transcript.metrics.verify_ms = tests_before.duration_ms + tests_after.duration_ms;
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let test_file_sha256_after = set_sha256(workspace.root(), &task.test.files)?;
    let source_sha256_after = set_sha256(workspace.root(), &task.editable)?;
    let diff = unified_diff(setup.repo, workspace.root(), &task.editable)?;

    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    let checks = Checks {
        tests_before,
        tests_after,
        test_file_sha256_before,
        test_file_sha256_after,
        source_sha256_before,
        source_sha256_after,
        diff,
    };
    Ok(Attempt { transcript, checks })
}

/// The verdict: the final tests pass, and they are the tests the run started with. A run that
/// changed its own test files (through a link, or the shell tool) proves nothing.
pub fn verdict_passes(
    tests_after: &TestRun,
    test_files_before: &str,
    test_files_after: &str,
) -> bool {
    tests_after.passed() && test_files_before == test_files_after
}

impl Checks {
    pub fn passed(&self) -> bool {
        verdict_passes(
            &self.tests_after,
            &self.test_file_sha256_before,
            &self.test_file_sha256_after,
        )
    }

    pub fn test_files_changed(&self) -> bool {
        self.test_file_sha256_before != self.test_file_sha256_after
    }
}

#[cfg(test)]
mod tests {
    use super::Checks;
    use crate::verdict::summary::Summary;
    use crate::verdict::verify::TestRun;

    #[test]
    fn passing_tests_count_only_when_the_test_files_are_the_ones_the_run_started_with() {
        let passing = TestRun {
            exit_code: Some(0),
            summary: Some(Summary {
                passed: 4,
                ..Summary::default()
            }),
            duration_ms: 1,
            ..TestRun::default()
        };
        let checks = |test_file_sha256_after: &str| Checks {
            tests_before: passing.clone(),
            tests_after: passing.clone(),
            test_file_sha256_before: "aa".to_owned(),
            test_file_sha256_after: test_file_sha256_after.to_owned(),
            source_sha256_before: "bb".to_owned(),
            source_sha256_after: "cc".to_owned(),
            diff: String::new(),
        };
        assert_eq!(
            (checks("aa").passed(), checks("ff").passed()),
            (true, false)
        );
    }
}
