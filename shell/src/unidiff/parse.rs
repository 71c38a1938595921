//! Reading a patch into one [`FilePatch`] per file. Hunks are read by their line counts, as
//! `git apply` reads them, so a removed line that happens to read `--- a/x` stays a line of its
//! hunk. Anything between sections (a commit message, `git format-patch`'s signature) is
//! skipped.

use super::{FilePatch, Hunk, HunkLine};

pub fn parse(text: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = text
        .split_inclusive('\n')
        .map(|line| line.strip_suffix('\n').unwrap_or(line))
        .collect();
    let mut at = 0;
    let mut patches = Vec::new();
    while at < lines.len() {
        let line = lines[at];
        if let Some(names) = line.strip_prefix("diff --git ") {
            let (patch, next) = git_section(&lines, at, names)?;
            patches.push(patch);
            at = next;
        } else if line.starts_with("--- ")
            && lines.get(at + 1).is_some_and(|l| l.starts_with("+++ "))
        {
            let mut patch = FilePatch {
                old: None,
                new: None,
                new_mode: None,
                hunks: Vec::new(),
                binary: false,
            };
            at = old_new_and_hunks(&lines, at, &mut patch)?;
            patches.push(patch);
        } else {
            at += 1;
        }
    }
    Ok(patches)
}

/// A `diff --git` section from its first line: the extended header lines, then `---`/`+++`
/// and the hunks when the file's text changed.
fn git_section(lines: &[&str], start: usize, names: &str) -> Result<(FilePatch, usize), String> {
    let (old, new) = header_names(names).unwrap_or((None, None));
    let mut patch = FilePatch {
        old,
        new,
        new_mode: None,
        hunks: Vec::new(),
        binary: false,
    };
    let mut at = start + 1;
    while let Some(line) = lines.get(at) {
        if line.starts_with("diff --git ") || line.starts_with("@@ ") {
            break;
        }
        if line.starts_with("--- ") {
            let next = old_new_and_hunks(lines, at, &mut patch)?;
            return Ok((patch, next));
        }
        extended_header(line, &mut patch)?;
        at += 1;
        if patch.binary {
            // The binary payload runs to the next section.
            while lines.get(at).is_some_and(|l| !l.starts_with("diff --git ")) {
                at += 1;
            }
        }
    }
    if patch.old.is_none() && patch.new.is_none() {
        return Err(format!(
            "line {}: cannot tell the file of `diff --git {names}`",
            start + 1
        ));
    }
    Ok((patch, at))
}

fn extended_header(line: &str, patch: &mut FilePatch) -> Result<(), String> {
    let mode = |text: &str| {
        u32::from_str_radix(text.trim(), 8).map_err(|_| format!("`{line}`: not a file mode"))
    };
    if let Some(value) = line.strip_prefix("new file mode ") {
        patch.old = None;
        patch.new_mode = Some(mode(value)?);
    } else if line.starts_with("deleted file mode ") {
        patch.new = None;
    } else if let Some(value) = line.strip_prefix("new mode ") {
        patch.new_mode = Some(mode(value)?);
    } else if let Some(path) = line
        .strip_prefix("rename from ")
        .or_else(|| line.strip_prefix("copy from "))
    {
        patch.old = Some(unquote(path));
    } else if let Some(path) = line
        .strip_prefix("rename to ")
        .or_else(|| line.strip_prefix("copy to "))
    {
        patch.new = Some(unquote(path));
    } else if line.starts_with("GIT binary patch")
        || (line.starts_with("Binary files ") && line.ends_with(" differ"))
    {
        patch.binary = true;
    }
    // `index`, `old mode`, `similarity index`, `dissimilarity index` and anything else git may
    // add say nothing the change needs.
    Ok(())
}

/// The `--- OLD` / `+++ NEW` pair at `at`, then every hunk after it; returns the next line.
fn old_new_and_hunks(lines: &[&str], at: usize, patch: &mut FilePatch) -> Result<usize, String> {
    patch.old = side(&lines[at][4..], "a/");
    patch.new = side(&lines[at + 1][4..], "b/");
    let mut at = at + 2;
    while lines.get(at).is_some_and(|line| line.starts_with("@@ ")) {
        let (hunk, next) = hunk(lines, at)?;
        patch.hunks.push(hunk);
        at = next;
    }
    if patch.hunks.is_empty() {
        return Err(format!(
            "line {}: `{}` has no hunk after it",
            at - 1,
            lines[at - 1]
        ));
    }
    Ok(at)
}

/// One side's path: `/dev/null` is none; a tab ends the name (`diff -u` adds the time after
/// it); the `a/` or `b/` git puts before it is taken off.
fn side(text: &str, prefix: &str) -> Option<String> {
    let name = text
        .split('\t')
        .next()
        .unwrap_or(text)
        .trim_end_matches('\r');
    let name = if name.starts_with('"') {
        unquote(name)
    } else {
        name.trim_end().to_owned()
    };
    if name == "/dev/null" {
        return None;
    }
    Some(
        name.strip_prefix(prefix)
            .map_or(name.clone(), str::to_owned),
    )
}

/// `diff --git a/X b/Y`: the two names, when they can be told apart (always when they are
/// the same, as for a mode change or a binary file, or quoted).
fn header_names(names: &str) -> Option<(Option<String>, Option<String>)> {
    if names.starts_with('"') {
        let end = closing_quote(names)?;
        let old = unquote(&names[..=end]);
        let new = unquote(names[end + 1..].trim_start());
        return Some((strip(&old, "a/"), strip(&new, "b/")));
    }
    // `a/X b/X`: the same name twice, so the middle is where ` b/` starts.
    let half = names.len().checked_sub(1)? / 2;
    let (old, new) = (names.get(..half)?, names.get(half + 1..)?);
    (old.get(2..) == new.get(2..)).then(|| (strip(old, "a/"), strip(new, "b/")))
}

fn strip(name: &str, prefix: &str) -> Option<String> {
    Some(name.strip_prefix(prefix).unwrap_or(name).to_owned())
}

fn closing_quote(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

/// Git's C-style quoting of unusual names (`"a/caf\303\251.py"`); other names as they are.
fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_owned();
    };
    let mut bytes = Vec::new();
    let mut chars = inner.bytes().peekable();
    while let Some(byte) = chars.next() {
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(digit @ b'0'..=b'7') => {
                let mut value = u32::from(digit - b'0');
                for _ in 0..2 {
                    if let Some(next) = chars.next_if(u8::is_ascii_digit) {
                        value = value * 8 + u32::from(next - b'0');
                    }
                }
                bytes.push(u8::try_from(value & 0xff).unwrap_or(b'?'));
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The hunk whose `@@` line is at `at`, read by its counts; returns it and the next line.
fn hunk(lines: &[&str], at: usize) -> Result<(Hunk, usize), String> {
    let header = lines[at];
    let bad = || format!("line {}: bad hunk header `{header}`", at + 1);
    let ranges = header
        .strip_prefix("@@ -")
        .and_then(|rest| rest.split(" @@").next())
        .ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let ((old_start, mut old_left), (_, mut new_left)) =
        (range(old).ok_or_else(bad)?, range(new).ok_or_else(bad)?);
    let mut body = Vec::new();
    let mut next = at + 1;
    while old_left + new_left > 0 {
        let Some(line) = lines.get(next) else {
            return Err(format!("line {}: the hunk `{header}` ends early", at + 1));
        };
        // Some tools strip the space of an empty context line.
        let (mark, text) = match line.chars().next() {
            None => (' ', ""),
            Some(mark @ (' ' | '-' | '+')) => (mark, &line[1..]),
            Some('\\') => {
                no_newline(&mut body);
                next += 1;
                continue;
            }
            Some(_) => {
                return Err(format!(
                    "line {}: `{line}` inside the hunk `{header}`, which needs {old_left} more old and {new_left} more new line(s)",
                    next + 1
                ))
            }
        };
        let left = if mark == '+' {
            &mut new_left
        } else {
            &mut old_left
        };
        *left = left.checked_sub(1).ok_or_else(|| {
            format!(
                "line {}: the hunk `{header}` has more lines than it says",
                next + 1
            )
        })?;
        if mark == ' ' {
            new_left = new_left.checked_sub(1).ok_or_else(|| {
                format!(
                    "line {}: the hunk `{header}` has more lines than it says",
                    next + 1
                )
            })?;
        }
        body.push(HunkLine {
            mark,
            text: text.to_owned(),
            newline: true,
        });
        next += 1;
    }
    if lines.get(next).is_some_and(|line| line.starts_with('\\')) {
        no_newline(&mut body);
        next += 1;
    }
    Ok((
        Hunk {
            old_start,
            lines: body,
        },
        next,
    ))
}

fn no_newline(body: &mut [HunkLine]) {
    if let Some(last) = body.last_mut() {
        last.newline = false;
    }
}
