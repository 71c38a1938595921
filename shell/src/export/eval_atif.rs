//! `mend eval report DIR... --atif OUT`: every attempt's record as an ATIF trajectory in the
//! folder OUT, named as its page is (`TASK-N.json`). An attempt whose record is missing or
//! unreadable is named on stderr and left out; the others are written.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::eval::attempt_pages::{record_path, AttemptError};
use crate::eval::page_names::page_name;
use crate::eval::results::Row;
use crate::export::atif::trajectory;
use crate::record::{write_json_atomically, Record};

/// Writes the trajectories; returns how many were written and how many could not be.
pub(crate) fn write_trajectories(
    rows: &[(Utf8PathBuf, Row)],
    out: &Utf8Path,
) -> Result<(usize, usize), MendError> {
    std::fs::create_dir_all(out).map_err(|err| {
        MendError::usage(format!(
            "cannot create {out} for the trajectories: {err} — give --atif a folder you can write"
        ))
    })?;
    let (mut written, mut missing) = (0, 0);
    for (dir, row) in rows {
        let record = record_path(dir, row)
            .and_then(|path| Record::read(&path).map_err(AttemptError::Unreadable));
        match record {
            Ok(record) => {
                let name = page_name(&row.task, row.attempt).replace(".html", ".json");
                let session = name.trim_end_matches(".json").to_owned();
                write_json_atomically(&out.join(&name), &trajectory(&record, &session))?;
                written += 1;
            }
            Err(problem) => {
                eprintln!(
                    "mend: warning: {} attempt {} has no trajectory: {problem}",
                    row.task, row.attempt
                );
                missing += 1;
            }
        }
    }
    Ok((written, missing))
}
