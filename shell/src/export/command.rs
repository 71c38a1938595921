//! `mend export --atif RECORD [-o FILE]`: a record as an ATIF trajectory, on stdout or into a
//! file (written whole or not at all).

use camino::Utf8Path;

use crate::atomic::{write_output, STANDARD_OUTPUT};
use crate::error::{exit, MendError};
use crate::export::atif::trajectory;
use crate::record::format::json_into;
use crate::record::Record;

/// `mend export`: a record as an ATIF trajectory, to a file or stdout.
pub fn command(record: &Utf8Path, out: Option<&Utf8Path>) -> Result<u8, MendError> {
    let read = Record::read(record)?;
    let exported = trajectory(&read, &session_id(record));
    match out {
        Some(out) if out != STANDARD_OUTPUT => {
            write_output(out, |file| json_into(file, &exported)).map_err(|err| {
                MendError::harness(format!("cannot write the trajectory {out}: {err}"))
            })?;
            eprintln!("mend: wrote the ATIF trajectory of {record} to {out}");
        }
        _ => println!("{exported}"),
    }
    Ok(exit::PASS)
}

/// A trajectory's `session_id`: the record's file name without `.json`.
pub fn session_id(record: &Utf8Path) -> String {
    record.file_stem().unwrap_or(record.as_str()).to_owned()
}
