//! The repository of an imported task from a local mirror: `--repos DIR` holds clones named
//! `owner__name` (as SWE-bench names instances) or `owner/name`; the task gets its own clone,
//! checked out at the instance's base commit. What `mend eval` copies from it is the attempt's
//! business (`copy.history`); the mirror is never changed.

use std::process::Command;

use camino::{Utf8Path, Utf8PathBuf};

use super::error::RowError;

/// The mirror of `owner/name` under `repos`, if there is one.
pub(super) fn mirror_of(repos: &Utf8Path, repo: &str) -> Result<Utf8PathBuf, RowError> {
    let (owner, name) = repo
        .split_once('/')
        .filter(|(owner, name)| !owner.is_empty() && !name.is_empty() && !name.contains('/'))
        .ok_or_else(|| RowError::unfit(format!("`repo` {repo:?} is not `owner/name`")))?;
    let candidates = [
        repos.join(format!("{owner}__{name}")),
        repos.join(owner).join(name),
    ];
    candidates
        .iter()
        .find(|folder| folder.is_dir())
        .cloned()
        .ok_or_else(|| {
            RowError::Repository(format!(
                "no clone of {repo} in {repos} (looked for {} and {}) and no image — clone it there, or give --image-template",
                candidates[0], candidates[1]
            ))
        })
}

/// A clone of `mirror` in `into` (which must not exist), checked out at `base`, its objects
/// hard-linked rather than copied.
pub(super) fn check_out(mirror: &Utf8Path, base: &str, into: &Utf8Path) -> Result<(), RowError> {
    if base.is_empty() || !base.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(RowError::unfit(format!(
            "`base_commit` {base:?} is not a commit id"
        )));
    }
    git(
        None,
        &[
            "clone",
            "--quiet",
            "--no-checkout",
            "--local",
            mirror.as_str(),
            into.as_str(),
        ],
    )
    .map_err(|why| RowError::Repository(format!("cannot clone {mirror}: {why}")))?;
    git(Some(into), &["checkout", "--quiet", "--detach", base]).map_err(|why| {
        RowError::Repository(format!("the base commit {base} is not in {mirror}: {why}"))
    })?;
    // The files mend adds beside the checkout are no change of the repository's.
    let exclude = into.join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("/mend.toml\n/.mend/\n");
    std::fs::create_dir_all(into.join(".git/info"))
        .and_then(|()| std::fs::write(&exclude, text))
        .map_err(|source| RowError::Disk {
            doing: "write",
            path: exclude,
            source,
        })
}

/// Runs git; its error is what git said (or that it could not be run).
fn git(dir: Option<&Utf8Path>, args: &[&str]) -> Result<(), RowError> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|err| RowError::Repository(format!("cannot run git: {err}")))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(RowError::Repository(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        ))
    }
}
