//! One attempt at the task: a fresh copy, the tests before, the loop, the tests after. Shared by
//! `mend run` and `mend replay`, which differ only in where the model's turns come from.

use camino::Utf8Path;
use mend_core::Config;

use crate::error::MendError;
use crate::session::driver::{Driver, ModelSource};
use crate::session::recorder::Transcript;
use crate::session::render::{Render, RunEvent};
use crate::task::Task;
use crate::verdict::checks::Checks;
use crate::verdict::verify::{final_check, independent_check};
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
