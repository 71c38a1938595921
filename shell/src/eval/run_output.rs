//! The final run's whole output, kept beside each attempt's record (`DIR/<task>/<N>.output.gz`)
//! so that another grader can read the very log mend graded (`mend eval export --swebench`). A
//! record keeps only the tail of a run that failed; a sympy or django run prints hundreds of
//! kilobytes of `-rA` lines, which gzip shrinks about tenfold.

use std::fmt;
use std::io::{self, Read, Write};

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

/// Why a kept output cannot be read: it is not there (results written before mend kept them),
/// or it is not what mend writes.
#[derive(Debug)]
pub(crate) enum OutputError {
    /// The file cannot be opened.
    Open {
        path: Utf8PathBuf,
        source: io::Error,
    },
    /// The file is not a gzip of UTF-8 text.
    NotGzip {
        path: Utf8PathBuf,
        source: io::Error,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Open { path, source } => write!(f, "cannot open {path}: {source}"),
            OutputError::NotGzip { path, source } => {
                write!(f, "{path} is not a gzip of the run's output: {source}")
            }
        }
    }
}

impl std::error::Error for OutputError {}

/// The output kept at `path`; the error names the file and why it cannot be read.
pub(crate) fn read(path: &Utf8Path) -> Result<String, OutputError> {
    let file = std::fs::File::open(path).map_err(|source| OutputError::Open {
        path: path.to_owned(),
        source,
    })?;
    let mut text = String::new();
    GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|source| OutputError::NotGzip {
            path: path.to_owned(),
            source,
        })?;
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
        assert_eq!(read(&path).unwrap(), output);
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size * 10 < output.len() as u64, "{size} bytes");
    }

    #[test]
    fn a_missing_output_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = output_path(Utf8Path::from_path(dir.path()).unwrap(), 1);
        let problem = read(&path).unwrap_err();
        assert!(matches!(&problem, OutputError::Open { path: named, .. } if *named == path));
        assert_eq!(
            problem.to_string(),
            format!("cannot open {path}: No such file or directory (os error 2)")
        );
    }

    #[test]
    fn a_file_that_is_not_gzip_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Utf8Path::from_path(dir.path()).unwrap();
        let path = output_path(folder, 0);
        std::fs::write(&path, "plain text").unwrap();
        let problem = read(&path).unwrap_err();
        assert!(matches!(&problem, OutputError::NotGzip { path: named, .. } if *named == path));
        let problem = problem.to_string();
        assert!(
            problem.starts_with(&format!("{path} is not a gzip of the run's output")),
            "{problem}"
        );
    }
}
