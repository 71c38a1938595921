//! What an eval works with before its first attempt: the options it was given, and each task
//! of the suite loaded once, checked as valid (`mend eval check`) and shared by its attempts.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::exec::sandbox::SandboxChoice;
use crate::setup::Resolved;

use super::check_file::{gate, gold_patch, CheckFile, Digests};
use super::shard::Shard;
use super::suite::Suite;

/// What `mend eval` was asked to run: the suite, where its results go, and what every attempt
/// shares (the server, the sandbox, the images).
pub(crate) struct EvalOptions {
    pub suite: Suite,
    pub out: Utf8PathBuf,
    pub jobs: usize,
    pub shard: Shard,
    pub model: Option<String>,
    pub protocol: Option<mend_core::Protocol>,
    pub host: Option<String>,
    pub python: Option<Utf8PathBuf>,
    pub sandbox: Option<SandboxChoice>,
    /// `--image-cache`: where the tasks' images are unpacked.
    pub image_cache: Option<Utf8PathBuf>,
    /// `--on-host`: the tasks' images are not used (mend runs inside one already).
    pub on_host: bool,
    pub read_timeout: Duration,
    /// Run tasks without a current check, or found invalid, too.
    pub unchecked: bool,
    /// `--otel`: every attempt's trace goes there [default: each task file's
    /// `telemetry.otlp_endpoint`, else nowhere].
    pub otel: Option<String>,
}

/// One task of the suite, loaded once and shared by its attempts.
pub(super) struct Prepared {
    pub(super) name: String,
    pub(super) resolved: Resolved,
    pub(super) prompt: String,
    pub(super) repo_sha256: String,
    /// The check found the task flaky: its rows say so, and the report lists it apart.
    pub(super) flaky: bool,
}

/// Refuses tasks without a current check, or found invalid, unless `--unchecked`; returns the
/// names of the flaky ones.
pub(super) fn checked_flaky(
    options: &EvalOptions,
    tasks: &[Prepared],
) -> Result<Vec<String>, MendError> {
    let origin = &options.suite.origin;
    let check = CheckFile::load(origin)?;
    let now = tasks
        .iter()
        .map(|task| {
            let gold = gold_patch(origin, &task.name)?;
            Ok((
                task.name.clone(),
                Digests::of(&task.resolved, gold.as_deref())?,
            ))
        })
        .collect::<Result<Vec<_>, MendError>>()?;
    let (refused, flaky) = gate(check.as_ref(), &now);
    if !refused.is_empty() {
        if !options.unchecked {
            return Err(MendError::refused(format!(
                "{} task(s) of {origin} are not checked as valid: {} — run `mend eval check {origin}` \
                 (and fix what it names), or pass --unchecked to run them anyway",
                refused.len(),
                refused.join(", ")
            )));
        }
        eprintln!(
            "mend: eval: running tasks the check does not vouch for (--unchecked): {}",
            refused.join(", ")
        );
    }
    if !flaky.is_empty() {
        eprintln!(
            "mend: eval: flaky tasks (their outcome changed between runs of the same tree; the report lists them apart): {}",
            flaky.join(", ")
        );
    }
    Ok(flaky)
}

/// The task `name` of the suite, in `folder`, loaded and its environment resolved.
pub(super) fn prepare(
    name: &str,
    folder: &Utf8Path,
    options: &EvalOptions,
) -> Result<Prepared, MendError> {
    let mut resolved = super::task_folder::resolve(
        folder,
        &options.suite,
        options.python.as_deref(),
        (
            options.sandbox,
            options.image_cache.as_deref(),
            options.on_host,
        ),
    )?;
    resolved.hand_copies_on();
    let task = &resolved.task;
    let prompt = task.prompt.clone().ok_or_else(|| {
        MendError::usage(format!(
            "{} has no task.prompt, which every task of a suite needs — say what the model should do there: \
             [task] prompt = \"...\"",
            task.origin
        ))
    })?;
    let repo_sha256 = super::check_file::repo_sha256(&resolved)?;
    Ok(Prepared {
        name: name.to_owned(),
        resolved,
        prompt,
        repo_sha256,
        flaky: false,
    })
}
