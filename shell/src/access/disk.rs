//! The disk half of the decision: where a path the text rules allowed really leads. A link in
//! the copy may lead out of it, or to a file the tools may not change; both are refused here.

use std::fs;
use std::io;

use camino::{Utf8Path, Utf8PathBuf};

use super::{decide, Denied, Operation, Refusal};
use crate::task::Task;

/// A path a tool may use: as the model's rules name it, and as the disk has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Granted {
    /// Normalised and relative to the copy: what the tool reports back.
    pub relative: String,
    /// Where it really is, links followed: what the tool opens. For a file still to be
    /// created, its place inside the real folder it goes in (that folder may not exist yet).
    pub real: Utf8PathBuf,
    /// Whether the file is there already; `false` only for a write that creates it.
    pub exists: bool,
}

/// Decides on the text ([`decide`]), then on the disk: a read needs the file to exist and stay
/// inside the copy; a write resolves the path as far as it exists (every folder on the way
/// must stay inside), and where it lands must pass the same rules as the path the model named.
/// The `Err` is the message for the model. Nothing is created or changed here.
pub(crate) fn grant(
    root: &Utf8Path,
    task: &Task,
    path: &str,
    operation: Operation,
) -> Result<Granted, Denied> {
    let relative = decide(task, path, operation)
        .map_err(|refusal| Denied::Rules(refusal.explain(path, task, operation)))?;
    if operation == Operation::Read {
        let real = resolve_inside(root, &relative)?;
        return Ok(Granted {
            relative,
            real,
            exists: true,
        });
    }
    let (real, exists) = landing_of(root, &relative)?;
    let real_root = real_root(root)?;
    let landing = real
        .strip_prefix(&real_root)
        .map_err(|_| leads_out(&relative))?;
    if landing.as_str() != relative {
        if let Err(refusal) = decide(task, landing.as_str(), Operation::Write) {
            let what = match refusal {
                Refusal::Protected(protected) => format!(", {}", protected.describe()),
                _ => String::new(),
            };
            return Err(Denied::Rules(format!(
                "`{relative}` is a link to `{landing}`{what}, which no tool may change"
            )));
        }
    }
    Ok(Granted {
        relative,
        real,
        exists,
    })
}

/// Where a write to `relative` lands: the real path of its longest part that exists (links
/// followed, confined to the copy) with the rest appended, and whether the whole exists.
fn landing_of(root: &Utf8Path, relative: &str) -> Result<(Utf8PathBuf, bool), Denied> {
    let parts: Vec<&str> = relative.split('/').collect();
    for there in (1..=parts.len()).rev() {
        let prefix = parts[..there].join("/");
        if fs::symlink_metadata(root.join(&prefix)).is_err() {
            continue;
        }
        let mut real = resolve_inside(root, &prefix)?;
        for part in &parts[there..] {
            real.push(part);
        }
        return Ok((real, there == parts.len()));
    }
    let mut real = real_root(root)?;
    real.push(relative);
    Ok((real, false))
}

/// Resolves a relative path on disk, following links, and makes sure it stays inside `root`.
/// Returns the real path to open.
fn resolve_inside(root: &Utf8Path, relative: &str) -> Result<Utf8PathBuf, Denied> {
    let real_root = real_root(root)?;
    let named = root.join(relative);
    let real = named.canonicalize_utf8().map_err(|err| {
        Denied::Disk(match (err.kind(), fs::read_link(&named)) {
            (io::ErrorKind::NotFound, Ok(target)) => format!(
                "`{relative}` is a link to `{}`, which does not exist (a broken link); it cannot be opened",
                target.display()
            ),
            (io::ErrorKind::NotFound, Err(_)) => format!("`{relative}` does not exist"),
            _ => format!("`{relative}` cannot be opened: {err}"),
        })
    })?;
    if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(leads_out(relative))
    }
}

fn real_root(root: &Utf8Path) -> Result<Utf8PathBuf, Denied> {
    root.canonicalize_utf8()
        .map_err(|source| Denied::Workspace {
            doing: "the workspace is not readable",
            source,
        })
}

fn leads_out(relative: &str) -> Denied {
    Denied::Disk(format!(
        "`{relative}` is a link that leads out of the repository; it cannot be opened"
    ))
}
