//! One attempt at the task: a fresh copy, the tests before, the loop, the tests after. Shared by
//! `mend run` and `mend replay`, which differ only in where the model's turns come from.

use std::fs;

use camino::Utf8Path;
use mend_core::Config;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::driver::{Driver, ModelSource, Transcript};
use crate::error::MendError;
use crate::pytest::TestRunner;
use crate::render::{Render, RunEvent};
use crate::sample::{EDITABLE_FILE, TEST_FILE};
use crate::verify::{independent_check, TestRun};
use crate::workspace::Workspace;

pub struct Setup<'a> {
    /// The original repository; only ever read.
    pub repo: &'a Utf8Path,
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
    /// SHA-256 of the test file; before and after must be equal.
    pub test_file_sha256_before: String,
    pub test_file_sha256_after: String,
    /// SHA-256 of the editable file.
    pub source_sha256_before: String,
    pub source_sha256_after: String,
    /// The unified diff of the editable file, original against the copy after the run (empty
    /// when nothing changed).
    #[serde(default)]
    pub diff: String,
}

/// The SHA-256 of a file of the repository, as lowercase hex.
pub fn file_sha256(root: &Utf8Path, relative: &str) -> Result<String, MendError> {
    let path = root.join(relative);
    let bytes =
        fs::read(&path).map_err(|err| MendError::refused(format!("cannot read {path}: {err}")))?;
    Ok(atomic::sha256_hex(&bytes))
}

pub fn run_attempt(
    setup: &Setup,
    config: Config,
    source: &mut dyn ModelSource,
    render: &mut dyn Render,
) -> Result<Attempt, MendError> {
    let test_file_sha256_before = file_sha256(setup.repo, TEST_FILE)?;
    let source_sha256_before = file_sha256(setup.repo, EDITABLE_FILE)?;
    let workspace = Workspace::copy_of(setup.repo).map_err(|err| {
        MendError::harness(format!(
            "cannot copy {} to a temporary workspace: {err}",
            setup.repo
        ))
    })?;

    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));
    let tests_before = independent_check(setup.runner, workspace.root())?;
    render.run_event(&RunEvent::TestsBefore {
        run: tests_before.clone(),
    });

    let mut driver = Driver {
        source,
        root: workspace.root(),
        runner: setup.runner,
        observer: render,
    };
    let mut transcript = driver.run(config)?;

    let tests_after = independent_check(setup.runner, workspace.root())?;
    transcript.metrics.verify_ms = tests_before.duration_ms + tests_after.duration_ms;
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let test_file_sha256_after = file_sha256(workspace.root(), TEST_FILE)?;
    let source_sha256_after = file_sha256(workspace.root(), EDITABLE_FILE)?;
    let diff = unified_diff(setup.repo, workspace.root(), EDITABLE_FILE)?;

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

/// `diff -u a/FILE b/FILE` between the original and the copy; empty when nothing changed.
fn unified_diff(original: &Utf8Path, copy: &Utf8Path, relative: &str) -> Result<String, MendError> {
    let read = |root: &Utf8Path| {
        let path = root.join(relative);
        fs::read_to_string(&path)
            .map_err(|err| MendError::harness(format!("cannot read {path}: {err}")))
    };
    let (before, after) = (read(original)?, read(copy)?);
    if before == after {
        return Ok(String::new());
    }
    Ok(similar::TextDiff::from_lines(&before, &after)
        .unified_diff()
        .header(&format!("a/{relative}"), &format!("b/{relative}"))
        .to_string())
}
