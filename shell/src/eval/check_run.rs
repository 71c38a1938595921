//! `mend eval check SUITE`: each task's tests run without a change and with its gold patch,
//! [`RUNS`] times each on fresh copies; what was found is printed and kept beside the suite.

use camino::{Utf8Path, Utf8PathBuf};

use super::check::{judge_task, Ran, Status, RUNS};
use super::check_file::{gold_patch, gold_patch_path, CheckFile, Digests, TaskCheck};
use super::suite::Suite;
use crate::error::{exit, MendError};
use crate::exec::sandbox::SandboxChoice;
use crate::patch::TreePatchError;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::verdict::check::independent_check;
use crate::verdict::grade::given::Graded;
use crate::verdict::trust::tripwire::Tripwire;
use crate::workspace::held_out::put_back;
use crate::workspace::Workspace;

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
    let place = super::task_folder::place(folder);
    let resolved = RepoChoice {
        repo: place.repo.clone(),
        task_file: place.task_file.clone(),
        python: options.python.clone(),
        sandbox: options.sandbox,
        image_cache: options.image_cache.clone(),
        on_host: options.on_host,
        default_environment: options.suite.environment.clone(),
    }
    .resolve(Recorded::default())?;
    super::task_folder::check(&place, &resolved, folder)?;
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

/// The task's tests once as its final run makes them: a fresh copy with `patch` applied, then
/// the held-out tests put back (the test patch applied after the change); a task that gives its
/// tests is graded by SWE-bench's resolved rule, as its attempts are.
fn run_once(resolved: &Resolved, patch: Option<&str>) -> Result<Ran, MendError> {
    let task = &resolved.task;
    let workspace =
        Workspace::copy_of(&resolved.repo, &task.exclude.for_final_run(), &task.history)?;
    let carried = match patch.map(|patch| crate::patch::apply_to_tree(workspace.root(), patch)) {
        None => Vec::new(),
        Some(Ok(written)) => written,
        Some(Err(TreePatchError::DoesNotApply(problem))) => return Ok(Ran::NotApplied(problem)),
        Some(Err(TreePatchError::Io(message))) => return Err(MendError::harness(message)),
    };
    let held_out = put_back(workspace.root(), &resolved.held_out, task)?;
    if let Some(refused) = held_out.refused {
        return Ok(match patch {
            Some(_) => Ran::NotApplied(refused.describe()),
            None => Ran::NoVerdict(refused.describe()),
        });
    }
    let run = match independent_check(&resolved.runner, &task.test, workspace.root()) {
        Ok(run) => run,
        Err(error) => return Ok(Ran::NoVerdict(error.message)),
    };
    let tripwire = Tripwire {
        original: &resolved.repo,
        task,
        carried: &carried,
        held_out: &held_out.digests,
    };
    if let Some(reason) = tripwire.untrusted(workspace.root())? {
        return Ok(Ran::NoVerdict(reason.describe()));
    }
    Ok(match &task.given {
        Some(given) => Ran::graded(&Graded::grade(given, &run.cases)),
        None => Ran::of(&run),
    })
}

/// The first file of the task's `test.files` the patch changes.
fn touched_test_file(resolved: &Resolved, patch: &str) -> Option<String> {
    crate::patch::touched_paths(patch)
        .ok()?
        .into_iter()
        .find(|file| resolved.task.test.files.contains(file))
}
