//! The repository an image carries at its workdir (SWE-bench's `/testbed`), which the copy is
//! made from. Its files are the image's, so its symlinks are kept as links and read only inside
//! the sandbox, where `/` is the image's root. Its `.git` is the one part read by a program on
//! this machine (git, for the copy's clean history), which would follow a link or a pointer
//! file as this machine's path: one that could lead out of the image is refused.

use std::fs;
use std::path::Path;

use camino::{Utf8Path, Utf8PathBuf};

use super::root::ImageRun;
use super::unpack::resolve;
use crate::error::MendError;

/// Files of a `.git` that point git at another folder by a path written inside them.
const POINTER_FILES: [&str; 2] = ["objects/info/alternates", "commondir"];

/// Where the image's copy of the repository is on this machine, when it has one: read through
/// the image's own symlinks, never the host's.
pub fn repository_in(image: &ImageRun) -> Option<Utf8PathBuf> {
    let parts: Vec<std::ffi::OsString> = image
        .workdir
        .components()
        .skip(1)
        .map(|part| part.as_str().into())
        .collect();
    let folder = resolve(image.root.as_std_path(), &parts, image.workdir.as_str()).ok()?;
    let folder = Utf8PathBuf::from_path_buf(folder).ok()?;
    folder.read_dir().ok()?.next().is_some().then_some(folder)
}

/// Refuses the image's repository when its `.git` could lead git out of the image: `.git` a
/// symlink or a `gitdir:` file, a symlink anywhere inside it, or a file naming other object
/// stores (`alternates`, `commondir`). A `.git` made by git itself has none of them.
pub fn refuse_escaping_git(image: &ImageRun, folder: &Utf8Path) -> Result<(), MendError> {
    let git = folder.join(".git");
    let Ok(meta) = fs::symlink_metadata(&git) else {
        return Ok(());
    };
    let inside = |path: &Path| {
        let shown = path.strip_prefix(&image.root).unwrap_or(path);
        format!("/{}", shown.display())
    };
    let why = if meta.file_type().is_symlink() {
        Some(format!("{} is a symlink", inside(git.as_std_path())))
    } else if !meta.is_dir() {
        Some(format!(
            "{} is a file pointing elsewhere (`gitdir:`)",
            inside(git.as_std_path())
        ))
    } else {
        escaping_entry(git.as_std_path()).map(|path| {
            let what = if fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_symlink()) {
                "a symlink"
            } else {
                "a file naming another object store"
            };
            format!("{} is {what}", inside(&path))
        })
    };
    match why {
        None => Ok(()),
        Some(why) => Err(MendError::refused(format!(
            "refused the image {}: its repository's {why}, which git on this machine would follow out of the image — use an image whose .git is git's own, or give the repository with --repo",
            image.reference
        ))),
    }
}

/// The first symlink or pointer file under `git`, if any.
fn escaping_entry(git: &Path) -> Option<std::path::PathBuf> {
    if let Some(pointer) = POINTER_FILES
        .iter()
        .map(|name| git.join(name))
        .find(|path| fs::symlink_metadata(path).is_ok())
    {
        return Some(pointer);
    }
    let mut pending = vec![git.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                return Some(entry.path());
            }
            if kind.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    None
}
