//! The results files: one JSON line per finished attempt, appended so that a kill at any moment
//! leaves every earlier line whole, and read back so that a rerun skips what is done.

use std::fs::{self, File, OpenOptions};
use std::io::Write;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::MendError;

/// One finished attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Row {
    pub task: String,
    pub attempt: u32,
    pub seed: i64,
    /// The core's stop reason (the loop), e.g. `assistant_finished`, `budget_exceeded`.
    pub stop: String,
    /// The independent final tests passed on tests the run did not change.
    pub passed: bool,
    pub turns: u32,
    /// Prompt + generated tokens, as the server counted them.
    pub tokens: u64,
    pub model_ms: u64,
    pub tool_ms: u64,
    pub test_ms: u64,
    /// What the attempt spent outside the tests and the model: its copy made and put back for
    /// the final tests, the sandbox's start, the copy deleted (absent in results written before
    /// it was measured; the attempt's record has each figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_ms: Option<u64>,
    /// The attempt's record, relative to the output folder.
    pub record: String,
    /// SHA-256 of the suite file, of the task file, of the repository's editable and test files.
    pub suite_sha256: String,
    pub task_file_sha256: String,
    pub repo_sha256: String,
    /// The model as the suite or `--model` named it (what a person calls it); empty in results
    /// written before it was kept.
    #[serde(default)]
    pub model: String,
    /// The server's digest of the model (Ollama), else `protocol:name`.
    pub model_digest: String,
    pub k: u32,
    /// `mend eval check` found the task flaky (absent: it did not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// Why it ended as it did, beyond pass or fail.
    #[serde(flatten, default)]
    pub why: super::why::Why,
    /// The attempt passed, but its change reaches into the test run (the verdict's warnings
    /// from reading its added Python): counted apart, never as a pass (absent: it does not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suspect: bool,
}

/// The rows of every results file in `dir` (`results*.jsonl`), in file then line order.
pub(crate) fn read_dir_rows(dir: &Utf8Path) -> Result<Vec<Row>, MendError> {
    let mut rows = Vec::new();
    for path in results_files(dir)? {
        let (mut found, torn) = read_rows(&path)?;
        if torn {
            eprintln!(
                "mend: {path} ends with an incomplete line (an attempt killed while writing it); it is ignored and that attempt runs again on resume"
            );
        }
        rows.append(&mut found);
    }
    Ok(rows)
}

pub(crate) fn results_files(dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>, MendError> {
    let entries = match dir.read_dir_utf8() {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(MendError::harness(format!("cannot read {dir}: {err}"))),
    };
    let mut files: Vec<Utf8PathBuf> = entries
        .flatten()
        .map(|entry| entry.path().to_path_buf())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.starts_with("results") && name.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The complete lines of one results file, and whether it ended with an incomplete one.
pub(crate) fn read_rows(path: &Utf8Path) -> Result<(Vec<Row>, bool), MendError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(err) => return Err(MendError::harness(format!("cannot read {path}: {err}"))),
    };
    let complete = complete_len(&bytes);
    let mut rows = Vec::new();
    for (number, line) in bytes[..complete].split(|byte| *byte == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let row = parse_row(line).map_err(|err| {
            MendError::refused(format!(
                "{path}:{}: not a results line of mend eval ({err}) — remove that line to run its attempt again",
                number + 1
            ))
        })?;
        rows.push(row);
    }
    Ok((rows, complete < bytes.len()))
}

/// One results line. Lines written before the verdict's warning on a pass was named `warning`
/// kept it under `suspect`, the key of the flag for passes counted apart: a string there is the
/// warning. Where a line held both under that one key, JSON keeps the last, the flag (written
/// after the flattened warning), so such a line reads as suspect without the warning's text.
fn parse_row(line: &[u8]) -> Result<Row, serde_json::Error> {
    let mut value: serde_json::Value = serde_json::from_slice(line)?;
    if let Some(fields) = value.as_object_mut() {
        if fields
            .get("suspect")
            .is_some_and(serde_json::Value::is_string)
        {
            if let Some(warning) = fields.remove("suspect") {
                fields.insert("warning".to_owned(), warning);
            }
        }
    }
    serde_json::from_value(value)
}

/// The length of the part made of whole lines.
fn complete_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |at| at + 1)
}

/// An open results file: each row is one write of a whole line to an append-only file, then
/// fsync, so that no reader ever sees half a line that a later line completes.
pub(crate) struct ResultsFile {
    file: File,
    path: Utf8PathBuf,
}

impl ResultsFile {
    /// Opens (or creates) the file for appending; an incomplete last line, left by a kill while
    /// writing, is cut off first so that the next line starts on its own.
    pub(crate) fn open(path: &Utf8Path) -> Result<ResultsFile, MendError> {
        let failed =
            |err: std::io::Error| MendError::harness(format!("cannot write {path}: {err}"));
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(failed)?;
        let bytes = fs::read(path).map_err(failed)?;
        let complete = complete_len(&bytes);
        if complete < bytes.len() {
            file.set_len(complete as u64).map_err(failed)?;
        }
        Ok(ResultsFile {
            file,
            path: path.to_path_buf(),
        })
    }

    pub(crate) fn append(&mut self, row: &Row) -> Result<(), MendError> {
        let mut line = serde_json::to_vec(row)
            .map_err(|err| MendError::harness(format!("cannot serialize a results line: {err}")))?;
        line.push(b'\n');
        let failed =
            |err: std::io::Error| MendError::harness(format!("cannot write {}: {err}", self.path));
        let written = self.file.write(&line).map_err(failed)?;
        if written != line.len() {
            // A short write to a regular file means a full disk: cut it off rather than leave it.
            let length = self.file.metadata().map_err(failed)?.len();
            self.file
                .set_len(length.saturating_sub(written as u64))
                .map_err(failed)?;
            return Err(MendError::harness(format!(
                "{}: only {written} of {} bytes written (disk full?)",
                self.path,
                line.len()
            )));
        }
        self.file.sync_data().map_err(failed)
    }
}

#[cfg(test)]
impl Row {
    /// A finished attempt for unit tests, with placeholder digests; each test sets the figures
    /// it measures with `Row { tokens: …, ..Row::example(…) }`.
    pub(crate) fn example(task: &str, attempt: u32, passed: bool) -> Row {
        Row {
            task: task.to_owned(),
            attempt,
            seed: i64::from(attempt),
            stop: "assistant_finished".to_owned(),
            passed,
            turns: 2,
            tokens: 0,
            model_ms: 0,
            tool_ms: 0,
            test_ms: 0,
            outside_ms: None,
            record: format!("{task}/{attempt}.json"),
            suite_sha256: "s".to_owned(),
            task_file_sha256: "t".to_owned(),
            repo_sha256: "r".to_owned(),
            model: "gemma4:e2b".to_owned(),
            model_digest: "m".to_owned(),
            k: 2,
            flaky: false,
            why: super::why::Why::default(),
            suspect: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, attempt: u32) -> Row {
        Row {
            seed: 7 + i64::from(attempt),
            tokens: 300,
            model_ms: 5,
            tool_ms: 6,
            test_ms: 7,
            outside_ms: Some(8),
            k: 4,
            ..Row::example(task, attempt, attempt % 2 == 0)
        }
    }

    #[test]
    fn lines_written_when_the_warning_was_called_suspect_still_read() {
        let mut line = serde_json::to_value(row("a", 0)).expect("row as JSON");
        line["suspect"] = serde_json::json!("no protected test file");
        let warned = line.to_string();
        // Both under one key, as the older writer put a suspect pass's warning and flag.
        let both = warned.replacen('{', r#"{"suspect":"reads sys.modules","#, 1);
        let both = both.replace(r#""suspect":"no protected test file""#, r#""suspect":true"#);
        let read = [warned, both].map(|line| parse_row(line.as_bytes()).expect("older line"));
        assert_eq!(
            read,
            [
                Row {
                    why: crate::eval::why::Why {
                        warning: Some("no protected test file".to_owned()),
                        ..Default::default()
                    },
                    ..row("a", 0)
                },
                Row {
                    suspect: true,
                    ..row("a", 0)
                },
            ]
        );
    }

    #[test]
    fn a_torn_last_line_is_ignored_then_cut_off_before_the_next_append() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = Utf8PathBuf::from_path_buf(dir.path().join("results.jsonl")).expect("utf-8");
        let mut file = ResultsFile::open(&path).expect("open");
        file.append(&row("a", 0)).expect("append");
        drop(file);
        let mut bytes = fs::read(&path).expect("read");
        bytes.extend_from_slice(br#"{"task":"a","attem"#);
        fs::write(&path, &bytes).expect("tear");
        assert_eq!(read_rows(&path).expect("read"), (vec![row("a", 0)], true));

        let mut file = ResultsFile::open(&path).expect("reopen");
        file.append(&row("a", 1)).expect("append");
        assert_eq!(
            read_rows(&path).expect("read"),
            (vec![row("a", 0), row("a", 1)], false)
        );
    }

    #[test]
    fn a_broken_line_in_the_middle_is_refused_with_its_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = Utf8PathBuf::from_path_buf(dir.path().join("results.jsonl")).expect("utf-8");
        let good = serde_json::to_string(&row("a", 0)).expect("json");
        fs::write(&path, format!("{good}\nnot json\n{good}\n")).expect("write");
        let error = read_rows(&path).expect_err("refused");
        assert_eq!(
            (
                error.exit_code,
                error.message.starts_with(&format!("{path}:2: "))
            ),
            (4, true)
        );
    }
}
