//! Applying one file's hunks to its text. Every context and removed line must match (a line's
//! ending aside): there is no fuzz. Where a hunk may stand is the caller's choice: exactly at the
//! line its header names (`mend apply`, which must give exactly the file a run ended with), or,
//! as `git apply` does, at the nearest line where it matches when lines above it were added or
//! removed since the diff was made.

use super::parse::{Hunk, HunkLine};

/// Why a file's hunks do not fit its text: the hunk and the line that differ, in words. The
/// diff does not fit the file, however it failed, so one shape serves every caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misfit(String);

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Misfit {}

/// Where a hunk may apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Only at the line its header names.
    Exact,
    /// At the nearest line where it matches, never before the previous hunk.
    Shifted,
}

/// `original` with `hunks` applied, or why they do not apply.
pub(crate) fn apply_hunks(
    original: &str,
    hunks: &[Hunk],
    placement: Placement,
) -> Result<String, Misfit> {
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let mut out = String::with_capacity(original.len());
    let mut at = 0; // the next line of `old` not yet written out
    for hunk in hunks {
        let expected: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|line| match line {
                HunkLine::Context(text) | HunkLine::Removed(text) => Some(text.as_str()),
                HunkLine::Added(_) => None,
            })
            .collect();
        // A hunk that removes nothing inserts after its start line.
        let stated = if hunk.old_count == 0 {
            hunk.old_start
        } else {
            hunk.old_start.saturating_sub(1)
        };
        let found = match placement {
            Placement::Exact => {
                matches_at(&old, stated, &expected, at)
                    .map_err(|problem| Misfit(problem.describe()))?;
                stated
            }
            Placement::Shifted => nearest(&old, stated, &expected, at).ok_or_else(|| {
                let why = matches_at(&old, stated, &expected, at)
                    .err()
                    .map_or_else(String::new, |problem| format!(" ({})", problem.describe()));
                Misfit(format!(
                    "the hunk at line {} matches nowhere in the file{why}",
                    hunk.old_start
                ))
            })?,
        };
        old[at..found].iter().for_each(|kept| out.push_str(kept));
        at = found;
        for line in &hunk.lines {
            match line {
                HunkLine::Context(_) => {
                    out.push_str(old[at]);
                    at += 1;
                }
                HunkLine::Removed(_) => at += 1,
                HunkLine::Added(text) => out.push_str(text),
            }
        }
    }
    old[at..].iter().for_each(|kept| out.push_str(kept));
    Ok(out)
}

/// Why a hunk does not match at a line.
enum Mismatch<'a> {
    OutOfOrder(usize),
    PastTheEnd(&'a str),
    Differs {
        line: usize,
        found: &'a str,
        expected: &'a str,
    },
}

impl Mismatch<'_> {
    fn describe(&self) -> String {
        match self {
            Mismatch::OutOfOrder(line) => {
                format!("hunk at line {line} is out of order or past the end")
            }
            Mismatch::PastTheEnd(text) => {
                format!("the diff runs past the end of the file at {text:?}")
            }
            Mismatch::Differs {
                line,
                found,
                expected,
            } => format!("line {line} is {found:?}, the diff expects {expected:?}"),
        }
    }
}

/// Whether `expected` are the lines of `old` from `start` on (`start` not before `floor`).
fn matches_at<'a>(
    old: &[&'a str],
    start: usize,
    expected: &[&'a str],
    floor: usize,
) -> Result<(), Mismatch<'a>> {
    if start < floor || start > old.len() {
        return Err(Mismatch::OutOfOrder(start + 1));
    }
    for (offset, wanted) in expected.iter().enumerate() {
        let found = old
            .get(start + offset)
            .ok_or(Mismatch::PastTheEnd(wanted))?;
        if found.trim_end_matches('\n') != wanted.trim_end_matches('\n') {
            return Err(Mismatch::Differs {
                line: start + offset + 1,
                found,
                expected: wanted,
            });
        }
    }
    Ok(())
}

/// The line nearest `stated` (not before `floor`) where `expected` matches, the earlier one on
/// a tie.
fn nearest(old: &[&str], stated: usize, expected: &[&str], floor: usize) -> Option<usize> {
    let last = old.len().checked_sub(expected.len())?;
    let stated = stated.clamp(floor, last.max(floor));
    let reach = stated
        .saturating_sub(floor)
        .max(last.saturating_sub(stated));
    (0..=reach).find_map(|distance| {
        let before = stated.checked_sub(distance).filter(|at| *at >= floor);
        let after = Some(stated + distance).filter(|at| *at <= last);
        [before, after]
            .into_iter()
            .flatten()
            .find(|at| matches_at(old, *at, expected, floor).is_ok())
    })
}
