//! `mend verify`: the repository's tests once, on a fresh copy (with a patch applied to the
//! copy when given), judged as a run's final tests are: the held-out tests put back (the files
//! `test.held_out` names and the `test.patch`, applied after the change), the given tests
//! graded, the counts, the failing tests, the end of the output. [`verify`] is the one way to
//! do it: the command and the MCP server's `verify` tool both call it.

use std::time::{Duration, Instant};

use camino::Utf8Path;

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::cli::VerifyArgs;
use crate::error::{exit, MendError};
use crate::hooks::verify::{VerifyHooks, VERIFY_CALL_ID};
use crate::patch::TreePatchError;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::verdict::check::{independent_check, TestRun};
use crate::verdict::grade::given::{Graded, HeldAndGiven};
use crate::verdict::trust::python_reach::{start_reading_added_python, ReadingPython};
use crate::verdict::trust::reach::change_warnings;
use crate::verdict::trust::tripwire::Tripwire;
use crate::workspace::held_out::put_back;
use crate::workspace::Workspace;

/// What one verification found.
pub struct Verified {
    pub run: TestRun,
    /// The given tests' grade and the held-out files put back, when the task has them.
    pub held: HeldAndGiven,
    /// The repository's odd files (`mend verify` prints them on stderr), the sandbox's warning
    /// when it has one, and what the patch's added lines reach into (as a run's verdict warns).
    pub warnings: Vec<String>,
    /// The sandbox the tests ran in.
    pub sandbox: &'static str,
}

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
#[allow(clippy::too_many_lines)] // becomes a short caller of the one final run (#39, point 1)
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
        held_out: held_out_files,
        ..
    } = setup.resolve(Recorded::default())?;
    let mut warnings = crate::workspace::survey::warnings(&repo, &task)?;
    crate::workspace::survey::print(&warnings);
    warnings.extend(runner.sandbox.warning().map(str::to_owned));
    // The sandbox's probe is its own figure.
    let setup_time = started.elapsed().saturating_sub(runner.sandbox_start);
    let workspace = Workspace::copy_of(&repo, &task.exclude.for_final_run(), &task.history)?;
    let carried = match patch {
        Some(patch) => apply_to_copy(workspace.root(), patch)?,
        None => Vec::new(),
    };
    let held_out = put_back(workspace.root(), &held_out_files, &task)?;
    // The patch's added Python is read beside the tests, as a run's change is.
    let reading_python = match patch {
        Some(patch) => {
            start_reading_added_python(&runner.python, workspace.root(), patch, |path| {
                task.test.files.contains(path)
            })
        }
        None => ReadingPython::Nothing,
    };
    let tripwire = Tripwire {
        original: &repo,
        task: &task,
        carried: &carried,
        held_out: &held_out.digests,
    };
    render.run_event(&RunEvent::sandbox(&runner));
    let started = Instant::now();
    let run = match held_out.refused.clone() {
        // No run: the change and the held-out tests cannot stand together.
        Some(problem) => TestRun {
            not_trusted: Some(problem),
            ..TestRun::default()
        },
        None => {
            let hooks = VerifyHooks {
                task: &task,
                runner: &runner,
                root: workspace.root(),
            };
            if let Some(which) = hooks.which() {
                eprintln!("mend: {which}");
            }
            match hooks.before() {
                Ok(runs) => render.hooks_ran(VERIFY_CALL_ID, "run_tests", &runs),
                Err((runs, reason)) => {
                    render.hooks_ran(VERIFY_CALL_ID, "run_tests", &runs);
                    return Err(MendError::refused(format!("the verify was {reason}")));
                }
            }
            let mut run = independent_check(&runner, &task.test, workspace.root())?;
            let (runs, objection) = hooks.after(&serde_json::json!(run))?;
            render.hooks_ran(VERIFY_CALL_ID, "run_tests", &runs);
            warnings.extend(objection);
            // As in a run's final tests: the first reason a run is untrusted is the one given.
            if run.not_trusted.is_none() {
                run.not_trusted = tripwire.untrusted(workspace.root())?;
            }
            run
        }
    };
    let tests = started.elapsed();
    let change_warnings = patch.map_or_else(Vec::new, |patch| {
        change_warnings(patch, reading_python.finish().as_deref())
    });
    warnings.extend(change_warnings.iter().cloned());
    let held = HeldAndGiven {
        given: task
            .given
            .as_ref()
            .map(|given| Graded::grade(given, &run.cases)),
        held_out: held_out.files,
    };
    render.run_event(&RunEvent::TestsOnly {
        run: run.clone(),
        held: Box::new(held.clone()),
        warnings: change_warnings,
    });
    let copy = workspace.copy_time();
    let cleanup = if keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
        None
    } else {
        let root = workspace.root().to_owned();
        Some(workspace.remove().map_err(|err| {
            MendError::harness(format!("cannot delete the temporary copy {root}: {err}"))
        })?)
    };
    let ms = |time: Duration| u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    render.run_event(&RunEvent::Costs {
        setup_ms: ms(setup_time),
        copy_ms: ms(copy),
        sandbox_start_ms: ms(runner.sandbox_start),
        tests_ms: ms(tests),
        cleanup_ms: cleanup.map(ms),
    });
    Ok(Verified {
        run,
        held,
        warnings,
        sandbox: runner.sandbox.name(),
    })
}

/// Applies `patch` to the copy at `root`; returns the files it wrote, sorted.
fn apply_to_copy(root: &Utf8Path, patch: &str) -> Result<Vec<String>, MendError> {
    crate::patch::tree::apply_to_tree(root, patch).map_err(|error| match error {
        TreePatchError::Io(message) => MendError::harness(message),
        TreePatchError::DoesNotApply(problem) => MendError::usage(format!(
            "the patch does not apply to the repository: {problem} — make it against the repository as it is now (`git diff`, or the .patch beside a record)"
        ))
    })
}
