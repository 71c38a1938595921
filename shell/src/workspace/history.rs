//! The copy's `.git`, holding only what the task's base commit reaches (`copy.history =
//! "base"`): no other branch, tag, remote, stash, reflog, `ORIG_HEAD`/`FETCH_HEAD`, hook or
//! config of the original, and no object that only a later commit reaches. A task made the
//! usual way (the commit before a fix checked out) would otherwise hand the fix to a model that
//! runs `git log --all`.
//!
//! It is built once per copy, in a folder of its own, and the copy takes its `.git` from there
//! instead of from the original (and so does a reset, when the tests changed it): one
//! `git pack-objects` of the objects the base reaches (it reuses the original's compressed
//! deltas, so it costs about a read of them), the base's tree as the index, and a `HEAD` on the
//! original's branch name (or detached at the base). The original is only read.

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

use crate::error::MendError;
use crate::task::copy::Exclusion;

/// A clean `.git` made for one copy; deleted with it.
pub(crate) struct CleanHistory {
    _dir: TempDir,
    /// The `.git` folder itself.
    pub git: Utf8PathBuf,
    /// The base's commit (`None`: the repository has no commit yet).
    pub commit: Option<String>,
    /// The revision the task names as its base.
    pub base: String,
}

impl CleanHistory {
    /// What the copy's `.git` holds, for the record.
    pub(crate) fn describe(&self) -> String {
        match &self.commit {
            Some(commit) => format!("only what {} ({commit}) reaches", self.base),
            None => "a repository without commits".to_owned(),
        }
    }
}

/// Variables that would point a git command at another repository than the one named.
const GIT_LOCATION_VARIABLES: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
];

/// The clean `.git` of `original` at `base`, or `None` when `original` has no `.git` (a
/// folder that is no repository: nothing to copy). An error names the fix: a usage error for
/// what the task file asks (a base that is not checked out, held-out files the base tracks), a
/// harness error for what mend could not do (run git, write the copy's `.git`).
pub(crate) fn clean_history(
    original: &Utf8Path,
    base: &str,
    exclude: &Exclusion,
) -> Result<Option<CleanHistory>, MendError> {
    if fs::symlink_metadata(original.join(".git")).is_err() {
        return if base == "HEAD" {
            Ok(None)
        } else {
            Err(MendError::usage(format!(
                "copy.base names `{base}`, but {original} has no .git: leave copy.base out, or make the repository a git repository"
            )))
        };
    }
    let dir = tempfile::Builder::new()
        .prefix("mend-history-")
        .tempdir()
        .map_err(|err| {
            MendError::harness(format!(
                "cannot make a temporary folder for the copy's .git: {err}"
            ))
        })?;
    let git = Utf8PathBuf::from_path_buf(dir.path().join(".git")).map_err(|path| {
        MendError::harness(format!(
            "the temporary folder {} is not UTF-8",
            path.display()
        ))
    })?;
    let commit = base_commit(original, base)?;
    if let Some(commit) = &commit {
        refuse_tracked_held_out(original, commit, exclude)?;
    }
    let layout = Layout {
        object_format: git_out(original, &["rev-parse", "--show-object-format"])
            .unwrap_or_else(|| "sha1".to_owned()),
        branch: git_out(original, &["symbolic-ref", "-q", "HEAD"]),
    };
    layout.write(&git, commit.as_deref()).map_err(|err| {
        MendError::harness(format!("cannot write the copy's .git in {git}: {err}"))
    })?;
    if let Some(commit) = &commit {
        pack_reachable(original, &git, commit)?;
        let shallow = git_out(original, &["rev-parse", "--git-path", "shallow"])
            .map(|path| original.join(path))
            .filter(|path| path.exists());
        if let Some(shallow) = shallow {
            fs::copy(&shallow, git.join("shallow"))
                .map_err(|err| MendError::harness(format!("cannot copy {shallow}: {err}")))?;
        }
        run_git(
            Command::new("git")
                .arg(format!("--git-dir={git}"))
                .args(["read-tree", commit]),
            "read the base's tree into the copy's index",
        )?;
    }
    Ok(Some(CleanHistory {
        _dir: dir,
        git,
        commit,
        base: base.to_owned(),
    }))
}

/// The commit `base` names, checked to be the one the original's files are at (`HEAD`);
/// `None` for a repository without any commit yet.
fn base_commit(original: &Utf8Path, base: &str) -> Result<Option<String>, MendError> {
    let head = git_out(
        original,
        &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
    );
    if head.is_none() && base == "HEAD" {
        return Ok(None);
    }
    let commit = git_out(
        original,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{base}^{{commit}}"),
        ],
    )
    .ok_or_else(|| {
        MendError::usage(format!("copy.base: `{base}` names no commit of {original}"))
    })?;
    match head {
        Some(head) if head == commit => Ok(Some(commit)),
        _ => Err(MendError::usage(format!(
            "copy.base: `{base}` is commit {commit}, but the files of {original} are at HEAD {}: check the base out there (`git checkout {base}`), so that the files are those the attempt starts from",
            head.as_deref().unwrap_or("(no commit)")
        ))),
    }
}

/// A held-out file the base commit tracks would be one `git show` away from the model: such a
/// task is refused, with the two ways out.
fn refuse_tracked_held_out(
    original: &Utf8Path,
    commit: &str,
    exclude: &Exclusion,
) -> Result<(), MendError> {
    if exclude.held_out_patterns().is_empty() {
        return Ok(());
    }
    let listed = git_command(original)
        .args(["ls-tree", "-r", "-z", "--name-only", commit])
        .stdin(Stdio::null())
        .output()
        .map_err(|err| MendError::harness(format!("cannot run git: {err}")))?;
    let tracked: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .split('\0')
        .filter(|path| !path.is_empty() && exclude.holds_out(path))
        .map(str::to_owned)
        .collect();
    match tracked.as_slice() {
        [] => Ok(()),
        tracked => Err(MendError::usage(format!(
            "test.held_out: the base commit tracks {}, so the copy's history would hand it to the model (`git show`): give the held-out tests as test.patch or untracked files, or set copy.history = \"none\"",
            tracked.join(", ")
        ))),
    }
}

/// What the copy's `.git` says besides its objects.
struct Layout {
    object_format: String,
    /// `refs/heads/NAME` when the original's HEAD is on a branch.
    branch: Option<String>,
}

impl Layout {
    fn write(&self, git: &Utf8Path, commit: Option<&str>) -> std::io::Result<()> {
        for folder in ["objects/pack", "objects/info", "refs/heads", "refs/tags"] {
            fs::create_dir_all(git.join(folder))?;
        }
        let sha256 = self.object_format == "sha256";
        let config = format!(
            "[core]\n\trepositoryformatversion = {}\n\tfilemode = true\n\tbare = false\n{}",
            u8::from(sha256),
            if sha256 {
                "[extensions]\n\tobjectformat = sha256\n"
            } else {
                ""
            }
        );
        fs::write(git.join("config"), config)?;
        let branch = self
            .branch
            .as_deref()
            .filter(|branch| branch.starts_with("refs/heads/"));
        match (branch, commit) {
            (Some(branch), Some(commit)) => {
                fs::write(git.join(branch), format!("{commit}\n"))?;
                fs::write(git.join("HEAD"), format!("ref: {branch}\n"))
            }
            (None, Some(commit)) => fs::write(git.join("HEAD"), format!("{commit}\n")),
            (branch, None) => fs::write(
                git.join("HEAD"),
                format!("ref: {}\n", branch.unwrap_or("refs/heads/main")),
            ),
        }
    }
}

/// Packs every object `commit` reaches into the copy's `.git`. Deltas the original already
/// holds are reused; no new ones are searched for (`--window=0`): for a repository whose objects
/// are loose (a fresh `git init`, an import's local clone of one) the search was most of the
/// copy's time (sympy's 2,000 files: 1.8 s of CPU against 0.9 s, for a pack 3 % larger).
fn pack_reachable(original: &Utf8Path, git: &Utf8Path, commit: &str) -> Result<(), MendError> {
    let mut child = git_command(original)
        .args([
            "pack-objects",
            "--revs",
            "--quiet",
            "--delta-base-offset",
            "--window=0",
        ])
        .arg(git.join("objects/pack/pack"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| {
            MendError::harness(format!(
                "cannot run git (needed to copy the history): {err}"
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        writeln!(stdin, "{commit}")
            .map_err(|err| MendError::harness(format!("cannot talk to git pack-objects: {err}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|err| MendError::harness(format!("git pack-objects failed: {err}")))?;
    if !out.status.success() {
        return Err(MendError::harness(format!(
            "git pack-objects could not copy the history of {original}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

fn git_command(repo: &Utf8Path) -> Command {
    let mut command = Command::new("git");
    // The original is only read (rev-parse, symbolic-ref, ls-tree, pack-objects run no program
    // its config names), so one another user owns (an unpacked archive, a mounted volume) is
    // read as well, instead of failing as "dubious ownership".
    command.args(["-c", "safe.directory=*", "-C"]).arg(repo);
    for variable in GIT_LOCATION_VARIABLES {
        command.env_remove(variable);
    }
    command
}

/// A git command's output in `repo`, trimmed; `None` when git cannot run or fails. Every caller
/// takes a failure as "no answer" (no commit yet, no shallow file, the default object format)
/// and words its own error, so why git failed is not kept.
fn git_out(repo: &Utf8Path, args: &[&str]) -> Option<String> {
    let out = git_command(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn run_git(command: &mut Command, what: &str) -> Result<(), MendError> {
    for variable in GIT_LOCATION_VARIABLES {
        command.env_remove(variable);
    }
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|err| MendError::harness(format!("cannot run git to {what}: {err}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(MendError::harness(format!(
            "git could not {what}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

#[cfg(test)]
mod tests;
