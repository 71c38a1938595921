//! Added Python read as a syntax tree: which added lines reach into the test run (pytest's
//! internals imported outside the tests, `sys.modules` looked through, live objects walked,
//! frames read, tracing set, imported modules or classes patched, built strings run). Python's
//! own `ast`, run with the interpreter the tests use, reads it: it knows exactly the grammar of
//! the project's Python version, where a reader of our own would lag behind each release. It is
//! run isolated (`-I -S`: no `.pth`, no sitecustomize, no environment), and it only parses.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use camino::Utf8Path;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The reader, run with `-c`: its parts, each with one job, joined into one script (the last one
/// runs it).
const READER: &str = concat!(
    include_str!("python_reach/names.py"),
    include_str!("python_reach/comparisons.py"),
    include_str!("python_reach/surroundings.py"),
    include_str!("reach.py"),
);

/// One added node that reaches into the test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonReach {
    pub path: String,
    pub line: u64,
    pub what: String,
}

impl PythonReach {
    pub fn describe(&self) -> String {
        format!(
            "the change {} at {}:{}: check it does not game the test run",
            self.what, self.path, self.line
        )
    }
}

/// The reader at work on a change's added Python. Each file's source is read when it starts, so
/// the reader sees the change as it was before the tests ran there (what they write into the copy
/// cannot change it) and runs beside them instead of after.
pub(crate) enum ReadingPython {
    /// The change adds no Python.
    Nothing,
    Started(Reader),
    /// The reader could not start.
    Failed,
}

/// Starts reading the added Python of `diff` (a unified diff of the tree at `root`) with `python`.
pub(crate) fn start_reading_added_python(
    python: &Utf8Path,
    root: &Utf8Path,
    diff: &str,
    is_test: impl Fn(&str) -> bool,
) -> ReadingPython {
    let added = added_lines(diff);
    if added.is_empty() {
        return ReadingPython::Nothing;
    }
    // A file that cannot be read now is passed over, as one the reader cannot parse.
    let files: Vec<_> = added
        .iter()
        .filter_map(|(path, ranges)| {
            let source = std::fs::read(root.join(path)).ok()?;
            Some(json!({
                "path": path,
                "added": ranges,
                "test": is_test(path),
                // Bytes, not text: Python decodes them as it would import them (a coding cookie).
                "source": base64::engine::general_purpose::STANDARD.encode(source),
            }))
        })
        .collect();
    let asked = json!({ "files": files }).to_string();
    let started = Command::new(python)
        .args(["-I", "-S", "-c", READER])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = started else {
        return ReadingPython::Failed;
    };
    // The reader takes all of its input before it writes, so this cannot wait on its output.
    let sent = child
        .stdin
        .take()
        .is_some_and(|mut stdin| stdin.write_all(asked.as_bytes()).is_ok());
    if !sent {
        let _ = child.kill();
        let _ = child.wait();
        return ReadingPython::Failed;
    }
    ReadingPython::Started(Reader(Some(child)))
}

/// The reader's process; stopped and reaped if the verdict is abandoned before it is asked.
pub(crate) struct Reader(Option<Child>);

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl ReadingPython {
    /// What the reader found; `None` when it could not run (then the verdict falls back to
    /// reading words).
    pub(crate) fn finish(self) -> Option<Vec<PythonReach>> {
        match self {
            ReadingPython::Nothing => Some(Vec::new()),
            ReadingPython::Failed => None,
            ReadingPython::Started(mut reader) => {
                let output = reader.0.take()?.wait_with_output().ok()?;
                if !output.status.success() {
                    return None;
                }
                serde_json::from_slice(&output.stdout).ok()
            }
        }
    }
}

/// The lines each Python file of `diff` gained, as ranges of line numbers in the new file.
fn added_lines(diff: &str) -> BTreeMap<String, Vec<[u64; 2]>> {
    let mut added: BTreeMap<String, Vec<[u64; 2]>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0u64;
    for text in diff.lines() {
        if let Some(path) = text.strip_prefix("+++ ") {
            let path = path.strip_prefix("b/").unwrap_or(path);
            file = path.ends_with(".py").then(|| path.to_owned());
        } else if let Some(hunk) = text.strip_prefix("@@ ") {
            line = hunk_start(hunk).unwrap_or(0);
        } else if text.starts_with("--- ") {
        } else if let Some(path) = &file {
            if text.starts_with('+') {
                let ranges = added.entry(path.clone()).or_default();
                match ranges.last_mut() {
                    Some(range) if range[1] + 1 == line => range[1] = line,
                    _ => ranges.push([line, line]),
                }
                line += 1;
            } else if !text.starts_with('-') && !text.starts_with('\\') {
                line += 1;
            }
        }
    }
    added
}

/// The first new line of a hunk header's `+START,COUNT`.
fn hunk_start(hunk: &str) -> Option<u64> {
    let new = hunk.split(' ').find_map(|part| part.strip_prefix('+'))?;
    new.split(',').next()?.parse().ok()
}

#[cfg(test)]
mod tests;
