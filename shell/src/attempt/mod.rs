//! One attempt at the task: a fresh copy, the tests before, the loop, the tests after. Shared by
//! `mend run` and `mend replay`, which differ only in where the model's turns come from.
//!
//! The loop that feeds the core its inputs and performs its actions is [`driver`]; what it
//! records, [`recorder`]; the shell's own events around the core's, [`run_event`]; what a person
//! or a program sees of both, [`render`]. (The core's `mend_core::Session` is the state machine
//! one attempt drives; this folder is the shell's side.)

pub mod driver;
mod handoff;
pub mod recorder;
pub mod render;
pub mod run_event;
pub mod run_record;

use std::collections::BTreeSet;

use camino::Utf8Path;
use mend_core::{Config, ToolStatus};

use crate::access::protection;
use crate::attempt::driver::{drive, start, Bench};
use crate::attempt::recorder::Transcript;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::clock::millis;
use crate::error::MendError;
use crate::exec::runner::TestRunner;
use crate::provider::source::ModelSource;
use crate::record::RecordedCall;
use crate::task::{Task, ToolName};
use crate::verdict::checks::Checks;
use crate::verdict::contract::Contract;
use crate::verdict::ending::Ending;
use crate::verdict::verify::{final_check, independent_check, TestRun};
use crate::workspace::changes::{set_sha256, unified_diff};
use crate::workspace::final_tree::{final_tree, Carry, FinalTree, LoopCopy};
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
    let copy_time = workspace.copy_time();

    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));
    let tests_before = independent_check(setup.runner, &task.test, workspace.root())?;
    render.run_event(&RunEvent::TestsBefore {
        run: tests_before.clone(),
    });

    let bench = Bench {
        root: workspace.root(),
        task,
        runner: setup.runner,
    };
    let (mut transcript, _stopped) = drive(bench, source, render, start(config)?)?;

    let written = written_by_tools(&transcript.tool_calls);
    let (ending, tree) = check_at_end(
        setup,
        LoopCopy::Over(workspace),
        &written,
        Some(&tests_before),
        render,
    )?;
    let metrics = &mut transcript.metrics;
    metrics.verify_ms = tests_before.duration_ms + ending.tests_after.duration_ms;
    metrics.copy_ms = Some(millis(copy_time + tree.copy_time));
    metrics.sandbox_start_ms = Some(millis(setup.runner.sandbox_start));
    metrics.cleanup_ms = Some(finish_with(setup, tree.workspace, render));
    let checks = Checks {
        tests_before,
        test_file_sha256_before,
        source_sha256_before,
        after: ending,
    };
    Ok(Attempt { transcript, checks })
}

/// The files the editing tools wrote in `calls`, by the paths their results name.
pub fn written_by_tools<'a>(calls: impl IntoIterator<Item = &'a RecordedCall>) -> BTreeSet<String> {
    calls
        .into_iter()
        .filter(|call| call.status == ToolStatus::Ok)
        .filter(|call| {
            matches!(
                ToolName::named(&call.name),
                Some(ToolName::WriteFile | ToolName::ReplaceText)
            )
        })
        .filter_map(|call| call.result.get("path")?.as_str().map(str::to_owned))
        .collect()
}

/// Keeps the copy when asked to (and says where), else deletes it; returns how long deleting took
/// in milliseconds (0 when kept). A copy that cannot be deleted is named on stderr with the fix,
/// and the run goes on to write its record: the verdict is already made.
pub fn finish_with(setup: &Setup, workspace: Workspace, render: &mut dyn Render) -> u64 {
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
        return 0;
    }
    let root = workspace.root().to_owned();
    let started = std::time::Instant::now();
    if let Err(err) = workspace.remove() {
        eprintln!("mend: cannot delete the temporary copy {root}: {err} — delete it by hand");
    }
    millis(started.elapsed())
}

/// The independent check after the loop (reported as it ends): on the original with the change
/// the tools made in the loop's copy (`written`), never on that copy as the loop left it; and,
/// when the first run gave test ids, what became of each. Returns the tree it ran in, which is
/// the loop's copy put back when the loop is over.
pub fn check_at_end(
    setup: &Setup,
    loop_copy: LoopCopy,
    written: &BTreeSet<String>,
    tests_before: Option<&TestRun>,
    render: &mut dyn Render,
) -> Result<(Ending, FinalTree), MendError> {
    let task = setup.task;
    let carry = if task.offers(ToolName::Shell) {
        Carry::EveryEditable
    } else {
        Carry::Written(written)
    };
    let tree = final_tree(setup.repo, loop_copy, task, carry)?;
    let root = tree.workspace.root();
    // What the change is, read before the tests run there: files they write (a log under
    // HOME, a cache) are no part of it.
    let test_file_sha256_after = set_sha256(root, &task.test.files)?;
    let source_sha256_after = set_sha256(root, &task.editable)?;
    let diff = unified_diff(setup.repo, root, &task.editable)?;
    let mut tests_after = final_check(setup.runner, &task.test, root)?;
    let planted = tree.protected_written(setup.repo, task)?;
    if !planted.is_empty() && tests_after.not_trusted.is_none() {
        tests_after.not_trusted = Some(format!(
            "the test run wrote files the verdict rests on while it ran: {}",
            planted.join(", ")
        ));
    }
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let contract = tests_before
        .filter(|before| !before.cases.is_empty())
        .map(|before| Contract::between(&before.cases, &tests_after.cases));
    let ending = Ending {
        tests_after,
        test_file_sha256_after,
        source_sha256_after,
        diff,
        contract,
        protected_written_by_tests: tree
            .written_by_tests
            .iter()
            .filter_map(|path| {
                protection(task, path).map(|protected| format!("{path} ({})", protected.describe()))
            })
            .collect(),
        written_by_tests: tree.written_by_tests.clone(),
    };
    Ok((ending, tree))
}
