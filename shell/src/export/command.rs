//! `mend export --atif RECORD [-o FILE]`: a record as an ATIF trajectory, on stdout or into a
//! file (written whole or not at all).

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::export::atif::trajectory;
use crate::record::{write_json_atomically, Record};

pub fn command(record: &Utf8Path, out: Option<&Utf8Path>) -> Result<u8, MendError> {
    let read = Record::read(record)?;
    let exported = trajectory(&read, &session_id(record));
    match out {
        Some(out) => {
            write_json_atomically(out, &exported)?;
            eprintln!("mend: wrote the ATIF trajectory of {record} to {out}");
        }
        None => println!("{exported}"),
    }
    Ok(exit::PASS)
}

/// A trajectory's `session_id`: the record's file name without `.json`.
pub fn session_id(record: &Utf8Path) -> String {
    record.file_stem().unwrap_or(record.as_str()).to_owned()
}
