//! Applying a whole diff to a folder: every file is worked out in memory first, so a diff that
//! does not apply leaves the folder as it was. Paths must stay inside the folder: no absolute
//! path, no `..`, nothing under `.git`, and no way through a link.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;

use camino::Utf8Path;

use super::hunk::{apply_hunks, Placement};
use super::parse::{parse, FilePatch};

/// Git's mode of a link: the file's text is where it leads.
const LINK_MODE: u32 = 0o120_000;

/// A file as the diff leaves it: its text and git's mode (`None`: the file is gone).
type Entry = Option<(String, u32)>;

/// Applies `diff` to the files under `root` (hunks placed as `git apply` places them); returns
/// the paths it wrote or removed, sorted. On any problem nothing is written, and the message
/// names the file.
pub fn apply_to_tree(root: &Utf8Path, diff: &str) -> Result<Vec<String>, String> {
    let files = parse(diff)?;
    if files.is_empty() {
        return Err("it holds no file changes (no `diff --git` or `---`/`+++` header)".to_owned());
    }
    let mut state: BTreeMap<String, Entry> = BTreeMap::new();
    for file in &files {
        apply_file(root, file, &mut state)?;
    }
    for (path, entry) in &state {
        write_entry(&root.join(path), entry.as_ref())
            .map_err(|err| format!("cannot write {path}: {err}"))?;
    }
    Ok(state.into_keys().collect())
}

/// The paths `diff` writes or removes, sorted and deduplicated (both sides of a rename).
pub fn touched_paths(diff: &str) -> Result<Vec<String>, String> {
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
) -> Result<(), String> {
    let name = file.path().to_owned();
    for path in file.old_path.iter().chain(&file.new_path) {
        check_path(root, path)?;
    }
    if file.binary {
        return Err(format!(
            "{name}: a binary change, which a text patch cannot carry"
        ));
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
            return Err(format!("{new} already exists"));
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
                ));
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
fn check_path(root: &Utf8Path, path: &str) -> Result<(), String> {
    let parts: Vec<&str> = path.split('/').collect();
    if path.is_empty()
        || path.starts_with('/')
        || parts
            .iter()
            .any(|part| part.is_empty() || *part == "." || *part == ".." || *part == ".git")
    {
        return Err(format!(
            "`{path}` is not a path inside the repository (relative, without `..`, not in .git)"
        ));
    }
    let mut folder = root.to_owned();
    for part in &parts[..parts.len() - 1] {
        folder.push(part);
        if fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_symlink()) {
            return Err(format!("`{path}` leads through the link {folder}"));
        }
    }
    Ok(())
}

/// The file at `path` as the diff has left it so far, else as the tree has it.
fn current(root: &Utf8Path, path: &str, state: &BTreeMap<String, Entry>) -> Result<Entry, String> {
    if let Some(entry) = state.get(path) {
        return Ok(entry.clone());
    }
    let full = root.join(path);
    let meta = match fs::symlink_metadata(&full) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot read {path}: {err}")),
    };
    if meta.is_symlink() {
        let target = fs::read_link(&full).map_err(|err| format!("cannot read {path}: {err}"))?;
        return Ok(Some((target.to_string_lossy().into_owned(), LINK_MODE)));
    }
    if meta.is_dir() {
        return Err(format!("{path} is a folder"));
    }
    let text =
        fs::read_to_string(&full).map_err(|err| format!("cannot read {path} as text: {err}"))?;
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
