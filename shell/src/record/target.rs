//! Where a run's or a chat's record is written: the path `--record` names, or a new name in
//! `REPO/.mend/` taken when the record is first written, so that two runs started in the same
//! second each keep their own record.

use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

use crate::atomic;
use crate::clock::utc_stamp;
use crate::error::MendError;
use crate::mend_folder::{made, FOLDER};
use crate::record::format::{json_into, write_json_atomically};

/// How many numbered names (`-2` … `-1000`) a new record tries after its plain one.
const NUMBERED_NAMES: usize = 1000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordTarget {
    /// `--record PATH`: that file, replaced when it exists.
    Given(Utf8PathBuf),
    /// `FOLDER/STEM.json`, else `STEM-2.json`, `STEM-3.json`, …: never a file that exists.
    New { folder: Utf8PathBuf, stem: String },
}

/// A record being written, once or (a chat) after every message.
#[derive(Debug)]
pub(crate) struct RecordFile {
    target: RecordTarget,
    written: Option<Utf8PathBuf>,
}

impl RecordFile {
    pub(crate) fn new(target: RecordTarget) -> RecordFile {
        RecordFile {
            target,
            written: None,
        }
    }

    /// Writes `value` as pretty JSON, all or nothing, and returns the file written. The first
    /// write of a new record takes its name; later writes replace that same file.
    pub(crate) fn write_json(&mut self, value: &impl Serialize) -> Result<Utf8PathBuf, MendError> {
        let path = match (&self.written, &self.target) {
            (Some(path), _) | (None, RecordTarget::Given(path)) => {
                write_json_atomically(path, value)?;
                path.clone()
            }
            (None, RecordTarget::New { folder, stem }) => {
                let names = std::iter::once(format!("{stem}.json"))
                    .chain((2..=NUMBERED_NAMES).map(|number| format!("{stem}-{number}.json")));
                atomic::write_new_file(folder, names, |out| json_into(out, value)).map_err(
                    |err| {
                        MendError::harness(format!(
                            "cannot write the record {folder}/{stem}.json: {err} — pass --record PATH to write it elsewhere"
                        ))
                    },
                )?
            }
        };
        self.written = Some(path.clone());
        Ok(path)
    }

    /// The file the record was written to, once it has been.
    #[cfg(test)]
    pub(crate) fn written(&self) -> Option<&camino::Utf8Path> {
        self.written.as_deref()
    }
}

/// A new record in `REPO/.mend/`, named `<prefix><UTC stamp of now>.json` (`-2`, `-3`, … when a
/// record of the same second is there when it is written), with the folder (and its
/// `.gitignore`) made first, so a repository mend cannot write to is named before any work starts.
pub(crate) fn default_record(repo: &Utf8Path, prefix: &str) -> Result<RecordTarget, MendError> {
    let folder = repo.join(FOLDER);
    made(repo).map_err(|err| {
        MendError::harness(format!(
            "cannot create {folder} for the record: {err} — pass --record PATH to write it elsewhere"
        ))
    })?;
    Ok(RecordTarget::New {
        folder,
        stem: format!("{prefix}{}", utc_stamp(SystemTime::now())),
    })
}

/// Where a command's record goes: the path its flag names, else a new one in `REPO/.mend/`.
pub(crate) fn record_target(
    given: Option<&Utf8Path>,
    repo: &Utf8Path,
    prefix: &str,
) -> Result<RecordTarget, MendError> {
    match given {
        Some(path) => Ok(RecordTarget::Given(path.to_path_buf())),
        None => default_record(repo, prefix),
    }
}

#[cfg(test)]
mod tests;
