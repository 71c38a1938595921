//! Where `replace_text`'s `old` lands in a file: exactly, else line by line ignoring trailing
//! whitespace, else ignoring a uniform shift of indentation (the replacement shifted the same
//! way). Each rule applies only where it matches once; a miss names the closest lines.

use std::ops::Range;

/// Which rule placed the edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
    Exact,
    TrailingWhitespace,
    Indentation,
}

impl Rule {
    /// How the result names the rule.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Rule::Exact => "exact",
            Rule::TrailingWhitespace => "ignoring trailing whitespace",
            Rule::Indentation => {
                "ignoring a shift of indentation (the replacement shifted the same way)"
            }
        }
    }
}

/// An edit that lands once: replace `range` of the text with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
    pub rule: Rule,
    /// The lines it covers, from 1.
    pub lines: (usize, usize),
}

impl Edit {
    pub(super) fn apply(&self, text: &str) -> String {
        format!(
            "{}{}{}",
            &text[..self.range.start],
            self.replacement,
            &text[self.range.end..]
        )
    }
}

/// Why `old` did not land.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Miss {
    /// The first rule that matched at all matched in several places.
    Several { rule: Rule, count: usize },
    /// The text is shifted left of `old` by more than some line of the replacement is indented.
    CannotShift { lines: (usize, usize) },
    /// No rule matched; the lines most like `old`, when there are any.
    Nowhere { closest: Option<(usize, usize)> },
}

/// One line of the file: where its text starts and ends (without `\r\n` or `\n`), and where the
/// next line starts.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

fn lines_of(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let next = text[start..]
            .find('\n')
            .map_or(text.len(), |at| start + at + 1);
        let body = text[start..next].trim_end_matches('\n');
        let end = start + body.strip_suffix('\r').unwrap_or(body).len();
        lines.push(Line { start, end, next });
        start = next;
    }
    lines
}

/// How a window of the file is shifted against `old`: text added before each non-blank line of
/// `old`, or removed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shift {
    Added(String),
    Removed(String),
}

pub(super) fn find(text: &str, old: &str, new: &str) -> Result<Edit, Miss> {
    if let Some(edit) = find_exact(text, old, new)? {
        return Ok(edit);
    }
    let (body, whole_lines) = match old.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (old, false),
    };
    let wanted: Vec<&str> = body.split('\n').map(|line| line.trim_end()).collect();
    let lines = lines_of(text);
    if body.trim().is_empty() || wanted.len() > lines.len() {
        return Err(Miss::Nowhere { closest: None });
    }
    let file_line = |index: usize| text[lines[index].start..lines[index].end].trim_end();
    let starts = 0..=lines.len() - wanted.len();
    let window = |at: usize| (at..at + wanted.len()).map(file_line);
    let span = |at: usize| {
        let last = lines[at + wanted.len() - 1];
        let end = if whole_lines { last.next } else { last.end };
        (lines[at].start..end, (at + 1, at + wanted.len()))
    };
    let trailing: Vec<usize> = starts
        .clone()
        .filter(|at| window(*at).eq(wanted.iter().copied()))
        .collect();
    match trailing.as_slice() {
        [at] => {
            let (range, lines) = span(*at);
            return Ok(Edit {
                range,
                replacement: new.to_owned(),
                rule: Rule::TrailingWhitespace,
                lines,
            });
        }
        [] => {}
        several => {
            return Err(Miss::Several {
                rule: Rule::TrailingWhitespace,
                count: several.len(),
            })
        }
    }
    let shifted: Vec<(usize, Shift)> = starts
        .filter_map(|at| shift(window(at), &wanted).map(|shift| (at, shift)))
        .collect();
    match shifted.as_slice() {
        [(at, shift)] => {
            let (range, lines) = span(*at);
            let replacement = reindent(new, shift).ok_or(Miss::CannotShift { lines })?;
            Ok(Edit {
                range,
                replacement,
                rule: Rule::Indentation,
                lines,
            })
        }
        [] => Err(Miss::Nowhere {
            closest: closest(text, &lines, &wanted),
        }),
        several => Err(Miss::Several {
            rule: Rule::Indentation,
            count: several.len(),
        }),
    }
}

/// `old` exactly where it occurs once; `None` where it does not occur at all.
fn find_exact(text: &str, old: &str, new: &str) -> Result<Option<Edit>, Miss> {
    match occurrences(text, old).as_slice() {
        [at] => {
            let first = 1 + text[..*at].matches('\n').count();
            Ok(Some(Edit {
                range: *at..at + old.len(),
                replacement: new.to_owned(),
                rule: Rule::Exact,
                lines: (
                    first,
                    first + old.trim_end_matches('\n').matches('\n').count(),
                ),
            }))
        }
        [] => Ok(None),
        several => Err(Miss::Several {
            rule: Rule::Exact,
            count: several.len(),
        }),
    }
}

/// The one non-empty shift that turns each non-blank line of `wanted` into the window's line;
/// blank lines must be blank in both.
fn shift<'a>(window: impl Iterator<Item = &'a str>, wanted: &[&str]) -> Option<Shift> {
    let mut found: Option<Shift> = None;
    for (have, want) in window.zip(wanted) {
        if have.is_empty() || want.is_empty() {
            if have.is_empty() != want.is_empty() {
                return None;
            }
            continue;
        }
        let candidate = match &found {
            Some(shift) => shift.clone(),
            None => {
                let have_indent = &have[..have.len() - have.trim_start().len()];
                let want_indent = &want[..want.len() - want.trim_start().len()];
                if let Some(added) = have_indent
                    .strip_suffix(want_indent)
                    .filter(|a| !a.is_empty())
                {
                    Shift::Added(added.to_owned())
                } else {
                    let removed = want_indent
                        .strip_suffix(have_indent)
                        .filter(|r| !r.is_empty())?;
                    Shift::Removed(removed.to_owned())
                }
            }
        };
        let fits = match &candidate {
            Shift::Added(added) => have.strip_prefix(added.as_str()) == Some(want),
            Shift::Removed(removed) => want.strip_prefix(removed.as_str()) == Some(have),
        };
        if !fits {
            return None;
        }
        found = Some(candidate);
    }
    found
}

/// `new` shifted like the file: each non-blank line gains or loses the same indentation.
fn reindent(new: &str, shift: &Shift) -> Option<String> {
    let lines: Option<Vec<String>> = new
        .split('\n')
        .map(|line| {
            if line.trim().is_empty() {
                return Some(line.to_owned());
            }
            match shift {
                Shift::Added(added) => Some(format!("{added}{line}")),
                Shift::Removed(removed) => line.strip_prefix(removed.as_str()).map(str::to_owned),
            }
        })
        .collect();
    lines.map(|lines| lines.join("\n"))
}

/// The window of lines most like `wanted` (by the characters each line shares with its
/// counterpart at its start and end, ignoring indentation), when any line shares something.
/// Skipped for huge files, where it would cost more than the edit.
fn closest(text: &str, lines: &[Line], wanted: &[&str]) -> Option<(usize, usize)> {
    const MAX_COMPARISONS: usize = 4_000_000;
    if lines.len().saturating_mul(wanted.len()) > MAX_COMPARISONS {
        return None;
    }
    let score = |at: usize| -> usize {
        wanted
            .iter()
            .enumerate()
            .map(|(offset, want)| {
                let line = lines[at + offset];
                shared(text[line.start..line.end].trim(), want.trim())
            })
            .sum()
    };
    let (best, at) = (0..=lines.len() - wanted.len())
        .map(|at| (score(at), at))
        .max_by(|(a, at_a), (b, at_b)| a.cmp(b).then(at_b.cmp(at_a)))?;
    (best > 0).then_some((at + 1, at + wanted.len()))
}

/// Characters two lines share at their start plus at their end, at most the shorter's length.
fn shared(a: &str, b: &str) -> usize {
    let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let suffix = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (prefix + suffix).min(a.chars().count().min(b.chars().count()))
}

/// Every byte offset where `needle` starts, overlapping matches included: `aa` occurs twice in
/// `aaa`, so replacing it would be ambiguous.
pub(super) fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    haystack
        .char_indices()
        .map(|(at, _)| at)
        .filter(|at| haystack[*at..].starts_with(needle))
        .collect()
}
