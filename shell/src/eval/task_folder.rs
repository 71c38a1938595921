//! Where a suite's task is: its folder is the repository, or — for a task imported from a row
//! that names an image — the folder holds only its task file, and the repository is the image's
//! own copy at its workdir, read as `mend verify --task-file` reads it. Mounting the near-empty
//! folder over the image's repository would hide every file the tests need.

use camino::{Utf8Path, Utf8PathBuf};

use super::suite::Suite;
use crate::error::MendError;
use crate::exec::sandbox::SandboxChoice;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::task::TASK_FILE_NAME;

/// `RepoChoice`'s `repo` and `task_file` for a task folder.
pub(crate) struct Place {
    pub repo: Option<Utf8PathBuf>,
    pub task_file: Option<Utf8PathBuf>,
}

pub(crate) fn place(folder: &Utf8Path) -> Place {
    if holds_only_its_task_file(folder) {
        Place {
            repo: None,
            task_file: Some(folder.join(TASK_FILE_NAME)),
        }
    } else {
        Place {
            repo: Some(folder.to_path_buf()),
            task_file: None,
        }
    }
}

/// The task in `folder` resolved as every attempt and check of a suite resolves it: the
/// folder's place, the suite's default environment, and the command's interpreter and sandbox.
pub(crate) fn resolve(
    folder: &Utf8Path,
    suite: &Suite,
    python: Option<&Utf8Path>,
    (sandbox, image_cache, on_host): (Option<SandboxChoice>, Option<&Utf8Path>, bool),
) -> Result<Resolved, MendError> {
    let place = place(folder);
    let resolved = RepoChoice {
        repo: place.repo.clone(),
        task_file: place.task_file.clone(),
        python: python.map(Utf8Path::to_path_buf),
        sandbox,
        image_cache: image_cache.map(Utf8Path::to_path_buf),
        on_host,
        default_environment: suite.environment.clone(),
    }
    .resolve(Recorded::default())?;
    check(&place, &resolved, folder)?;
    Ok(resolved)
}

/// A task folder with nothing but its task file (and `.mend/`, which no copy holds).
fn holds_only_its_task_file(folder: &Utf8Path) -> bool {
    folder.join(TASK_FILE_NAME).is_file()
        && folder.read_dir_utf8().is_ok_and(|mut entries| {
            entries.all(|entry| {
                entry.is_ok_and(|entry| matches!(entry.file_name(), TASK_FILE_NAME | ".mend"))
            })
        })
}

/// An image-only task must find its repository in its image, never anywhere on this machine.
pub(crate) fn check(
    place: &Place,
    resolved: &Resolved,
    folder: &Utf8Path,
) -> Result<(), MendError> {
    if place.repo.is_some() {
        return Ok(());
    }
    match &resolved.runner.image {
        Some(image) if resolved.repo.starts_with(&image.root) => Ok(()),
        Some(image) => Err(MendError::usage(format!(
            "{folder} holds only its task file, and its image {} holds no repository at {}: \
             name the image that holds the project, or put the project's files in {folder}",
            image.reference, image.workdir
        ))),
        None => Err(MendError::usage(format!(
            "{folder} holds only its task file, which names no image to hold the repository \
             (or --on-host was given): put the project's files in {folder}"
        ))),
    }
}
