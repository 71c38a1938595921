//! Applying a whole diff to a folder: every file is worked out in memory first, so a diff that
//! does not apply leaves the folder as it was. Paths must stay inside the folder: no absolute
//! path, no `..`, nothing under `.git`, and no way through a link.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;

use std::fmt;

use camino::Utf8Path;

use super::hunk::{apply_hunks, Placement};
use super::parse::{parse, FilePatch, ParseError};

/// Git's mode of a link: the file's text is where it leads.
const LINK_MODE: u32 = 0o120_000;

/// A file as the diff leaves it: its text and git's mode (`None`: the file is gone).
type Entry = Option<(String, u32)>;

/// Why a diff was not applied to a folder: the diff's fault, or the folder's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TreePatchError {
    /// The diff is none, or does not fit the files (named by file): the patch is what to fix.
    DoesNotApply(String),
    /// The folder could not be read or written: mend's failure, whatever the patch.
    Io(String),
}

impl fmt::Display for TreePatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreePatchError::DoesNotApply(problem) | TreePatchError::Io(problem) => {
                f.write_str(problem)
            }
        }
    }
}

impl From<ParseError> for TreePatchError {
    /// A diff mend cannot read does not apply.
    fn from(error: ParseError) -> Self {
        TreePatchError::DoesNotApply(error.to_string())
    }
}

impl From<String> for TreePatchError {
    /// Every problem of the diff itself is a sentence naming the file.
    fn from(problem: String) -> Self {
        TreePatchError::DoesNotApply(problem)
    }
}

/// Applies `diff` to the files under `root` (hunks placed as `git apply` places them); returns
/// the paths it wrote or removed, sorted. On any problem nothing is written, and the message
/// names the file.
pub(crate) fn apply_to_tree(root: &Utf8Path, diff: &str) -> Result<Vec<String>, TreePatchError> {
    let files = parse(diff)?;
    if files.is_empty() {
        return Err(TreePatchError::DoesNotApply(
            "it holds no file changes (no `diff --git` or `---`/`+++` header)".to_owned(),
        ));
    }
    let mut state: BTreeMap<String, Entry> = BTreeMap::new();
    for file in &files {
        apply_file(root, file, &mut state)?;
    }
    for (path, entry) in &state {
        write_entry(&root.join(path), entry.as_ref())
            .map_err(|err| TreePatchError::Io(format!("cannot write {path}: {err}")))?;
    }
    Ok(state.into_keys().collect())
}

/// The paths `diff` writes or removes, sorted and deduplicated (both sides of a rename).
pub(crate) fn touched_paths(diff: &str) -> Result<Vec<String>, ParseError> {
    let mut paths: Vec<String> = parse(diff)?
        .into_iter()
        .flat_map(|file| {
            let old = file.old_path.filter(|_| !file.copy);
            old.into_iter().chain(file.new_path)
        })
        .collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// Works out what `file` makes of the tree as `state` has it so far.
fn apply_file(
    root: &Utf8Path,
    file: &FilePatch,
    state: &mut BTreeMap<String, Entry>,
) -> Result<(), TreePatchError> {
    let name = file.path().to_owned();
    for path in file.old_path.iter().chain(&file.new_path) {
        check_path(root, path)?;
    }
    if file.binary {
        return Err(format!("{name}: a binary change, which a text patch cannot carry").into());
    }
    let before = match &file.old_path {
        Some(old) => {
            Some(current(root, old, state)?.ok_or_else(|| format!("{old} does not exist"))?)
        }
        None => None,
    };
    if let Some(new) = &file.new_path {
        let renamed = file.old_path.as_ref() != Some(new);
        if renamed && current(root, new, state)?.is_some() {
            return Err(format!("{new} already exists").into());
        }
    }
    let text = before.as_ref().map_or("", |(text, _)| text.as_str());
    let after = apply_hunks(text, &file.hunks, Placement::Shifted)
        .map_err(|problem| format!("{name}: {problem}"))?;
    match &file.new_path {
        None => {
            if !after.is_empty() {
                return Err(format!(
                    "{name}: deleted, but the diff does not remove all of its lines"
                )
                .into());
            }
            if let Some(old) = &file.old_path {
                state.insert(old.clone(), None);
            }
        }
        Some(new) => {
            let mode = file
                .new_mode
                .or(before.map(|(_, mode)| mode))
                .unwrap_or(0o100_644);
            if let Some(old) = file
                .old_path
                .as_ref()
                .filter(|old| *old != new && !file.copy)
            {
                state.insert(old.clone(), None);
            }
            state.insert(new.clone(), Some((after, mode)));
        }
    }
    Ok(())
}

/// A relative path without `..`, not into `.git`, and not through a link of the tree.
fn check_path(root: &Utf8Path, path: &str) -> Result<(), TreePatchError> {
    let parts: Vec<&str> = path.split('/').collect();
    if path.is_empty()
        || path.starts_with('/')
        || parts
            .iter()
            .any(|part| part.is_empty() || *part == "." || *part == ".." || *part == ".git")
    {
        return Err(TreePatchError::DoesNotApply(format!(
            "`{path}` is not a path inside the repository (relative, without `..`, not in .git)"
        )));
    }
    let mut folder = root.to_owned();
    for part in &parts[..parts.len() - 1] {
        folder.push(part);
        if fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_symlink()) {
            return Err(TreePatchError::DoesNotApply(format!(
                "`{path}` leads through the link {folder}"
            )));
        }
    }
    Ok(())
}

/// The file at `path` as the diff has left it so far, else as the tree has it.
fn current(
    root: &Utf8Path,
    path: &str,
    state: &BTreeMap<String, Entry>,
) -> Result<Entry, TreePatchError> {
    // A path through a file is the diff's mistake; any other failure to look is mend's.
    let unreadable = |err: io::Error| {
        let problem = format!("cannot read {path}: {err}");
        match err.kind() {
            io::ErrorKind::NotADirectory => TreePatchError::DoesNotApply(problem),
            _ => TreePatchError::Io(problem),
        }
    };
    if let Some(entry) = state.get(path) {
        return Ok(entry.clone());
    }
    let full = root.join(path);
    let meta = match fs::symlink_metadata(&full) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(unreadable(err)),
    };
    if meta.is_symlink() {
        let target = fs::read_link(&full).map_err(unreadable)?;
        return Ok(Some((target.to_string_lossy().into_owned(), LINK_MODE)));
    }
    if meta.is_dir() {
        return Err(format!("{path} is a folder").into());
    }
    // A file that is no text is one a text patch cannot change; any other failure is mend's.
    let text = fs::read_to_string(&full).map_err(|err| match err.kind() {
        io::ErrorKind::InvalidData => {
            TreePatchError::DoesNotApply(format!("cannot read {path} as text: {err}"))
        }
        _ => TreePatchError::Io(format!("cannot read {path} as text: {err}")),
    })?;
    let mode = if meta.permissions().mode() & 0o111 != 0 {
        0o100_755
    } else {
        0o100_644
    };
    Ok(Some((text, mode)))
}

/// Makes `path` what `entry` says: a file with that text and mode, a link, or nothing.
fn write_entry(path: &Utf8Path, entry: Option<&(String, u32)>) -> io::Result<()> {
    let existing = fs::symlink_metadata(path);
    if let Ok(meta) = &existing {
        if meta.is_symlink() || entry.is_none() {
            fs::remove_file(path)?;
        }
    }
    let Some((text, mode)) = entry else {
        return Ok(());
    };
    if let Some(folder) = path.parent() {
        fs::create_dir_all(folder)?;
    }
    if *mode == LINK_MODE {
        return std::os::unix::fs::symlink(text.trim_end_matches('\n'), path);
    }
    fs::write(path, text)?;
    let permissions = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
    fs::set_permissions(path, fs::Permissions::from_mode(permissions))
}

#[cfg(test)]
mod tests;
