//! `mend eval check SUITE`: each task's tests run without a change and with its gold patch,
//! [`RUNS`] times each on fresh copies; what was found is printed and kept beside the suite.

use camino::{Utf8Path, Utf8PathBuf};

use super::check::{judge, Ran, Status, RUNS};
use super::check_file::{gold_patch, gold_patch_path, CheckFile, Digests, TaskCheck};
use super::suite::Suite;
use crate::error::{exit, MendError};
use crate::exec::sandbox::SandboxChoice;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::verdict::verify::independent_check;
use crate::workspace::Workspace;

pub struct CheckOptions {
    pub suite: Suite,
    pub python: Option<Utf8PathBuf>,
    pub sandbox: Option<SandboxChoice>,
    /// `--image-cache`: where the tasks' images are unpacked.
    pub image_cache: Option<Utf8PathBuf>,
    /// `--on-host`: the tasks' images are not used.
    pub on_host: bool,
}

/// Checks every task, prints one line each, writes the check; exit 1 when a task is invalid.
pub fn check_suite(options: &CheckOptions) -> Result<u8, MendError> {
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
    let resolved = RepoChoice {
        repo: Some(folder.to_path_buf()),
        task_file: None,
        python: options.python.clone(),
        sandbox: options.sandbox,
        image_cache: options.image_cache.clone(),
        on_host: options.on_host,
        default_environment: options.suite.environment.clone(),
    }
    .resolve(Recorded::default())?;
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
    let mut judged = judge(&empty, gold.as_ref().map(|_| with_gold.as_slice()));
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

/// The task's tests once, on a fresh copy with `patch` applied.
fn run_once(resolved: &Resolved, patch: Option<&str>) -> Result<Ran, MendError> {
    let workspace = Workspace::copy_of(&resolved.repo, &resolved.task.exclude)?;
    if let Some(patch) = patch {
        if let Err(problem) = apply(workspace.root(), patch) {
            return Ok(Ran::NoVerdict(format!(
                "the gold patch does not apply: {problem}"
            )));
        }
    }
    Ok(
        match independent_check(&resolved.runner, &resolved.task.test, workspace.root()) {
            Ok(run) => Ran::of(&run),
            Err(error) => Ran::NoVerdict(error.message),
        },
    )
}

/// Applies a unified diff (`--- a/FILE` / `+++ b/FILE` sections, as mend writes its patches)
/// exactly to the files under `root`.
fn apply(root: &Utf8Path, patch: &str) -> Result<(), String> {
    let sections =
        crate::record::patch::file_sections(patch).map_err(|error| error.message.clone())?;
    if sections.is_empty() {
        return Err("it has no `--- a/FILE` / `+++ b/FILE` section".to_owned());
    }
    for (file, section) in sections {
        let relative = Utf8Path::new(&file);
        if relative.is_absolute()
            || relative
                .components()
                .any(|part| part.as_str() == ".." || part.as_str() == "/")
        {
            return Err(format!("`{file}` is not a path inside the repository"));
        }
        let path = root.join(relative);
        let original = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(format!("cannot read {file}: {err}")),
        };
        let patched = crate::record::patch::apply_unified(&original, section)
            .map_err(|problem| format!("{file}: {problem}"))?;
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|err| format!("{file}: {err}"))?;
        }
        std::fs::write(&path, patched).map_err(|err| format!("cannot write {file}: {err}"))?;
    }
    Ok(())
}

/// The first file of the task's `test.files` the patch changes.
fn touched_test_file(resolved: &Resolved, patch: &str) -> Option<String> {
    crate::record::patch::file_sections(patch)
        .ok()?
        .into_iter()
        .map(|(file, _)| file)
        .find(|file| resolved.task.test.files.contains(file))
}
