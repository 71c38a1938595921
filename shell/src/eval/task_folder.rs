//! Where a suite's task is: its folder is the repository, or — for a task imported from a row
//! that names an image — the folder holds only its task file, and the repository is the image's
//! own copy at its workdir, read as `mend verify --task-file` reads it. Mounting the near-empty
//! folder over the image's repository would hide every file the tests need.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::setup::Resolved;
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
