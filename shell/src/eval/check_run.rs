//! `mend eval check SUITE`: each task's tests run without a change and with its gold patch,
//! [`RUNS`] times each on fresh copies; what was found is printed and kept beside the suite.

use camino::{Utf8Path, Utf8PathBuf};

use super::check::{judge_task, Ran, Status, RUNS};
use super::check_file::{gold_patch, gold_patch_path, CheckFile, Digests, TaskCheck};
use super::suite::Suite;
use crate::error::{exit, MendError};
use crate::exec::sandbox::SandboxChoice;
use crate::setup::Resolved;
use crate::verdict::check::TestRun;
use crate::verdict::final_run::{final_run, patch_into, Alone, Before, Change, Patched, Subject};
use crate::verdict::read::missing_runner::missing_runner;
use crate::verdict::trust::untrusted::Untrusted;

pub(crate) struct CheckOptions {
    pub suite: Suite,
    pub python: Option<Utf8PathBuf>,
    pub sandbox: Option<SandboxChoice>,
    /// `--image-cache`: where the tasks' images are unpacked.
    pub image_cache: Option<Utf8PathBuf>,
    /// `--on-host`: the tasks' images are not used.
    pub on_host: bool,
}

/// Checks every task, prints one line each, writes the check; exit 1 when a task is invalid.
pub(crate) fn check_suite(options: &CheckOptions) -> Result<u8, MendError> {
    let suite = &options.suite;
    let mut checked = Vec::new();
    for (name, folder) in &suite.tasks {
        let Some(task) = check_task(options, name, folder)? else {
            eprintln!("mend: interrupted: nothing was written; run the check again");
            return Ok(exit::INTERRUPTED);
        };
        println!("{}", line(&task));
        checked.push(task);
    }
    let path = CheckFile::new(checked.clone()).write(&suite.origin)?;
    let count = |status: Status| checked.iter().filter(|task| task.status == status).count();
    let invalid = count(Status::Invalid);
    println!(
        "Checked {} task(s): {} valid, {} flaky, {invalid} invalid; written to {path}{}",
        checked.len(),
        count(Status::Valid),
        count(Status::Flaky),
        if invalid > 0 {
            " (`mend eval` refuses the invalid ones: fix them, or pass --unchecked)"
        } else {
            ""
        }
    );
    Ok(if invalid > 0 {
        exit::TESTS_FAIL
    } else {
        exit::PASS
    })
}

/// One task in words: `name  status  what was found`.
fn line(task: &TaskCheck) -> String {
    let found = if task.problems.is_empty() {
        let shown: Vec<&str> = task
            .failing_before
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        let more = task.failing_before.len().saturating_sub(shown.len());
        let gold = match task.digests.gold_sha256 {
            Some(_) => format!("the gold patch passes {RUNS} of {RUNS} runs"),
            None => "no gold patch".to_owned(),
        };
        let failing = if shown.is_empty() {
            format!("the tests fail {RUNS} of {RUNS} runs without a change")
        } else {
            format!(
                "{} failing before ({}{})",
                task.failing_before.len(),
                shown.join(", "),
                if more > 0 { ", …" } else { "" }
            )
        };
        format!("{failing}; {gold}")
    } else {
        task.problems.join("; ")
    };
    format!("{:<24} {:<8} {found}", task.task, task.status.name())
}

/// Runs one task's checks; `None` when Ctrl-C cut them.
fn check_task(
    options: &CheckOptions,
    name: &str,
    folder: &Utf8Path,
) -> Result<Option<TaskCheck>, MendError> {
    let mut resolved = super::task_folder::resolve(
        folder,
        &options.suite,
        options.python.as_deref(),
        (
            options.sandbox,
            options.image_cache.as_deref(),
            options.on_host,
        ),
    )?;
    resolved.hand_copies_on();
    crate::workspace::survey::warn_in_suite(name, &resolved.repo, &resolved.task)?;
    let gold = gold_patch(&options.suite.origin, name)?;
    let mut empty = Vec::new();
    let mut with_gold = Vec::new();
    for _ in 0..RUNS {
        if crate::interrupt::requested() {
            return Ok(None);
        }
        empty.push(run_once(&resolved, None)?);
        if let Some(patch) = &gold {
            with_gold.push(run_once(&resolved, Some(patch))?);
        }
    }
    let mut judged = judge_task(&empty, gold.as_ref().map(|_| with_gold.as_slice()));
    if let Some(patch) = &gold {
        if let Some(test_file) = touched_test_file(&resolved, patch) {
            judged.status = Status::Invalid;
            judged.problems.insert(
                0,
                format!(
                    "the gold patch {} changes the test file {test_file}: it must repair the code, not the tests",
                    gold_patch_path(&options.suite.origin, name)
                ),
            );
        }
    }
    Ok(Some(TaskCheck {
        task: name.to_owned(),
        status: judged.status,
        problems: judged.problems,
        failing_before: judged.failing_before,
        digests: Digests::of(&resolved, gold.as_deref())?,
    }))
}

/// The task's tests once as its final run makes them ([`final_run`]): a fresh copy with `patch`
/// applied, then the held-out tests put back (the test patch applied after the change); a task
/// that gives its tests is graded by SWE-bench's resolved rule, as its attempts are.
fn run_once(resolved: &Resolved, patch: Option<&str>) -> Result<Ran, MendError> {
    let task = &resolved.task;
    let copy = resolved.spares.take(
        &resolved.repo,
        (&task.exclude.for_final_run(), &task.history),
        resolved.runner.set_up.as_ref(),
    )?;
    let (workspace, carried) = match patch_into(copy, patch)? {
        Patched::Ready(workspace, carried) => (workspace, carried),
        Patched::Refused(problem) => return Ok(Ran::NotApplied(problem)),
    };
    let subject = Subject {
        original: &resolved.repo,
        task,
        runner: &resolved.runner,
        held_out: &resolved.held_out,
    };
    let change = Change {
        root: workspace.root(),
        carried: &carried,
        diff: None,
    };
    let judged = final_run(&subject, &change, Before::Nothing, &mut Alone);
    // Nothing of the copy is kept: the check file says what was found. The next run of the
    // task gets it put back, where the sandbox allows.
    if let Some(workspace) = resolved.spares.give_back(workspace) {
        let _deleted = workspace.keep_or_delete(false);
    }
    let judged = judged?;
    runner_present(
        resolved,
        match &judged {
            Ok(judged) => &judged.run,
            Err(no_verdict) => &no_verdict.run,
        },
    )?;
    let judged = match judged {
        Ok(judged) => judged,
        Err(no_verdict) => return Ok(Ran::NoVerdict(no_verdict.message)),
    };
    if let Some(refused @ Untrusted::HeldOutPatchRefused { .. }) = &judged.run.not_trusted {
        return Ok(match patch {
            Some(_) => Ran::NotApplied(refused.describe()),
            None => Ran::NoVerdict(refused.describe()),
        });
    }
    if let Some(planted) = &judged.planted {
        return Ok(Ran::NoVerdict(planted.describe()));
    }
    Ok(match &judged.given {
        Some(graded) => Ran::graded(graded),
        None => Ran::of(&judged.run),
    })
}

/// A run that never reached its runner (no pytest for the interpreter, no such program) says
/// nothing of the task: the suite's environment lacks it, which is one harness error for the
/// whole check, never a task marked invalid.
fn runner_present(resolved: &Resolved, run: &TestRun) -> Result<(), MendError> {
    let argv = &resolved.task.test.argv;
    let output = run.output_tail.as_deref().unwrap_or_default();
    let Some(said) = missing_runner(argv, run.exit_code, output) else {
        return Ok(());
    };
    Err(MendError::harness(format!(
        "the test command `{}` found no runner to run: {said} — install it where the tests run (for pytest: `{} -m pip install pytest`), or pass --python PATH to an interpreter that has it; nothing was checked or written",
        argv.join(" "),
        resolved.runner.python
    )))
}

/// The first file of the task's `test.files` the patch changes.
fn touched_test_file(resolved: &Resolved, patch: &str) -> Option<String> {
    crate::patch::touched_paths(patch)
        .ok()?
        .into_iter()
        .find(|file| resolved.task.test.files.contains(file))
}
