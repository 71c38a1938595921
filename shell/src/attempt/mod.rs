//! One attempt at the task: a fresh copy, the tests before, the loop, the tests after. Shared by
//! `mend run` and `mend replay`, which differ only in where the model's turns come from.
//!
//! The loop that feeds the core its inputs and performs its actions is [`driver`]; what it
//! records, [`recorder`]; the shell's own events around the core's, [`run_event`]; what a person
//! or a program sees of both, [`render`]. (The core's `mend_core::Session` is the state machine
//! one attempt drives; this folder is the shell's side.)

pub mod driver;
mod handoff;
pub(crate) mod recorder;
pub mod render;
pub mod run_event;
pub(crate) mod run_record;
pub(crate) mod stop_rounds;

use std::collections::BTreeSet;

use mend_core::{Config, ToolStatus};

use crate::access::named_if_protected;
use crate::attempt::driver::{drive, start};
use crate::attempt::recorder::Transcript;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::stop_rounds::until_stop_hooks_agree;
use crate::clock::millis;
use crate::error::{exit, MendError};
use crate::exec::sandbox::Sandbox;
use crate::exec::set_up::SetUp;
use crate::provider::source::ModelSource;
use crate::record::{Message, RecordedCall, RunMetrics};
use crate::setup::Setup;
use crate::task::ToolName;
use crate::tools::ToolContext;
use crate::verdict::check::{independent_check, TestRun};
use crate::verdict::final_run::{final_run, Alone, Before, Change, FinalRun, Subject};
use crate::verdict::grade::checks::Checks;
use crate::verdict::grade::contract::Contract;
use crate::verdict::grade::ending::Ending;
use crate::verdict::grade::shrunk::fewer_tests_than_before;
use crate::verdict::trust::known::{written_lines, Known};
use crate::workspace::changes::{set_sha256, unified_diff_except};
use crate::workspace::final_tree::{final_tree, Carry, FinalTree, LoopCopy};
use crate::workspace::shared_writes::SharedStamps;
use crate::workspace::{Left, Workspace};

/// What one attempt left for its command to record and grade: the sessions, their figures and the final checks.
pub struct Attempt {
    /// The last session's transcript (how the run stopped), with every session's figures.
    pub transcript: Transcript,
    /// The sessions as the record keeps them: the task's, then one for each time a Stop hook
    /// sent the model back to work.
    pub messages: Vec<Message>,
    /// The independent runs after the sessions and what the verdict reads from them.
    pub checks: Checks,
    /// When the loop started: the record's `started_ms` count from here (the run's trace).
    pub loop_started_at: std::time::SystemTime,
}

/// A fresh copy whose tests before the loop ran: what the loop starts from.
pub struct Begun {
    workspace: Workspace,
    tests_before: TestRun,
    test_file_sha256_before: String,
    source_sha256_before: String,
    shared: Option<SharedStamps>,
}

/// A run that could not begin: mend could not run the tests before the loop, so the model must
/// not be asked anything. The copy they ran in is handed back, for the caller to keep or drop.
pub struct Unbegun {
    /// Why the tests before the loop gave no verdict, with its fix.
    pub error: MendError,
    /// The copy they ran in.
    pub workspace: Workspace,
    /// The digest of the original's test files, as the record of a begun run keeps it.
    pub test_file_sha256_before: String,
    /// The digest of the original's editable files, likewise.
    pub source_sha256_before: String,
}

/// The copy made and the tests run in it before the loop. `Err` is a failure before there was
/// any copy; `Ok(Err)` one of the tests before, with the copy they ran in.
pub fn begin(setup: &Setup, render: &mut dyn Render) -> Result<Result<Begun, Unbegun>, MendError> {
    let task = setup.task;
    let test_file_sha256_before = set_sha256(setup.repo, &task.test.files)?;
    let source_sha256_before = set_sha256(setup.repo, &task.editable)?;
    let workspace = setup.spares.take(
        setup.repo,
        (&task.exclude, &task.history),
        setup.runner.set_up.as_ref(),
    )?;

    render.run_event(&RunEvent::sandbox(setup.runner));
    let tests_before = match independent_check(setup.runner, &task.test, workspace.root()) {
        Ok(run) => run,
        // The command may name tests that come only with the held-out ones (SWE-bench's name the
        // test patch's files): without them it can give no verdict, and the task's given lists
        // or its final run, which has them, decide instead.
        Err(error) if task.holds_tests_out() && error.exit_code == exit::HARNESS => TestRun {
            output_tail: Some(format!("without the held-out tests: {}", error.message)),
            ..TestRun::default()
        },
        Err(error) => {
            return Ok(Err(Unbegun {
                error,
                workspace,
                test_file_sha256_before,
                source_sha256_before,
            }))
        }
    };
    render.run_event(&RunEvent::TestsBefore {
        run: tests_before.clone(),
    });
    let shared = stamp_shared(setup, &workspace)?;
    Ok(Ok(Begun {
        workspace,
        tests_before,
        test_file_sha256_before,
        source_sha256_before,
        shared,
    }))
}

/// A whole attempt: [`begin`], then [`attempt_from`]; a run that could not begin is an error
/// and its copy deleted.
pub fn run_attempt(
    setup: &Setup,
    config: Config,
    source: &mut dyn ModelSource,
    render: &mut dyn Render,
) -> Result<Attempt, MendError> {
    let begun = begin(setup, render)?.map_err(|unbegun| unbegun.error)?;
    attempt_from(setup, begun, config, source, render)
}

/// The loop from where [`begin`] left the copy, then the tests after it.
pub fn attempt_from(
    setup: &Setup,
    begun: Begun,
    config: Config,
    source: &mut dyn ModelSource,
    render: &mut dyn Render,
) -> Result<Attempt, MendError> {
    let Begun {
        workspace,
        tests_before,
        test_file_sha256_before,
        source_sha256_before,
        shared,
    } = begun;
    let task = setup.task;
    let bench = ToolContext::new(workspace.root(), task, setup.runner);
    let task_text = config.task.clone();
    let loop_started_at = std::time::SystemTime::now();
    let first = drive(bench, source, render, start(config)?)?;
    let (mut transcript, messages, _stopped) =
        until_stop_hooks_agree(bench, source, render, Some(task_text), first, 0)?;

    let written = written_by_tools(messages.iter().flat_map(|message| &message.tool_calls));
    transcript.metrics.verify_ms = tests_before.duration_ms;
    let ending = end_loop(
        setup,
        workspace,
        &written,
        (Some(&tests_before), shared.as_ref()),
        &mut transcript.metrics,
        render,
    )?;
    let checks = Checks {
        tests_before,
        test_file_sha256_before,
        source_sha256_before,
        after: ending,
    };
    Ok(Attempt {
        transcript,
        messages,
        checks,
        loop_started_at,
    })
}

/// Without bubblewrap, the folders the copy shares with the original (a venv) can be written
/// through: their entries are stamped once the first run is over, to be compared after the last.
fn stamp_shared(setup: &Setup, workspace: &Workspace) -> Result<Option<SharedStamps>, MendError> {
    if setup.runner.sandbox == Sandbox::Bwrap || workspace.shared().is_empty() {
        return Ok(None);
    }
    SharedStamps::take(setup.repo, workspace.shared())
        .map(Some)
        .map_err(|err| {
            MendError::harness(format!(
                "cannot read the folders the copy shares with {}: {err}",
                setup.repo
            ))
        })
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

/// The end of a loop whose copy is over (a run's, a resume's, a replay's): the independent check
/// ([`check_at_end`]) with the tests before it and the shared folders' stamps when there are
/// any, then the copy kept or deleted. `metrics` gets the final run's time, the copies' and the
/// clean-up's.
pub fn end_loop(
    setup: &Setup,
    workspace: Workspace,
    written: &BTreeSet<String>,
    (tests_before, shared): (Option<&TestRun>, Option<&SharedStamps>),
    metrics: &mut RunMetrics,
    render: &mut dyn Render,
) -> Result<Ending, MendError> {
    let copy_time = workspace.copy_time();
    let loop_copy = LoopCopy::Over(workspace);
    let (ending, tree) = check_at_end(setup, loop_copy, written, tests_before, shared, render)?;
    metrics.verify_ms += ending.tests_after.duration_ms;
    metrics.copy_ms = Some(millis(copy_time + tree.copy_time));
    metrics.sandbox_start_ms = Some(millis(setup.runner.sandbox_start));
    metrics.cleanup_ms = Some(finish_with(setup, tree.workspace, render));
    Ok(ending)
}

/// Keeps the copy when asked to (and says where), else hands it on to the next attempt
/// ([`crate::setup::spares`]) or deletes it ([`Workspace::keep_or_delete`]); returns how long
/// deleting took in milliseconds (0 when kept or handed on).
pub fn finish_with(setup: &Setup, workspace: Workspace, render: &mut dyn Render) -> u64 {
    if setup.keep_workspace {
        return leave_copy(workspace, true, render).map_or(0, millis);
    }
    match setup.spares.give_back(workspace) {
        None => 0,
        Some(workspace) => leave_copy(workspace, false, render).map_or(0, millis),
    }
}

/// What becomes of a copy whose last run is over, said to `render` when it is kept; how long
/// deleting it took (`None`: kept).
pub fn leave_copy(
    workspace: Workspace,
    keep: bool,
    render: &mut dyn Render,
) -> Option<std::time::Duration> {
    match workspace.keep_or_delete(keep) {
        Left::Kept(path) => {
            render.run_event(&RunEvent::WorkspaceKept {
                path: path.to_string(),
            });
            None
        }
        Left::Deleted(time) => Some(time),
    }
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
    shared: Option<&SharedStamps>,
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
    let set_up = setup
        .runner
        .set_up
        .as_ref()
        .map(SetUp::written)
        .unwrap_or_default();
    let diff = unified_diff_except(setup.repo, root, &task.editable, &set_up)?;
    let written = written_lines(&diff);
    let known = Known {
        first_run: tests_before.map_or(&[][..], |before| before.alarms.as_slice()),
        written: written.as_ref(),
    };
    let subject = Subject {
        original: setup.repo,
        task,
        runner: setup.runner,
        held_out: setup.held_out,
    };
    let change = Change {
        root,
        carried: &tree.carried,
        diff: Some(&diff),
    };
    let FinalRun {
        run: mut tests_after,
        held_out,
        given,
        python_reaches,
        ..
    } = match final_run(
        &subject,
        &change,
        Before::Loop { known, shared },
        &mut Alone,
    )? {
        Ok(judged) => judged,
        // After a loop a run with no verdict fails instead ([`Before::Loop`]): not reached.
        Err(no_verdict) => return Err(MendError::harness(no_verdict.message)),
    };
    // Given tests replace the contract of the run before the change.
    let contract = tests_before
        .filter(|before| !before.cases.is_empty() && given.is_none())
        .map(|before| Contract::between(&before.cases, &tests_after.cases));
    // Without ids, the counts: a suite that shrank is no pass.
    if let (None, None, Some(before), None) =
        (&given, &contract, tests_before, &tests_after.not_trusted)
    {
        tests_after.not_trusted = fewer_tests_than_before(before, &tests_after);
    }
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let ending = Ending {
        tests_after,
        test_file_sha256_after,
        source_sha256_after,
        diff,
        contract,
        protected_written_by_tests: tree
            .written_by_tests
            .iter()
            .filter_map(|path| named_if_protected(task, path))
            .collect(),
        written_by_tests: tree.written_by_tests.clone(),
        given,
        held_out,
        history: Some(tree.workspace.history()),
        python_reaches,
    };
    Ok((ending, tree))
}
