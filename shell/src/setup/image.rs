//! The task's image, when it names one (or its suite does): pulled and unpacked unless this
//! machine has it, and the repository it carries at its workdir when no other is chosen.

use camino::{Utf8Path, Utf8PathBuf};

use super::{Recorded, RepoChoice};
use crate::error::MendError;
use crate::exec::image::{ImageCache, ImageRun};
use crate::task::{Environment, Task};

impl RepoChoice {
    /// The repository, its task and the image it runs in. A task file given without `--repo`
    /// whose image holds the repository at its workdir (SWE-bench's `/testbed`) is worked on
    /// there: the copy is made from the image's folder.
    pub(super) fn repo_and_task(
        &self,
        recorded: Recorded,
    ) -> Result<(Utf8PathBuf, Task, Option<ImageRun>), MendError> {
        if let (None, None, Some(task_file)) = (&self.repo, recorded.repo, &self.task_file) {
            let task = Task::load(task_file)?;
            if let Some(environment) = self.environment(&task) {
                let image = self.image_run(environment)?;
                if let Some(folder) = crate::exec::image::repository_in(&image) {
                    crate::exec::image::refuse_escaping_git(&image, &folder)?;
                    let task = Task::locate(&folder, Some(task_file))?;
                    return Ok((folder, task, Some(image)));
                }
            }
        }
        let repo = match self.task_file {
            // A task file named on the command line does not say where the project is.
            Some(_) => self.repo(recorded.repo)?,
            None => super::repository::project(self.repo.as_deref(), recorded.repo)?,
        };
        let task = Task::locate(&repo, self.task_file.as_deref())?;
        let image = match self.environment(&task) {
            Some(environment) => Some(self.image_run(environment)?),
            None => None,
        };
        Ok((repo, task, image))
    }

    /// Where records go: beside the task file when the repository is the image's own.
    pub(super) fn records(&self, repo: &Utf8Path, image: Option<&ImageRun>) -> Utf8PathBuf {
        match (image, &self.task_file) {
            (Some(image), Some(task_file)) if repo.starts_with(&image.root) => task_file
                .parent()
                .filter(|folder| !folder.as_str().is_empty())
                .map_or_else(|| Utf8PathBuf::from("."), Utf8Path::to_path_buf),
            _ => repo.to_path_buf(),
        }
    }

    fn environment<'a>(&'a self, task: &'a Task) -> Option<&'a Environment> {
        if self.on_host {
            return None;
        }
        task.environment
            .as_ref()
            .or(self.default_environment.as_ref())
    }

    /// The image pulled and unpacked unless this machine has it, ready to run in.
    fn image_run(&self, environment: &Environment) -> Result<ImageRun, MendError> {
        let cache = ImageCache::locate(self.image_cache.as_deref())?;
        let unpacked = cache.ensure(&environment.image)?;
        ImageRun::new(
            &environment.image.to_string(),
            &unpacked,
            environment.workdir.as_deref(),
        )
    }

    /// The interpreter the user named for a task that runs in `image` — `--python`, else the
    /// record's, else `$MEND_PYTHON` — looked up inside the image, where it runs; `None` when
    /// none is named (the image's own `python`).
    pub(super) fn image_python(
        &self,
        recorded: Option<&str>,
        image: &ImageRun,
    ) -> Result<Option<Utf8PathBuf>, MendError> {
        let mend_python = std::env::var("MEND_PYTHON")
            .ok()
            .filter(|value| !value.is_empty());
        let (python, named_by) = match (&self.python, recorded, mend_python) {
            (Some(flag), _, _) => (flag.clone(), "--python"),
            (None, Some(recorded), _) => (Utf8PathBuf::from(recorded), "the record"),
            (None, None, Some(variable)) => (Utf8PathBuf::from(variable), "$MEND_PYTHON"),
            (None, None, None) => return Ok(None),
        };
        let inside = python
            .strip_prefix("/")
            .ok()
            .filter(|_| python.is_absolute());
        let present =
            inside.is_some_and(|inside| std::fs::symlink_metadata(image.root.join(inside)).is_ok());
        if python.as_str() == crate::task::PYTHON_WORD || present {
            return Ok(Some(python).filter(|python| python.is_absolute()));
        }
        Err(MendError::usage(format!(
            "{named_by} names the Python `{python}`, looked up inside the image {} (the task runs there, not on this machine), which has no such file — name the interpreter by its absolute path inside the image (e.g. /opt/miniconda3/envs/testbed/bin/python), or leave {named_by} out to use the image's own `python`",
            image.reference
        )))
    }
}
