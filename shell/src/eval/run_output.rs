//! The final run's whole output, kept beside each attempt's record (`DIR/<task>/<N>.output.gz`)
//! so that another grader can read the very log mend graded (`mend eval export --swebench`). A
//! record keeps only the tail of a run that failed; a sympy or django run prints hundreds of
//! kilobytes of `-rA` lines, which gzip shrinks about tenfold.

use std::io::{Read, Write};

use camino::{Utf8Path, Utf8PathBuf};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::error::MendError;

/// The file of attempt `attempt` in a task's results folder.
pub(crate) fn output_path(folder: &Utf8Path, attempt: u32) -> Utf8PathBuf {
    folder.join(format!("{attempt}.output.gz"))
}

/// Writes `output` compressed, all or nothing.
pub(crate) fn write(path: &Utf8Path, output: &str) -> Result<(), MendError> {
    crate::atomic::write_file(path, |file| {
        let mut encoder = GzEncoder::new(file, Compression::default());
        encoder.write_all(output.as_bytes())?;
        encoder.finish().map(drop)
    })
    .map_err(|err| MendError::harness(format!("cannot write the run's output {path}: {err}")))
}

/// The output kept at `path`; the error names the file and why it cannot be read.
pub(crate) fn read(path: &Utf8Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|err| format!("cannot open {path}: {err}"))?;
    let mut text = String::new();
    GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|err| format!("{path} is not a gzip of the run's output: {err}"))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_comes_back_as_it_was_written_and_smaller() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Utf8Path::from_path(dir.path()).unwrap();
        let output: String = (0..2000)
            .map(|n| format!("PASSED tests/test_x.py::test_{n}[a b]\n"))
            .collect::<String>()
            + "é ✓ no newline at the end";
        let path = output_path(folder, 3);
        write(&path, &output).unwrap();
        assert_eq!(path, folder.join("3.output.gz"));
        assert_eq!(read(&path), Ok(output.clone()));
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size * 10 < output.len() as u64, "{size} bytes");
    }

    #[test]
    fn a_file_that_is_not_gzip_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Utf8Path::from_path(dir.path()).unwrap();
        let path = output_path(folder, 0);
        std::fs::write(&path, "plain text").unwrap();
        let problem = read(&path).unwrap_err();
        assert!(
            problem.starts_with(&format!("{path} is not a gzip of the run's output")),
            "{problem}"
        );
    }
}
