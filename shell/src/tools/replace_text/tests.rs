use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use super::explain;
use super::matching::{find, occurrences, Edit, Miss, Rule};

const FILE: &str = "def total(items):\n    result = 0\n    for item in items:\n        result += item   \n    return result\n";

fn edited(old: &str, new: &str) -> Result<(Rule, (usize, usize), String), Miss> {
    find(FILE, old, new).map(|edit| (edit.rule, edit.lines, edit.apply(FILE)))
}

#[test]
fn overlapping_occurrences_count() {
    assert_eq!(occurrences("aaa", "aa"), vec![0, 1]);
    assert_eq!(occurrences("x = é; y", "é"), vec![4]);
    assert_eq!(occurrences("abc", "d"), Vec::<usize>::new());
}

#[test]
fn an_exact_match_wins_and_edits_only_its_bytes() {
    assert_eq!(
        edited("return result", "return result * 2"),
        Ok((
            Rule::Exact,
            (5, 5),
            FILE.replace("return result", "return result * 2")
        ))
    );
}

#[test]
fn trailing_whitespace_is_ignored_line_by_line() {
    let old = "    for item in items:\n        result += item\n";
    let new = "    for item in items:\n        result -= item\n";
    let expected = FILE.replace("        result += item   \n", "        result -= item\n");
    assert_eq!(
        edited(old, new),
        Ok((Rule::TrailingWhitespace, (3, 4), expected))
    );
}

#[test]
fn a_uniform_indentation_shift_is_ignored_and_the_replacement_shifted_alike() {
    // The model dropped the function's indentation; its replacement is shifted back.
    let old = "result = 0\nfor item in items:\n    result += item";
    let new = "result = 0\nfor item in items:\n    if item:\n        result += item";
    let expected = FILE.replace(
        "    result = 0\n    for item in items:\n        result += item   ",
        "    result = 0\n    for item in items:\n        if item:\n            result += item",
    );
    assert_eq!(edited(old, new), Ok((Rule::Indentation, (2, 4), expected)));
    // Indented too far: the shift is taken off the replacement, unless it cannot be.
    let deeper = "        result = 0\n        for item in items:";
    assert_eq!(
        edited(deeper, "        result = 1\n        for item in items:"),
        Ok((
            Rule::Indentation,
            (2, 3),
            FILE.replace("result = 0", "result = 1")
        ))
    );
    assert_eq!(
        edited(deeper, "result = 1"),
        Err(Miss::CannotShift { lines: (2, 3) })
    );
}

#[test]
fn a_fuzzy_rule_that_matches_twice_applies_nowhere() {
    let text = "if a:\n    x = 1\nif b:\n    x = 1\n";
    assert_eq!(
        find(text, "x = 1\n", "x = 2\n"),
        Err(Miss::Several {
            rule: Rule::Exact,
            count: 2
        })
    );
    assert_eq!(
        find("a  \nb\na \nb\n", "a\nb", "c"),
        Err(Miss::Several {
            rule: Rule::TrailingWhitespace,
            count: 2
        })
    );
    assert_eq!(
        find("  a\n    a\n", "a\n", "c\n").map(|edit| edit.rule),
        Err(Miss::Several {
            rule: Rule::Exact,
            count: 2
        })
    );
    assert_eq!(
        find("  x\n  y\n    x\n    y\n", "x\ny", "z").map(|edit| edit.rule),
        Err(Miss::Several {
            rule: Rule::Indentation,
            count: 2
        })
    );
}

#[test]
fn a_miss_shows_the_closest_lines_with_their_numbers() {
    let miss = find(FILE, "for item in item_list:\n    result += items", "x").unwrap_err();
    assert_eq!(
        miss,
        Miss::Nowhere {
            closest: Some((3, 4))
        }
    );
    assert_eq!(
        explain(&miss, "calc.py", FILE),
        "`old` occurs 0 times in calc.py, not even ignoring trailing whitespace or indentation; the closest lines are 3-4:\n    3|     for item in items:\n    4|         result += item   \ncopy the exact text from there (without the line numbers), or read the file again with read_file and copy the exact text"
    );
    assert_eq!(find(FILE, "zzz", "x"), Err(Miss::Nowhere { closest: None }));
}

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/replace-text.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// Files of a few short lines from a small alphabet, so that lines repeat and near misses are
/// common; indentation by spaces, sometimes trailing spaces, sometimes `\r\n`.
fn line() -> impl Strategy<Value = String> {
    (
        0..3usize,
        prop::sample::select(vec!["x = 1", "y", "return x", "if y:", ""]),
        0..2usize,
    )
        .prop_map(|(indent, body, trailing)| {
            format!("{}{body}{}", "  ".repeat(indent), " ".repeat(trailing))
        })
}

fn file() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 1..8),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, last_newline)| {
            let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
            if last_newline {
                text.push('\n');
            }
            text
        })
}

/// An `old` taken from the file's lines and disturbed as small models do.
fn old_for(text: &str, start: usize, length: usize, shift: i32, strip: bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let start = start % lines.len();
    let end = (start + 1 + length).min(lines.len());
    lines[start..end]
        .iter()
        .map(|line| {
            let line = if strip { line.trim_end() } else { line };
            match shift {
                s if s > 0 => format!("{}{line}", " ".repeat(s as usize)),
                s if s < 0 => line
                    .strip_prefix(&" ".repeat((-s) as usize))
                    .unwrap_or(line)
                    .to_owned(),
                _ => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of the file and of `old` (one final newline of `old` not making a line), each
/// without its trailing whitespace: what the oracles compare.
fn trimmed_lines<'a>(text: &'a str, old: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let have = text.lines().map(str::trim_end).collect();
    let want = old
        .strip_suffix('\n')
        .unwrap_or(old)
        .split('\n')
        .map(str::trim_end)
        .collect();
    (have, want)
}

/// Window starts where the lines of `old` match the file's under `same`.
fn matches_of(text: &str, old: &str, same: impl Fn(&str, &str) -> bool) -> usize {
    let (have, want) = trimmed_lines(text, old);
    (0..(have.len() + 1).saturating_sub(want.len()))
        .filter(|at| {
            have[*at..*at + want.len()]
                .iter()
                .zip(&want)
                .all(|(h, w)| same(h, w))
        })
        .count()
}

/// The oracle of the indentation rule for space-indented text: the same text on each line, the
/// same non-zero difference of indentation on each non-blank line, blank lines blank in both.
fn shifted_matches(text: &str, old: &str) -> usize {
    let (have, want) = trimmed_lines(text, old);
    let indent = |line: &str| (line.len() - line.trim_start().len()) as i64;
    (0..(have.len() + 1).saturating_sub(want.len()))
        .filter(|at| {
            let pairs: Vec<(&str, &str)> = have[*at..*at + want.len()]
                .iter()
                .copied()
                .zip(want.iter().copied())
                .collect();
            let shifts: Vec<i64> = pairs
                .iter()
                .filter(|(h, _)| !h.is_empty())
                .map(|(h, w)| indent(h) - indent(w))
                .collect();
            pairs
                .iter()
                .all(|(h, w)| h.trim_start() == w.trim_start() && h.is_empty() == w.is_empty())
                && shifts
                    .first()
                    .is_some_and(|first| *first != 0 && shifts.iter().all(|s| s == first))
        })
        .count()
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn a_rule_applies_only_where_it_matches_once_and_changes_nothing_outside(
        text in file(),
        (start, length, shift, strip) in (0..8usize, 0..3usize, -2..3i32, any::<bool>()),
        new in prop::sample::select(vec!["z = 2", "  if z:\n    z = 3", "", "\n"]),
    ) {
        let old = old_for(&text, start, length, shift, strip);
        prop_assume!(!old.is_empty());
        if let Ok(edit) = find(&text, &old, new) {
            let Edit { range, replacement, rule, .. } = edit.clone();
            let after = edit.apply(&text);
            // Nothing outside the match changes.
            prop_assert_eq!(&after[..range.start], &text[..range.start]);
            prop_assert_eq!(&after[range.start + replacement.len()..], &text[range.end..]);
            // The rule that applied matched exactly one place, and no stricter rule matched.
            let exact = occurrences(&text, &old).len();
            let trailing = matches_of(&text, &old, |h, w| h == w);
            match rule {
                Rule::Exact => prop_assert_eq!(exact, 1),
                Rule::TrailingWhitespace => prop_assert_eq!((exact, trailing), (0, 1)),
                Rule::Indentation => {
                    prop_assert_eq!((exact, trailing, shifted_matches(&text, &old)), (0, 0, 1));
                }
            }
        }
    }
}
