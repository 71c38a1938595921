//! `mend verify`: the repository's tests once, on a fresh copy (with a patch applied to the
//! copy when given), judged as a run's final tests are: the held-out tests put back (the files
//! `test.held_out` names and the `test.patch`, applied after the change), the given tests
//! graded, the counts, the failing tests, the end of the output. [`verify`] is the one way to
//! do it: the command and the MCP server's `verify` tool both call it.

use std::time::{Duration, Instant};

use crate::attempt::leave_copy;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::cli::VerifyArgs;
use crate::error::{exit, MendError};
use crate::exec::set_up::SetUp;
use crate::hooks::verify::{VerifyHooks, VERIFY_CALL_ID};
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::verdict::check::TestRun;
use crate::verdict::final_run::{
    final_run, patched_copy, AroundTests, Before, Change, Patched, Subject,
};
use crate::verdict::grade::given::{Graded, HeldAndGiven};
use crate::verdict::trust::reach::change_warnings;
use crate::workspace::survey::Concern;

/// What one verification found.
pub struct Verified {
    /// The one run of the tests.
    pub run: TestRun,
    /// The given tests' grade and the held-out files put back, when the task has them.
    pub held: HeldAndGiven,
    /// The repository's odd files (`mend verify` prints them on stderr), the sandbox's warning
    /// when it has one, and what the patch's added lines reach into (as a run's verdict warns).
    pub warnings: Vec<String>,
    /// The sandbox the tests ran in.
    pub sandbox: &'static str,
}

/// `mend verify` from its arguments: the tests once on a fresh copy (patched when `--patch` is given), shown as events; returns the exit code.
pub fn command(args: &VerifyArgs, render: &mut dyn Render) -> Result<u8, MendError> {
    let patch = match &args.patch {
        None => None,
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|err| MendError::usage(format!("cannot read the patch {path}: {err}")))?,
        ),
    };
    let verified = verify(
        &args.common.setup.choice(),
        args.common.setup.keep_workspace,
        patch.as_deref(),
        render,
    )?;
    Ok(if verified.passed() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}

impl Verified {
    /// The run passed and, for a task that gives its tests, every given test succeeded.
    pub fn passed(&self) -> bool {
        self.run.passed() && self.held.given.as_ref().is_none_or(Graded::resolved)
    }
}

/// Runs the task's tests once on a fresh copy of the repository `setup` names, with `patch` (a
/// unified diff, as mend writes beside a record) applied to the copy first and the held-out
/// tests put back after it, as a run's final tests are. The original is never written; the copy
/// is kept when `keep_workspace`. `render` hears the sandbox, the run and the costs.
pub fn verify(
    setup: &RepoChoice,
    keep_workspace: bool,
    patch: Option<&str>,
    render: &mut dyn Render,
) -> Result<Verified, MendError> {
    let started = Instant::now();
    let Resolved {
        repo,
        task,
        runner,
        held_out,
        ..
    } = setup.resolve(Recorded::default())?;
    // No tool runs here: only what the copy does not carry over as it is concerns the tests.
    let mut warnings = crate::workspace::survey::warnings(&repo, &task, Concern::Tests)?;
    crate::workspace::survey::print(&warnings);
    warnings.extend(runner.sandbox.warning().map(str::to_owned));
    // The sandbox's probe is its own figure.
    let setup_time = started.elapsed().saturating_sub(runner.sandbox_start);
    let (workspace, carried) = match patched_copy(&repo, &task, patch)? {
        Patched::Ready(workspace, carried) => (workspace, carried),
        Patched::Refused(problem) => return Err(MendError::usage(format!(
            "the patch does not apply to the repository: {problem} — make it against the repository as it is now (`git diff`, or the .patch beside a record)"
        ))),
    };
    render.run_event(&RunEvent::sandbox(&runner));
    let subject = Subject {
        original: &repo,
        task: &task,
        runner: &runner,
        held_out: &held_out,
    };
    let change = Change {
        root: workspace.root(),
        carried: &carried,
        diff: patch,
    };
    let mut hooks = HooksAround {
        task: &task,
        runner: &runner,
        render,
        objections: Vec::new(),
    };
    let judged = final_run(&subject, &change, Before::Nothing, &mut hooks)?
        .map_err(|no_verdict| MendError::harness(no_verdict.message))?;
    warnings.append(&mut hooks.objections);
    let change_warnings = patch.map_or_else(Vec::new, |patch| {
        change_warnings(patch, judged.python_reaches.as_deref())
    });
    warnings.extend(change_warnings.iter().cloned());
    let held = HeldAndGiven {
        given: judged.given,
        held_out: judged.held_out,
    };
    let run = judged.run;
    render.run_event(&RunEvent::TestsOnly {
        run: run.clone(),
        held: Box::new(held.clone()),
        warnings: change_warnings,
    });
    let copy = workspace.copy_time();
    let cleanup = leave_copy(workspace, keep_workspace, render);
    let ms = |time: Duration| u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    // The environment's set-up runs before the first test run in the copy, inside its time.
    let set_up = runner.set_up.as_ref().map(SetUp::time_spent);
    render.run_event(&RunEvent::Costs {
        setup_ms: ms(setup_time),
        copy_ms: ms(copy),
        set_up_ms: set_up.map(ms),
        sandbox_start_ms: ms(runner.sandbox_start),
        tests_ms: ms(judged.tests_time.saturating_sub(set_up.unwrap_or_default())),
        cleanup_ms: cleanup.map(ms),
    });
    Ok(Verified {
        run,
        held,
        warnings,
        sandbox: runner.sandbox.name(),
    })
}

/// The task's hooks that match `run_tests`, run around a verify's tests on its copy, and heard
/// by `render`; a `PostToolUse` objection is a warning beside the verdict.
struct HooksAround<'a> {
    task: &'a crate::task::Task,
    runner: &'a crate::exec::runner::TestRunner,
    render: &'a mut dyn Render,
    objections: Vec<String>,
}

impl<'a> HooksAround<'a> {
    fn at<'r>(&self, root: &'r camino::Utf8Path) -> VerifyHooks<'r>
    where
        'a: 'r,
    {
        VerifyHooks {
            task: self.task,
            runner: self.runner,
            root,
        }
    }
}

impl AroundTests for HooksAround<'_> {
    fn before(&mut self, root: &camino::Utf8Path) -> Result<(), MendError> {
        let hooks = self.at(root);
        if let Some(which) = hooks.which() {
            eprintln!("mend: {which}");
        }
        let ran = hooks.before();
        let runs = match &ran {
            Ok(runs) => runs.as_slice(),
            Err(stopped) => stopped.runs(),
        };
        self.render.hooks_ran(VERIFY_CALL_ID, "run_tests", runs);
        ran.map(drop).map_err(MendError::from)
    }

    fn after(&mut self, root: &camino::Utf8Path, run: &TestRun) -> Result<(), MendError> {
        let (runs, objection) = self.at(root).after(&serde_json::json!(run))?;
        self.render.hooks_ran(VERIFY_CALL_ID, "run_tests", &runs);
        self.objections.extend(objection);
        Ok(())
    }
}
