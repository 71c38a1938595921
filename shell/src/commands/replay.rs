//! `mend replay`: a record's conversation — a run's one message, or a chat's every message —
//! fed back through the same core, with the tools and the tests run for real on a fresh copy,
//! and every outcome compared with the record.

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::record::metrics::RunMetrics;
use crate::record::{Ending, Record, RECORD_FORMAT};
use crate::replay::conversation::{replay_conversation, Replayed};
use crate::replay::divergence::{end_divergence, LeftBehind};
use crate::session::attempt::{check_at_end, Setup};
use crate::session::render::{Render, RunEvent};
use crate::verdict::checks::verdict_passes;
use crate::workspace::changes::set_sha256;
use crate::workspace::sandbox::Sandbox;
use crate::workspace::Workspace;

pub struct ReplayOptions<'a> {
    /// Where the record was read from (and where `--bless` writes it back).
    pub record_path: &'a Utf8Path,
    pub record: Record,
    pub setup: Setup<'a>,
    /// Rewrite the record's observed fields from this replay (for authoring fixtures).
    pub bless: bool,
}

/// Replays a record and returns the exit code: 0 only when it matched and the final tests pass.
pub fn replay(options: &ReplayOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let (record, setup) = (&options.record, &options.setup);
    refuse_changed_repository(
        &record.test_file_sha256_before,
        &record.source_sha256_before,
        setup,
        options.bless,
    )?;
    render.run_event(&RunEvent::RunStart {
        command: "replay".to_owned(),
        model: record.settings.model.clone(),
        source: options.record_path.to_string(),
    });
    let test_files_before = set_sha256(setup.repo, &setup.task.test.files)?;
    let source_before = set_sha256(setup.repo, &setup.task.editable)?;
    let workspace = Workspace::copy_of(setup.repo, &setup.task.exclude)?;
    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));
    let mut replayed = replay_conversation(record, setup, workspace.root(), render, options.bless)?;
    let ending = check_at_end(setup, workspace.root(), render)?;
    replayed.metrics.verify_ms += ending.tests_after.duration_ms;
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    if options.bless {
        let blessed = blessed(
            options.record.clone(),
            replayed,
            ending,
            test_files_before,
            source_before,
        );
        blessed.write_atomically(options.record_path)?;
        return Ok(exit::PASS);
    }
    let divergence = replayed.divergence.take().or_else(|| {
        let recorded = record.ending.as_ref()?;
        end_divergence(setup.task, left_behind(recorded), left_behind(&ending))
    });
    let tests_pass = verdict_passes(
        &ending.tests_after,
        &test_files_before,
        &ending.test_file_sha256_after,
    );
    let stop_reason = replayed
        .transcripts
        .last()
        .map_or_else(|| "none".to_owned(), |last| last.stop.reason.to_string());
    Ok(judge(
        render,
        divergence,
        tests_pass,
        &setup.runner.sandbox,
        stop_reason,
        replayed.metrics,
    ))
}

fn left_behind(ending: &Ending) -> LeftBehind<'_> {
    LeftBehind {
        source_sha256: &ending.source_sha256_after,
        test_file_sha256: &ending.test_file_sha256_after,
        tests: &ending.tests_after,
    }
}

/// Reports the first divergence, if any, and the verdict; returns the exit code: a divergence
/// outranks the tests.
pub fn judge(
    render: &mut dyn Render,
    divergence: Option<RunEvent>,
    tests_pass: bool,
    sandbox: &Sandbox,
    stop_reason: String,
    metrics: RunMetrics,
) -> u8 {
    if let Some(divergence) = &divergence {
        render.run_event(divergence);
    }
    let exit_code = match (&divergence, tests_pass) {
        (Some(_), _) => exit::DIVERGED,
        (None, true) => exit::PASS,
        (None, false) => exit::TESTS_FAIL,
    };
    render.run_event(&RunEvent::Verdict {
        tests_pass,
        sandbox: sandbox.name().to_owned(),
        replay_matched: Some(divergence.is_none()),
        stop_reason,
        exit_code,
        metrics,
        record: None,
        patch: None,
    });
    exit_code
}

/// Refuses to replay on a repository whose test files or editable files are not what the
/// recording started from (`--bless` rewrites the record instead).
pub fn refuse_changed_repository(
    test_files_sha256: &str,
    source_sha256: &str,
    setup: &Setup,
    bless: bool,
) -> Result<(), MendError> {
    let (repo, task) = (setup.repo, setup.task);
    for (set, recorded) in [
        (&task.test.files, test_files_sha256),
        (&task.editable, source_sha256),
    ] {
        let actual = set_sha256(repo, set)?;
        if actual != *recorded && !bless {
            return Err(MendError::refused(format!(
                "{} in {repo} changed since this run was recorded (sha256 {actual}, the record has {recorded}); \
                 restore it (e.g. `git checkout -- {repo}`) or record a new run",
                set.listed("and")
            )));
        }
    }
    Ok(())
}

/// The record with every observed field taken from this replay; the authored streams stay.
fn blessed(
    record: Record,
    replayed: Replayed,
    ending: Ending,
    test_file_sha256_before: String,
    source_sha256_before: String,
) -> Record {
    let messages = record
        .messages
        .into_iter()
        .zip(replayed.transcripts)
        .map(|(mut message, transcript)| {
            for turn in &mut message.turns {
                turn.request_sha256 = transcript
                    .turns
                    .iter()
                    .find(|replayed| replayed.turn == turn.turn)
                    .and_then(|replayed| replayed.request_sha256.clone());
            }
            message.tool_calls = transcript.tool_calls;
            message.stop = transcript.stop;
            message
        })
        .collect();
    Record {
        format: RECORD_FORMAT.to_owned(),
        messages,
        test_file_sha256_before,
        source_sha256_before,
        tests_before: replayed.tests_before.or(record.tests_before),
        ending: Some(ending),
        ..record
    }
}
