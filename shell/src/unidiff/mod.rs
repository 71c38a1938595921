//! Patches as people hand them over: `git diff` / `git format-patch` output (`diff --git`
//! headers, `index` and mode lines, new, deleted and renamed files) and plain `diff -u` output
//! (`--- a/FILE` / `+++ b/FILE`). SWE-bench's gold and test patches are the first kind; mend's
//! own records write the second. [`parse`] reads either into one change per file, and
//! [`apply_to_tree`] applies them to a folder all or nothing.

mod apply;
mod parse;

pub use apply::{apply_hunks, apply_to_tree};
pub use parse::parse;

/// One line of a hunk: its mark (`' '`, `'-'`, `'+'`) and its text without the line end;
/// `newline` is false for a line `\ No newline at end of file` follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub mark: char,
    pub text: String,
    pub newline: bool,
}

/// `@@ -old_start,old_count +new_start,new_count @@` and its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub lines: Vec<HunkLine>,
}

/// What a patch does to one file. Paths are relative to the repository (the `a/` and `b/`
/// prefixes taken off); `old` is `None` for a new file, `new` is `None` for a deleted one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub old: Option<String>,
    pub new: Option<String>,
    /// The mode git gives the file after the change (`new file mode`, `new mode`), e.g. 0o100755.
    pub new_mode: Option<u32>,
    pub hunks: Vec<Hunk>,
    /// `GIT binary patch` or `Binary files … differ`: no text to apply.
    pub binary: bool,
}

impl FilePatch {
    /// The path this change is known by: the new one, else (a deletion) the old one.
    pub fn path(&self) -> &str {
        self.new.as_deref().or(self.old.as_deref()).unwrap_or("")
    }

    /// Every path the change touches (both sides of a rename).
    pub fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self
            .old
            .iter()
            .chain(&self.new)
            .map(String::as_str)
            .collect();
        paths.dedup();
        paths
    }
}

#[cfg(test)]
mod tests;
