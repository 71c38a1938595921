//! Applying parsed patches. Every context and removed line must match exactly; a hunk may sit
//! some lines away from where its header says (the file changed above it), as `git apply`
//! allows, but no fuzz. A tree is changed only once every file's result is known, so a patch
//! that does not apply changes nothing.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;

use camino::{Utf8Path, Utf8PathBuf};

use super::{FilePatch, Hunk};

const LINK_MODE: u32 = 0o120000;

/// `original` with `hunks` applied.
pub fn apply_hunks(original: &str, hunks: &[Hunk]) -> Result<String, String> {
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let mut out = String::with_capacity(original.len());
    let mut at = 0;
    let mut shift: isize = 0;
    for hunk in hunks {
        let expected: Vec<&str> = hunk
            .lines
            .iter()
            .filter(|line| line.mark != '+')
            .map(|line| line.text.as_str())
            .collect();
        let stated = hunk
            .old_start
            .saturating_sub(1)
            .saturating_add_signed(shift);
        let place = place(&old, at, stated, &expected).ok_or_else(|| {
            format!(
                "the hunk at line {} does not match the file ({})",
                hunk.old_start,
                first_difference(&old, stated, &expected)
            )
        })?;
        shift += place as isize - stated as isize;
        old[at..place].iter().for_each(|kept| out.push_str(kept));
        at = place;
        for line in &hunk.lines {
            match line.mark {
                ' ' => {
                    out.push_str(old[at]);
                    at += 1;
                }
                '-' => at += 1,
                _ => {
                    out.push_str(&line.text);
                    if line.newline {
                        out.push('\n');
                    }
                }
            }
        }
    }
    old[at..].iter().for_each(|kept| out.push_str(kept));
    Ok(out)
}

/// Where `expected` matches `old` exactly, at `stated` or the nearest line to it, not before
/// `from`.
fn place(old: &[&str], from: usize, stated: usize, expected: &[&str]) -> Option<usize> {
    let matches = |start: usize| {
        start >= from
            && start + expected.len() <= old.len()
            && expected
                .iter()
                .zip(&old[start..])
                .all(|(want, have)| have.strip_suffix('\n').unwrap_or(have) == *want)
    };
    if expected.is_empty() {
        return Some(stated.clamp(from, old.len()));
    }
    (0..=old.len()).find_map(|distance| {
        [stated.checked_sub(distance), stated.checked_add(distance)]
            .into_iter()
            .flatten()
            .find(|start| matches(*start))
    })
}

fn first_difference(old: &[&str], stated: usize, expected: &[&str]) -> String {
    for (offset, want) in expected.iter().enumerate() {
        match old.get(stated + offset) {
            None => return format!("the file ends before line {}", stated + offset + 1),
            Some(have) if have.strip_suffix('\n').unwrap_or(have) != *want => {
                return format!(
                    "line {} is {have:?}, the patch expects {want:?}",
                    stated + offset + 1
                )
            }
            Some(_) => {}
        }
    }
    "its lines are elsewhere, out of order".to_owned()
}

/// A file as the tree holds it while a patch is worked out: its text and mode, or absent.
type State = Option<(String, u32)>;

/// Applies `patches` to the files under `root`: new, deleted, renamed and executable files
/// and links included. Nothing is written unless every file applies. Returns the paths written
/// or removed.
pub fn apply_to_tree(root: &Utf8Path, patches: &[FilePatch]) -> Result<Vec<String>, String> {
    let mut files: BTreeMap<String, State> = BTreeMap::new();
    for patch in patches {
        for path in patch.paths() {
            check_path(root, path)?;
        }
        if patch.binary {
            return Err(format!(
                "{} is a binary change, which a text patch cannot carry",
                patch.path()
            ));
        }
        let before = match &patch.old {
            Some(old) => Some(
                current(root, &files, old)?
                    .ok_or_else(|| format!("{old} does not exist, but the patch changes it"))?,
            ),
            None => None,
        };
        if let (None, Some(new)) = (&patch.old, &patch.new) {
            if current(root, &files, new)?.is_some() {
                return Err(format!("{new} already exists, but the patch creates it"));
            }
        }
        let (text, mode) = before.clone().unwrap_or((String::new(), 0o100644));
        let text = apply_hunks(&text, &patch.hunks)
            .map_err(|problem| format!("{}: {problem}", patch.path()))?;
        if let Some(old) = &patch.old {
            if patch.new.as_ref() != Some(old) {
                files.insert(old.clone(), None);
            }
        }
        match &patch.new {
            Some(new) => {
                files.insert(new.clone(), Some((text, patch.new_mode.unwrap_or(mode))));
            }
            None if !text.is_empty() => {
                return Err(format!(
                    "{}: the patch deletes the file but its lines do not cover all of it",
                    patch.path()
                ))
            }
            None => {}
        }
    }
    for (path, state) in &files {
        write(&root.join(path), state.as_ref())
            .map_err(|err| format!("cannot write {path}: {err}"))?;
    }
    Ok(files.into_keys().collect())
}

/// A path a patch may name: relative, inside the tree, outside `.git`, through no link.
fn check_path(root: &Utf8Path, path: &str) -> Result<(), String> {
    let relative = Utf8Path::new(path);
    let outside = path.is_empty()
        || relative.is_absolute()
        || relative
            .components()
            .any(|part| matches!(part.as_str(), ".." | "." | ".git"));
    if outside {
        return Err(format!(
            "`{path}` is not a file a patch may change inside the repository"
        ));
    }
    let mut folder = root.to_path_buf();
    for part in relative.parent().into_iter().flat_map(Utf8Path::components) {
        folder.push(part);
        if folder
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_symlink())
        {
            return Err(format!("`{path}` lies behind the link {folder}"));
        }
    }
    Ok(())
}

/// The file as the patch so far leaves it, else as the tree holds it.
fn current(root: &Utf8Path, files: &BTreeMap<String, State>, path: &str) -> Result<State, String> {
    if let Some(state) = files.get(path) {
        return Ok(state.clone());
    }
    let full = root.join(path);
    let Ok(meta) = full.symlink_metadata() else {
        return Ok(None);
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&full).map_err(|err| format!("cannot read {path}: {err}"))?;
        return Ok(Some((target.to_string_lossy().into_owned(), LINK_MODE)));
    }
    let text =
        fs::read_to_string(&full).map_err(|err| format!("cannot read {path} as text: {err}"))?;
    let mode = if meta.permissions().mode() & 0o111 != 0 {
        0o100755
    } else {
        0o100644
    };
    Ok(Some((text, mode)))
}

fn write(path: &Utf8PathBuf, state: Option<&(String, u32)>) -> std::io::Result<()> {
    if path.symlink_metadata().is_ok() {
        fs::remove_file(path)?;
    }
    let Some((text, mode)) = state else {
        return Ok(());
    };
    if let Some(folder) = path.parent() {
        fs::create_dir_all(folder)?;
    }
    if *mode == LINK_MODE {
        return std::os::unix::fs::symlink(text.trim_end_matches('\n'), path);
    }
    fs::write(path, text)?;
    let executable = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
    fs::set_permissions(path, fs::Permissions::from_mode(executable))
}
