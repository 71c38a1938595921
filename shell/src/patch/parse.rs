//! Reading a multi-file unified diff into one [`FilePatch`] per file. Text before the first
//! header and between files (a commit message, a `git format-patch` signature) is skipped, as
//! `git apply` skips it.

/// Where a diff stops being one mend can read: the line (from 1, as each message counts it) and
/// what is wrong there. Every caller takes it the same way: the diff is what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub line: usize,
    pub why: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for ParseError {}

/// One line of a hunk, its text with its line ending (none when the diff says `\ No newline at
/// end of file`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkLine {
    Context(String),
    Removed(String),
    Added(String),
}

/// One `@@ -a,b +c,d @@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// The first line of the old side it covers, from 1 (0 for a hunk that adds to an empty
    /// file).
    pub old_start: usize,
    pub old_count: usize,
    pub lines: Vec<HunkLine>,
}

/// What a diff does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePatch {
    /// The path before, relative to the repository; `None` for a new file.
    pub old_path: Option<String>,
    /// The path after; `None` for a deleted file.
    pub new_path: Option<String>,
    /// Git's mode after (`100644`, `100755`, `120000`), when the diff gives one.
    pub new_mode: Option<u32>,
    /// `copy from`/`copy to`: the old file stays.
    pub copy: bool,
    /// `Binary files … differ` or a `GIT binary patch`: no text hunks to apply.
    pub binary: bool,
    pub hunks: Vec<Hunk>,
}

impl FilePatch {
    /// The path it is named by: the new one, else the old one.
    pub(crate) fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or("")
    }
}

/// Every file `diff` changes, in order. An error names the line (from 1) and what is wrong.
pub(crate) fn parse(diff: &str) -> Result<Vec<FilePatch>, ParseError> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut files = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        if let Some(names) = line.strip_prefix("diff --git ") {
            let (file, next) = git_file(&lines, at + 1, names)?;
            files.push(file);
            at = next;
        } else if is_plain_header(&lines, at) {
            let mut file = FilePatch {
                old_path: None,
                new_path: None,
                new_mode: None,
                copy: false,
                binary: false,
                hunks: Vec::new(),
            };
            at = names_and_hunks(&lines, at, &mut file)?;
            files.push(file);
        } else {
            at += 1;
        }
    }
    Ok(files)
}

/// A `--- ` line followed by a `+++ ` line.
fn is_plain_header(lines: &[&str], at: usize) -> bool {
    lines[at].starts_with("--- ")
        && lines
            .get(at + 1)
            .is_some_and(|next| next.starts_with("+++ "))
}

/// The file a `diff --git` header starts, reading its extended header lines, names and hunks
/// from `lines[at..]`; returns it and where the next file may start.
fn git_file(lines: &[&str], mut at: usize, names: &str) -> Result<(FilePatch, usize), ParseError> {
    let (old_guess, new_guess) = git_header_names(names.trim_end_matches(['\n', '\r']))
        .ok_or_else(|| ParseError {
            line: at,
            why: format!(
                "cannot read the file names of `diff --git {}`",
                names.trim_end()
            ),
        })?;
    let mut file = FilePatch {
        old_path: Some(old_guess),
        new_path: Some(new_guess),
        new_mode: None,
        copy: false,
        binary: false,
        hunks: Vec::new(),
    };
    while let Some(line) = lines.get(at) {
        let line = line.trim_end_matches(['\n', '\r']);
        let mode = |text: &str| u32::from_str_radix(text.trim(), 8).ok();
        if let Some(rest) = line.strip_prefix("new file mode ") {
            file.old_path = None;
            file.new_mode = mode(rest);
        } else if line.starts_with("deleted file mode ") {
            file.new_path = None;
        } else if let Some(rest) = line.strip_prefix("new mode ") {
            file.new_mode = mode(rest);
        } else if let Some(rest) = line.strip_prefix("rename from ") {
            file.old_path = Some(unquote(rest));
        } else if let Some(rest) = line.strip_prefix("rename to ") {
            file.new_path = Some(unquote(rest));
        } else if let Some(rest) = line.strip_prefix("copy from ") {
            file.old_path = Some(unquote(rest));
            file.copy = true;
        } else if let Some(rest) = line.strip_prefix("copy to ") {
            file.new_path = Some(unquote(rest));
            file.copy = true;
        } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
            file.binary = true;
        } else if ![
            "old mode ",
            "similarity index ",
            "dissimilarity index ",
            "index ",
        ]
        .iter()
        .any(|prefix| line.starts_with(prefix))
        {
            break;
        }
        at += 1;
    }
    if at < lines.len() && is_plain_header(lines, at) {
        let (old_path, new_path) = (file.old_path.clone(), file.new_path.clone());
        at = names_and_hunks(lines, at, &mut file)?;
        // The extended header says what happens to the file; `---`/`+++` name the same ones.
        file.old_path = old_path.and(file.old_path.take());
        file.new_path = new_path.and(file.new_path.take());
    }
    Ok((file, at))
}

/// Reads the `---`/`+++` names at `lines[at]` and the hunks after them into `file`; returns
/// where the next file may start.
fn names_and_hunks(
    lines: &[&str],
    mut at: usize,
    file: &mut FilePatch,
) -> Result<usize, ParseError> {
    file.old_path = header_name(&lines[at][4..]);
    file.new_path = header_name(&lines[at + 1][4..]);
    if file.old_path.is_none() && file.new_path.is_none() {
        return Err(ParseError {
            line: at + 1,
            why: "both sides are /dev/null".to_owned(),
        });
    }
    at += 2;
    while lines.get(at).is_some_and(|line| line.starts_with("@@ -")) {
        let (hunk, next) = hunk(lines, at)?;
        file.hunks.push(hunk);
        at = next;
    }
    Ok(at)
}

/// One hunk from its header at `lines[at]`, its body counted by the header's numbers.
fn hunk(lines: &[&str], at: usize) -> Result<(Hunk, usize), ParseError> {
    let header = lines[at].trim_end();
    let bad = || ParseError {
        line: at + 1,
        why: format!("bad hunk header `{header}`"),
    };
    let ranges = header
        .strip_prefix("@@ -")
        .and_then(|rest| rest.split_once(" @@"))
        .map(|(ranges, _)| ranges)
        .ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old).ok_or_else(bad)?;
    let (_, new_count) = range(new).ok_or_else(bad)?;
    let (mut old_left, mut new_left) = (old_count, new_count);
    let mut body = Vec::new();
    let mut next = at + 1;
    while old_left > 0 || new_left > 0 {
        let Some(line) = lines.get(next) else {
            return Err(ParseError {
                line: at + 1,
                why: format!("the hunk `{header}` is cut short"),
            });
        };
        let (mark, text) = line.split_at(line.len().min(1));
        match mark {
            " " if old_left > 0 && new_left > 0 => {
                body.push(HunkLine::Context(text.to_owned()));
                (old_left, new_left) = (old_left - 1, new_left - 1);
            }
            // An empty context line whose space an editor or a mail trimmed.
            "\n" | "\r" if old_left > 0 && new_left > 0 => {
                body.push(HunkLine::Context((*line).to_owned()));
                (old_left, new_left) = (old_left - 1, new_left - 1);
            }
            "-" if old_left > 0 => {
                body.push(HunkLine::Removed(text.to_owned()));
                old_left -= 1;
            }
            "+" if new_left > 0 => {
                body.push(HunkLine::Added(text.to_owned()));
                new_left -= 1;
            }
            "\\" => no_newline(&mut body),
            _ => {
                return Err(ParseError {
                    line: next + 1,
                    why: format!("{line:?} does not belong in the hunk `{header}`"),
                })
            }
        }
        next += 1;
    }
    if lines.get(next).is_some_and(|line| line.starts_with('\\')) {
        no_newline(&mut body);
        next += 1;
    }
    Ok((
        Hunk {
            old_start,
            old_count,
            lines: body,
        },
        next,
    ))
}

/// `\ No newline at end of file`: the line before it has no line ending.
fn no_newline(body: &mut [HunkLine]) {
    if let Some(HunkLine::Context(text) | HunkLine::Removed(text) | HunkLine::Added(text)) =
        body.last_mut()
    {
        if text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
    }
}

/// The path a `---`/`+++` line names, without its first folder (`a/`, `b/`) and anything after
/// a tab (`diff -u`'s date); `None` for `/dev/null`.
fn header_name(rest: &str) -> Option<String> {
    let rest = rest.trim_end_matches(['\n', '\r']);
    let name = if rest.starts_with('"') {
        unquote(rest)
    } else {
        rest.split('\t')
            .next()
            .unwrap_or(rest)
            .trim_end()
            .to_owned()
    };
    if name == "/dev/null" {
        return None;
    }
    Some(strip_first_folder(&name))
}

/// `a/src/x.py` → `src/x.py`; a name without a folder stays as it is.
fn strip_first_folder(name: &str) -> String {
    name.split_once('/')
        .map_or(name, |(_, rest)| rest)
        .to_owned()
}

/// The two names of `diff --git a/X b/Y`, without their first folders. Unquoted names may hold
/// spaces: the line is then split where both halves name the same file, as git does (a rename's
/// own lines name its sides anyway).
fn git_header_names(names: &str) -> Option<(String, String)> {
    if names.starts_with('"') {
        let (old, rest) = quoted_prefix(names)?;
        let new = rest.trim_start();
        let new = if new.starts_with('"') {
            quoted_prefix(new)?.0
        } else {
            new.to_owned()
        };
        return Some((strip_first_folder(&old), strip_first_folder(&new)));
    }
    if let Some(at) = names.find(" \"") {
        let new = quoted_prefix(&names[at + 1..])?.0;
        return Some((strip_first_folder(&names[..at]), strip_first_folder(&new)));
    }
    let spaces: Vec<usize> = names.match_indices(' ').map(|(at, _)| at).collect();
    let split = |at: usize| {
        (
            strip_first_folder(&names[..at]),
            strip_first_folder(&names[at + 1..]),
        )
    };
    spaces
        .iter()
        .map(|at| split(*at))
        .find(|(old, new)| old == new)
        .or_else(|| spaces.get(spaces.len() / 2).map(|at| split(*at)))
}

/// A C-quoted name at the start of `text` (git quotes names with unusual bytes), and the rest.
fn quoted_prefix(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut bytes = Vec::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                return Some((
                    String::from_utf8_lossy(&bytes).into_owned(),
                    &body[at + 1..],
                ));
            }
            '\\' => {
                let (_, escaped) = chars.next()?;
                match escaped {
                    'n' => bytes.push(b'\n'),
                    't' => bytes.push(b'\t'),
                    '"' | '\\' => bytes.push(escaped as u8),
                    '0'..='3' => {
                        let mut value = escaped.to_digit(8)?;
                        for _ in 0..2 {
                            value = value * 8 + chars.next()?.1.to_digit(8)?;
                        }
                        bytes.push(u8::try_from(value).ok()?);
                    }
                    other => {
                        let mut buffer = [0; 4];
                        bytes.extend_from_slice(other.encode_utf8(&mut buffer).as_bytes());
                    }
                }
            }
            other => {
                let mut buffer = [0; 4];
                bytes.extend_from_slice(other.encode_utf8(&mut buffer).as_bytes());
            }
        }
    }
    None
}

/// A name as written, unquoted when git quoted it.
fn unquote(text: &str) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    if text.starts_with('"') {
        if let Some((name, _)) = quoted_prefix(text) {
            return name;
        }
    }
    text.to_owned()
}

#[cfg(test)]
mod tests;
