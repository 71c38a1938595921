//! `mend apply RECORD`: a recorded run's change written into the original repository, only
//! when the repository still matches what the run started from. The checks are
//! [`crate::record::patch`]'s; this file reads the arguments and says what happened.

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::record::patch::{apply_record, Applied};
use crate::record::Record;
use crate::setup::repository::repository;
use crate::setup::Recorded;
use crate::task::Task;

/// `mend apply RECORD`: writes the record's change into the repository, and says what it did; its exit code says whether it could.
pub fn command(
    record: &Utf8Path,
    repo: Option<&Utf8Path>,
    task_file: Option<&Utf8Path>,
) -> Result<u8, MendError> {
    let record_path = record;
    let record = Record::read(record_path)?;
    record.refuse_if_ended_early(record_path, "apply")?;
    let recorded = Recorded::of(&record.settings);
    let repo = repository(repo, recorded.repo)?;
    let task = Task::locate(&repo, task_file)?;
    match apply_record(&record, &repo, &task)? {
        Applied::NothingToApply => println!("The run changed nothing; {repo} is unchanged."),
        Applied::AlreadyHeld => {
            println!("The run's change is already applied in {repo}; nothing was written.")
        }
        Applied::Written { paths } => {
            println!("Applied the run's change to {}.", paths.join(", "))
        }
    }
    Ok(exit::PASS)
}
