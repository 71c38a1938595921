//! Applying a recorded run's diff to the original repository: `mend apply`.
//!
//! The diff is mend's own (one file, unified format). It is applied only to a file whose SHA-256
//! is exactly the one the run started from, and the result must hash to exactly the one the run
//! ended with, so there is no fuzzy matching anywhere: it applies exactly or not at all.

use std::fs;

use camino::Utf8Path;

use crate::atomic;
use crate::attempt::file_sha256;
use crate::error::MendError;
use crate::record::Record;
use crate::sample::{EDITABLE_FILE, TEST_FILE};

/// What `mend apply` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// The run changed nothing; nothing was written.
    NothingToApply,
    Written {
        path: String,
    },
}

pub fn apply_record(record: &Record, repo: &Utf8Path) -> Result<Applied, MendError> {
    let checks = &record.checks;
    for (file, expected) in [
        (TEST_FILE, &checks.test_file_sha256_before),
        (EDITABLE_FILE, &checks.source_sha256_before),
    ] {
        let actual = file_sha256(repo, file)?;
        if actual != *expected {
            return Err(MendError::refused(format!(
                "{repo}/{file} is not what the run started from (sha256 {actual}, the run started from {expected}); \
                 nothing was applied"
            )));
        }
    }
    if checks.diff.is_empty() {
        return Ok(Applied::NothingToApply);
    }
    let path = repo.join(EDITABLE_FILE);
    let original = fs::read_to_string(&path)
        .map_err(|err| MendError::harness(format!("cannot read {path}: {err}")))?;
    let patched = apply_unified(&original, &checks.diff).map_err(|problem| {
        MendError::refused(format!(
            "the record's diff does not apply to {path}: {problem}"
        ))
    })?;
    let digest = atomic::sha256_hex(patched.as_bytes());
    if digest != checks.source_sha256_after {
        return Err(MendError::refused(format!(
            "applying the diff to {path} does not give the file the run ended with; nothing was written"
        )));
    }
    write_atomically(&path, &patched)?;
    Ok(Applied::Written {
        path: path.to_string(),
    })
}

/// Writes `text` to `path` all or nothing (see [`atomic::write_file`]).
pub fn write_atomically(path: &Utf8Path, text: &str) -> Result<(), MendError> {
    atomic::write_file(path, |out| out.write_all(text.as_bytes()))
        .map_err(|err| MendError::harness(format!("cannot write {path}: {err}")))
}

/// Applies a one-file unified diff exactly: every context and removed line must match.
pub fn apply_unified(original: &str, diff: &str) -> Result<String, String> {
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let mut out = String::with_capacity(original.len());
    let mut at = 0; // next original line to copy
    let mut lines = diff.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        let Some(header) = line.strip_prefix("@@ -") else {
            return Err(format!("unexpected line outside a hunk: {line:?}"));
        };
        let start: usize = header
            .split([',', ' '])
            .next()
            .and_then(|number| number.parse().ok())
            .ok_or_else(|| format!("bad hunk header: {line:?}"))?;
        // A hunk that starts at line 0 adds to an empty file.
        let first = start.saturating_sub(1);
        if first < at || first > old.len() {
            return Err(format!(
                "hunk at line {start} is out of order or past the end"
            ));
        }
        old[at..first].iter().for_each(|kept| out.push_str(kept));
        at = first;
        let mut previous = "";
        while let Some(body) = lines.next_if(|next| !next.starts_with("@@")) {
            let (mark, text) = body.split_at(body.len().min(1));
            match mark {
                " " | "-" => {
                    let expected = old.get(at).ok_or_else(|| {
                        format!("the diff runs past the end of the file at {text:?}")
                    })?;
                    if expected.trim_end_matches('\n') != text.trim_end_matches('\n') {
                        return Err(format!(
                            "line {} is {expected:?}, the diff expects {text:?}",
                            at + 1
                        ));
                    }
                    if mark == " " {
                        out.push_str(expected);
                    }
                    at += 1;
                }
                "+" => out.push_str(text),
                // "\ No newline at end of file": the line before it has none. Only a line that was
                // written out (context or added) needs its newline taken back.
                "\\" if previous != "-" => {
                    if out.ends_with('\n') {
                        out.pop();
                    }
                }
                "\\" => {}
                _ => return Err(format!("unexpected line in a hunk: {body:?}")),
            }
            previous = mark;
        }
    }
    old[at.min(old.len())..]
        .iter()
        .for_each(|kept| out.push_str(kept));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::apply_unified;

    fn diff(before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .header("a/f", "b/f")
            .to_string()
    }

    #[test]
    fn applies_what_similar_produces() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
                "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
            ),
            ("x\ny", "x\nz"),
            ("", "new\n"),
            ("gone\n", ""),
        ];
        for (before, after) in cases {
            assert_eq!(
                apply_unified(before, &diff(before, after)).as_deref(),
                Ok(after),
                "{before:?} -> {after:?}"
            );
        }
    }

    #[test]
    fn refuses_a_diff_for_other_text() {
        let patch = diff("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(
            apply_unified("a\nX\nc\n", &patch),
            Err("line 2 is \"X\\n\", the diff expects \"b\\n\"".to_owned())
        );
    }
}
