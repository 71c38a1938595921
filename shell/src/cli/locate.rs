//! The record `mend replay` reads when none is named.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;

/// The record `mend replay` reads when none is named: the mend checkout's recorded repair,
/// when mend runs there.
pub const DEMO_RECORD: &str = "fixtures/repair.json";

/// The record to replay: the one named, else the mend checkout's recorded repair when mend runs
/// there; anywhere else the user is told to name one (and which is the newest in `.mend/`).
pub fn replay_record(named: Option<&Utf8Path>) -> Result<Utf8PathBuf, MendError> {
    if let Some(record) = named {
        return Ok(record.to_path_buf());
    }
    if Utf8Path::new(DEMO_RECORD).is_file() {
        return Ok(Utf8PathBuf::from(DEMO_RECORD));
    }
    let newest = std::fs::read_dir(crate::mend_folder::FOLDER)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let modified = entry.metadata().and_then(|meta| meta.modified()).ok()?;
            Some((modified, entry.file_name().into_string().ok()?))
        })
        .filter(|(_, name)| name.ends_with(".json"))
        .max()
        .map(|(_, name)| name);
    let example = match newest {
        Some(name) => format!(
            "the newest here is `mend replay {}/{name}`",
            crate::mend_folder::FOLDER
        ),
        None => format!(
            "`mend run` writes them to REPO/{}/",
            crate::mend_folder::FOLDER
        ),
    };
    Err(MendError::usage(format!(
        "name the record to replay, e.g. `mend replay {}/<stamp>.json` ({example})",
        crate::mend_folder::FOLDER
    )))
}
