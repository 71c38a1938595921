//! The final run: the task's tests once on a tree that holds a change, judged as the verdict
//! judges. One way for every command that asks: a run's end (and resume, replay, a chat's
//! `/verify`), `mend verify`, `mend eval check` and the MCP server's `verify`. The held-out tests
//! come back (the files `test.held_out` names, and the test patch applied after the change), the
//! tests run and are read and trusted ([`crate::verdict::check`]), the tripwire says whether the
//! run wrote what the verdict rests on, and the task's given tests are graded.
//!
//! The tree is the caller's: the loop's copy put back with the tools' change
//! ([`crate::workspace::final_tree`]), or a fresh copy with a patch applied ([`patched_copy`]).
//! What becomes of it afterwards is the workspace's ([`Workspace::keep_or_delete`]).

use std::time::{Duration, Instant};

use camino::Utf8Path;

use crate::error::MendError;
use crate::exec::bytecode::unshielded::PlaceStamps;
use crate::exec::runner::TestRunner;
use crate::patch::TreePatchError;
use crate::task::Task;
use crate::verdict::check::{run_and_read, NoVerdict, TestRun};
use crate::verdict::grade::given::Graded;
use crate::verdict::trust::known::{written_lines, Known};
use crate::verdict::trust::loaded_first;
use crate::verdict::trust::python_reach::{start_reading_added_python, PythonReach, ReadingPython};
use crate::verdict::trust::tripwire::Tripwire;
use crate::verdict::trust::untrusted::Untrusted;
use crate::workspace::held_out::put_back;
use crate::workspace::shared_writes::SharedStamps;
use crate::workspace::Workspace;

/// What the final run is of: the repository, its task, how its tests run, and the held-out
/// files listed when the run was set up.
pub(crate) struct Subject<'a> {
    /// The original repository; only ever read.
    pub original: &'a Utf8Path,
    pub task: &'a Task,
    pub runner: &'a TestRunner,
    pub held_out: &'a [String],
}

/// The tree the final run happens in, with the change already in it.
pub(crate) struct Change<'a> {
    pub root: &'a Utf8Path,
    /// The files of the change, sorted: they differ from the original on purpose.
    pub carried: &'a [String],
    /// The change as a unified diff, whose added Python is read beside the tests; `None`: not
    /// read (nothing asks for it).
    pub diff: Option<&'a str>,
}

/// What came before the final run, which decides what a run that gives no verdict means.
pub(crate) enum Before<'a> {
    /// No loop (`mend verify`, `mend eval check`): the tests giving no verdict is the setup's
    /// fault, and the caller is told ([`NoVerdict`]).
    Nothing,
    /// A loop ran in the same environment: a run that gives no verdict now was broken by the
    /// change, and fails. What the first run's witness saw is not held against it (`known`);
    /// without bubblewrap, the folders shared with the original must be as they were
    /// (`shared`).
    Loop {
        known: Known<'a>,
        shared: Option<&'a SharedStamps>,
    },
}

/// What runs beside the tests, on the final run's tree, when the tests are run at all (a
/// verify's task hooks): the verdict asks, the caller decides what it means.
pub(crate) trait AroundTests {
    /// Just before the tests; `Err` stops the final run with that error.
    fn before(&mut self, root: &Utf8Path) -> Result<(), MendError>;
    /// Just after a run that could be read, told of it.
    fn after(&mut self, root: &Utf8Path, run: &TestRun) -> Result<(), MendError>;
}

/// Nothing runs beside the tests.
pub(crate) struct Alone;

impl AroundTests for Alone {
    fn before(&mut self, _root: &Utf8Path) -> Result<(), MendError> {
        Ok(())
    }

    fn after(&mut self, _root: &Utf8Path, _run: &TestRun) -> Result<(), MendError> {
        Ok(())
    }
}

/// What the final run found.
pub(crate) struct FinalRun {
    pub run: TestRun,
    /// Every file held out of the attempt and put back (or removed) for the run, sorted.
    pub held_out: Vec<String>,
    /// The task's given tests, graded on the run's cases.
    pub given: Option<Graded>,
    /// What the change's added Python reaches into; `None` when it could not be read.
    pub python_reaches: Option<Vec<PythonReach>>,
    /// What the tripwire found the tests wrote of the files the verdict rests on.
    pub planted: Option<Untrusted>,
    /// How long running and reading the tests took.
    pub tests_time: Duration,
}

/// Puts the held-out tests back into the tree of `change`, runs the task's tests there once,
/// reads and trusts them, and grades the given tests; `around` runs just before and after the
/// tests. `Ok(Err(_))`: the tests gave no verdict and nothing came `before`
/// ([`Before::Nothing`]). `Err` is the harness's own failure, or `around`'s.
pub(crate) fn final_run(
    subject: &Subject,
    change: &Change,
    before: Before,
    around: &mut dyn AroundTests,
) -> Result<Result<FinalRun, NoVerdict>, MendError> {
    let Subject {
        original,
        task,
        runner,
        ..
    } = *subject;
    let held_out = put_back(change.root, subject.held_out, task)?;
    // The change's added Python is read beside the final tests, from the sources as they are now.
    let reading_python = match change.diff {
        Some(diff) => start_reading_added_python(&runner.python, change.root, diff, |path| {
            task.test.files.contains(path)
        }),
        None => ReadingPython::Nothing,
    };
    let tripwire = Tripwire {
        original,
        task,
        carried: change.carried,
        held_out: &held_out.digests,
    };
    let mut planted = None;
    let started = Instant::now();
    let run = match held_out.refused {
        // No run: the change and the held-out tests cannot stand together.
        Some(refused) => TestRun {
            not_trusted: Some(Untrusted::HeldOutPatchRefused {
                patch: refused.patch,
                problem: refused.problem,
            }),
            ..TestRun::default()
        },
        None => {
            // With no loop, a patch still tells which lines the change wrote: a frame read on a
            // line it did not write is the project's own (boltons' typeutils names its caller's
            // module), as after a loop. Without a patch, no line is known to be the project's.
            let written = change.diff.and_then(written_lines);
            let known = match &before {
                Before::Nothing => Known {
                    first_run: &[],
                    written: written.as_ref(),
                },
                Before::Loop { known, .. } => *known,
            };
            around.before(change.root)?;
            let mirror = runner.unshielded_mirror(change.root);
            let mut run = match (
                run_and_read(runner, &task.test, change.root, known)?,
                &before,
            ) {
                (Ok(run), _) => run,
                (Err(no_verdict), Before::Loop { .. }) => *no_verdict.run,
                (Err(no_verdict), Before::Nothing) => return Ok(Err(no_verdict)),
            };
            around.after(change.root, &run)?;
            planted = tripwire.untrusted(change.root)?;
            let ran_first = loaded_first::weigh(original, change.carried, &run.loaded_first);
            run.unchecked.extend(ran_first.unchecked);
            // The first reason a run is untrusted is the one given.
            if run.not_trusted.is_none() {
                run.not_trusted = match (&planted, &before) {
                    (Some(planted), _) => Some(planted.clone()),
                    (None, Before::Loop { shared, .. }) => shared_written(*shared)?,
                    (None, Before::Nothing) => None,
                }
                .or(ran_first.untrusted)
                .or_else(|| mirror_written(mirror.as_ref()));
            }
            run
        }
    };
    let tests_time = started.elapsed();
    let given = task
        .given
        .as_ref()
        .map(|given| Graded::grade(given, &run.cases));
    Ok(Ok(FinalRun {
        run,
        held_out: held_out.files,
        given,
        python_reaches: reading_python.finish(),
        planted,
        tests_time,
    }))
}

/// Why the final run cannot count whatever it reported, beyond what its tree shows: under
/// `--sandbox none` it wrote into a folder the copy shares with the original.
fn shared_written(shared: Option<&SharedStamps>) -> Result<Option<Untrusted>, MendError> {
    let Some(shared) = shared else {
        return Ok(None);
    };
    let entries = shared.written_since().map_err(|err| {
        MendError::harness(format!("cannot read the folders the copy shares: {err}"))
    })?;
    Ok((!entries.is_empty()).then_some(Untrusted::SharedFolderWritten { entries }))
}

/// Why the final run cannot count whatever it reported: where no sandbox shields mend's bytecode
/// mirror, it wrote there what Python would read for the copy's sources (or the original's).
fn mirror_written(mirror: Option<&PlaceStamps>) -> Option<Untrusted> {
    let mirror = mirror?;
    if let Some(rebuilt) = mirror.rebuilt() {
        return Some(Untrusted::BytecodeMirrorRebuilt {
            mirror: rebuilt.to_string(),
        });
    }
    let entries = mirror.written_since();
    (!entries.is_empty()).then_some(Untrusted::BytecodeMirrorWritten { entries })
}

/// A fresh copy of the original for a final run, held-out tests included, with `patch` applied.
pub(crate) enum Patched {
    /// The copy, and the files the patch wrote, sorted.
    Ready(Workspace, Vec<String>),
    /// The patch does not apply to the repository: why.
    Refused(String),
}

/// A fresh copy of `original` as a final run has it (nothing held out), with `patch` (a unified
/// diff) applied when given.
pub(crate) fn patched_copy(
    original: &Utf8Path,
    task: &Task,
    patch: Option<&str>,
) -> Result<Patched, MendError> {
    let workspace = Workspace::copy_of(original, &task.exclude.for_final_run(), &task.history)?;
    patch_into(workspace, patch)
}

/// `patch` applied to `workspace`, a copy as [`patched_copy`] makes it.
pub(crate) fn patch_into(workspace: Workspace, patch: Option<&str>) -> Result<Patched, MendError> {
    let Some(patch) = patch else {
        return Ok(Patched::Ready(workspace, Vec::new()));
    };
    match crate::patch::apply_to_tree(workspace.root(), patch) {
        Ok(written) => Ok(Patched::Ready(workspace, written)),
        Err(TreePatchError::DoesNotApply(problem)) => Ok(Patched::Refused(problem)),
        Err(TreePatchError::Io(message)) => Err(MendError::harness(message)),
    }
}
