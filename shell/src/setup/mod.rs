//! What a run is set up with, from the user's choices (flags, a suite's options, a record): the
//! repository, its task and the runner its tests go through ([`Resolved`]), and the core's
//! `Config` ([`config`]). Kept apart from the command line, so that `eval/` and the commands
//! share it without `eval/` importing `cli/`.

pub(crate) mod config;
mod image;
pub mod repository;
pub mod spares;

use camino::Utf8PathBuf;
use clap::ValueEnum;

use crate::error::MendError;
use crate::exec::runner::TestRunner;
use crate::exec::sandbox::{Sandbox, SandboxChoice};
use crate::exec::set_up::SetUp;
use crate::record::settings::LEGACY_REPO;
use crate::task::{Task, ToolName};
use crate::workspace::held_out::held_out_files;
use camino::Utf8Path;
use repository::repository;
use spares::Spares;

/// The repository, its task file, and where its code runs, as the user chose them (`None`: not
/// chosen, so a record's or the default).
#[derive(Debug, Clone, Default)]
pub struct RepoChoice {
    /// `--repo`: the repository to work on.
    pub repo: Option<Utf8PathBuf>,
    /// `--task-file`: the task file, instead of the repository's own.
    pub task_file: Option<Utf8PathBuf>,
    /// `--python`: the interpreter the tests run with.
    pub python: Option<Utf8PathBuf>,
    /// `--sandbox`: how the tests are isolated.
    pub sandbox: Option<SandboxChoice>,
    /// `--image-cache`: where the task's image is unpacked.
    pub image_cache: Option<Utf8PathBuf>,
    /// `--on-host`: the task's image is not used (mend runs inside it already).
    pub on_host: bool,
    /// The suite's `[environment]`, for a task file that names none.
    pub default_environment: Option<crate::task::Environment>,
}

/// What a record says about where it was made; replay reuses each unless a flag overrides it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Recorded<'a> {
    /// The repository the record was made on.
    pub repo: Option<&'a str>,
    /// The interpreter the record's tests ran with.
    pub python: Option<&'a str>,
    /// The sandbox the record's tests ran in.
    pub sandbox: Option<SandboxChoice>,
}

impl<'a> Recorded<'a> {
    /// Reads them from a record's settings; a record older than the repository's name gets the sample's.
    pub fn of(settings: &'a crate::record::SessionSettings) -> Recorded<'a> {
        Recorded {
            // Records made before records named their repository are the sample's.
            repo: Some(settings.repo.as_deref().unwrap_or(LEGACY_REPO)),
            python: settings.python.as_deref(),
            sandbox: settings
                .sandbox_choice
                .as_deref()
                .and_then(|name| SandboxChoice::from_str(name, true).ok()),
        }
    }
}

/// What one attempt is set up with: the repository, its task, how its tests run, and whether
/// its copy is kept.
pub struct Setup<'a> {
    /// The original repository; only ever read.
    pub repo: &'a Utf8Path,
    /// The task: prompt, tools, access and test command.
    pub task: &'a Task,
    /// How and where the tests run.
    pub runner: &'a TestRunner,
    /// The repository's files that `test.held_out` names: the final tests get them back.
    pub held_out: &'a [String],
    /// `--keep`: the copy stays on disk after the attempt, for a person to look into.
    pub keep_workspace: bool,
    /// Used copies of this repository put back for the next attempt.
    pub spares: &'a Spares,
}

/// The repository, its task and where its tests run, as the flags (and a record) decided.
pub struct Resolved {
    /// The original repository; only ever read.
    pub repo: Utf8PathBuf,
    /// Where records go when no flag names a file (`.mend/` in it): the repository, or the task
    /// file's folder when the repository is the image's (the shared cache is never written).
    pub records: Utf8PathBuf,
    /// The task read for it.
    pub task: Task,
    /// How and where its tests run.
    pub runner: TestRunner,
    /// The sandbox as chosen, kept in records so a replay can choose the same.
    pub sandbox_choice: SandboxChoice,
    /// The repository's files that `test.held_out` names, sorted.
    pub held_out: Vec<String>,
    /// Used copies put back for the next attempt (none until [`Resolved::hand_copies_on`]).
    pub spares: Spares,
}

impl Resolved {
    /// What one attempt on this repository needs.
    pub fn setup(&self, keep_workspace: bool) -> Setup<'_> {
        Setup {
            repo: &self.repo,
            task: &self.task,
            runner: &self.runner,
            held_out: &self.held_out,
            keep_workspace,
            spares: &self.spares,
        }
    }

    /// Hands each attempt's used copy on to the next (see [`spares`]), where the sandbox allows:
    /// for commands that run many attempts on this repository.
    pub fn hand_copies_on(&mut self) {
        self.spares = Spares::for_runner(&self.runner);
    }

    /// Where this run is made, as a record keeps it.
    pub fn origin(&self) -> crate::record::Origin<'_> {
        self.setup(false).origin(self.sandbox_choice)
    }
}

impl<'a> Setup<'a> {
    /// Where an attempt set up so is made, with the sandbox as chosen, as a record keeps it.
    pub fn origin(&self, sandbox_choice: SandboxChoice) -> crate::record::Origin<'a> {
        crate::record::Origin {
            repo: self.repo,
            python: &self.runner.python,
            sandbox_choice,
            image: self.runner.image.as_ref(),
        }
    }
}

impl RepoChoice {
    /// `--repo`, else the repository a record names, else the current folder; checked to be a
    /// folder.
    pub fn repo(&self, recorded: Option<&str>) -> Result<Utf8PathBuf, MendError> {
        repository(self.repo.as_deref(), recorded)
    }

    /// The repository, its task file (loaded and checked) and a runner fit for it: a task that
    /// enables `shell` needs a sandbox.
    pub fn resolve(&self, recorded: Recorded) -> Result<Resolved, MendError> {
        let (repo, task, mut image) = self.repo_and_task(recorded)?;
        let records = self.records(&repo, image.as_ref());
        let python = match image.as_mut() {
            Some(image) => {
                image.python = self.image_python(recorded.python, image)?;
                image
                    .python
                    .clone()
                    .unwrap_or_else(|| crate::task::PYTHON_WORD.into())
            }
            None => {
                crate::exec::interpreter::choose(self.python.as_deref(), recorded.python, &repo)?
                    .path
            }
        };
        let sandbox_choice = self
            .sandbox
            .or(recorded.sandbox)
            .unwrap_or(SandboxChoice::Auto);
        let started = std::time::Instant::now();
        let sandbox = Sandbox::resolve(sandbox_choice)?;
        let sandbox_start = started.elapsed();
        let mut runner = TestRunner {
            sandbox_start,
            ..TestRunner::for_task(python, sandbox, &task, &repo, image)?
        };
        let digest = runner.image.as_ref().map(|image| image.digest.clone());
        let context = [runner.python.as_str(), digest.as_deref().unwrap_or("")];
        runner.set_up = SetUp::for_task(&task.setup, &repo, &records, &context)?;
        if task.offers(ToolName::Shell) && runner.sandbox == Sandbox::Unsandboxed {
            return Err(MendError::usage(format!(
                "{} enables the shell tool, which runs only inside a sandbox, and none is available here \
                 — install bubblewrap (`apt-get install bubblewrap`) or remove `shell` from tools.enabled",
                task.origin
            )));
        }
        let held_out = held_out_files(&repo, &task)?;
        Ok(Resolved {
            repo,
            records,
            task,
            runner,
            sandbox_choice,
            held_out,
            spares: Spares::default(),
        })
    }
}
