//! Unified diffs as people and tools write them: `git diff` (its `diff --git` header, `index`
//! and mode lines, new and deleted files, renames and copies, quoted names), plain `diff -u`, and
//! mend's own patches. One home for reading and applying them: a task's held-out test patch,
//! a suite's gold patch, `mend apply`.
//!
//! [`parse`] cuts a diff into one [`FilePatch`] per file, counting each hunk's lines by its
//! header (so a removed line that reads `--- a/x` is never taken for a header); [`hunk`] applies
//! a file's hunks to its text; [`tree`] applies a whole diff to a folder, all or nothing.

pub(crate) mod hunk;
pub(crate) mod parse;
pub(crate) mod tree;

pub(crate) use hunk::{apply_hunks, Misfit, Placement};
pub(crate) use parse::{parse, ParseError};
pub(crate) use tree::{apply_to_tree, touched_paths, TreePatchError};
