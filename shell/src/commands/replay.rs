//! `mend replay`: a record's conversation — a run's one message, or a chat's every message —
//! fed back through the same core, with the tools and the tests run for real on a fresh copy,
//! and every outcome compared with the record.

use std::collections::BTreeMap;

use camino::Utf8Path;

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::{end_loop, written_by_tools};
use crate::cli::args::ReplayArgs;
use crate::cli::replay_record;
use crate::commands::finish::{finish, Came, Finish};
use crate::error::{exit, MendError};
use crate::record::{Record, RECORD_FORMAT};
use crate::replay::conversation::{replay_conversation, Replayed};
use crate::replay::divergence::{end_divergence, LeftBehind};
use crate::setup::Recorded;
use crate::setup::Setup;
use crate::task::PathSet;
use crate::verdict::grade::ending::Ending;
use crate::workspace::changes::{file_digests, set_sha256};
use crate::workspace::Workspace;

/// What a replay works with: the record, where it came from, and the copy's setup.
pub struct ReplayOptions<'a> {
    /// Where the record was read from (and where `--bless` writes it back).
    pub record_path: &'a Utf8Path,
    /// The record to replay.
    pub record: Record,
    /// The repository, task and runner the replay's copy uses.
    pub setup: Setup<'a>,
    /// Rewrite the record's observed fields from this replay (for authoring fixtures).
    pub bless: bool,
}

/// `mend replay [RECORD]` from the command line: the record, and the repository, interpreter
/// and sandbox it names unless the flags say otherwise; then [`replay`].
pub fn command(args: &ReplayArgs, render: &mut dyn Render) -> Result<u8, MendError> {
    crate::interrupt::install();
    let record_path = replay_record(args.record.as_deref())?;
    let record = Record::read(&record_path)?;
    record.refuse_if_ended_early(&record_path, "replay")?;
    let resolved = args.common.setup.resolve(Recorded::of(&record.settings))?;
    let options = ReplayOptions {
        record_path: &record_path,
        record,
        setup: resolved.setup(args.common.setup.keep_workspace),
        bless: args.bless,
    };
    replay(&options, render)
}

/// Replays a record and returns the exit code: 0 only when it matched and the final tests pass.
pub fn replay(options: &ReplayOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let (record, setup) = (&options.record, &options.setup);
    refuse_changed_repository(record, setup, options.bless)?;
    render.run_event(&RunEvent::RunStart {
        command: "replay".to_owned(),
        model: record.settings.model.clone(),
        source: options.record_path.to_string(),
    });
    let test_files_before = set_sha256(setup.repo, &setup.task.test.files)?;
    let source_before = set_sha256(setup.repo, &setup.task.editable)?;
    let workspace = Workspace::copy_of(setup.repo, &setup.task.exclude, &setup.task.history)?;
    render.run_event(&RunEvent::replay_sandbox(
        setup.runner,
        record.settings.image.as_ref(),
    ));
    let mut replayed = replay_conversation(record, setup, workspace.root(), render, options.bless)?;
    let written = written_by_tools(
        replayed
            .transcripts
            .iter()
            .flat_map(|played| &played.tool_calls),
    );
    let before = (replayed.tests_before.as_ref(), None);
    let ending = end_loop(
        setup,
        workspace,
        &written,
        before,
        &mut replayed.metrics,
        render,
    )?;
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
    let stop_reason = replayed.transcripts.last().map(|last| last.stop.reason);
    finish(
        Finish {
            setup,
            ending: &ending,
            test_file_sha256_before: &test_files_before,
            came: Came::Replayed {
                divergence: divergence.as_ref(),
                stop_reason,
            },
            metrics: replayed.metrics,
        },
        render,
    )
}

fn left_behind(ending: &Ending) -> LeftBehind<'_> {
    LeftBehind {
        source_sha256: &ending.source_sha256_after,
        test_file_sha256: &ending.test_file_sha256_after,
        tests: &ending.tests_after,
    }
}

/// Refuses to replay on a repository whose test files or editable files are not what the
/// recording started from (`--bless` rewrites the record instead).
pub fn refuse_changed_repository(
    record: &Record,
    setup: &Setup,
    bless: bool,
) -> Result<(), MendError> {
    let (repo, task) = (setup.repo, setup.task);
    for (set, recorded) in [
        (&task.test.files, &record.test_file_sha256_before),
        (&task.editable, &record.source_sha256_before),
    ] {
        let actual = set_sha256(repo, set)?;
        if actual != *recorded && !bless {
            let which = match changed_files(&record.file_sha256_before, repo, set)? {
                Some(files) => files,
                None => format!("sha256 {actual}, the record has {recorded}"),
            };
            return Err(MendError::refused(format!(
                "{} in {repo} changed since this run was recorded ({which}); \
                 restore it (e.g. `git checkout -- {repo}`) or record a new run",
                set.listed("and")
            )));
        }
    }
    Ok(())
}

/// Which files of `set` differ from the record's per-file digests, in words (`a.py changed,
/// b.py is new`), so a person knows what to restore; `None` for a record without them (older
/// formats) or when only the set's digest tells.
fn changed_files(
    before: &BTreeMap<String, String>,
    repo: &Utf8Path,
    set: &PathSet,
) -> Result<Option<String>, MendError> {
    if before.is_empty() {
        return Ok(None);
    }
    let now = file_digests(repo, set)?;
    let mut named: Vec<String> = now
        .iter()
        .filter_map(|(path, digest)| match before.get(path) {
            Some(recorded) if recorded == digest => None,
            Some(_) => Some(format!("{path} changed")),
            None => Some(format!("{path} is new")),
        })
        .collect();
    named.extend(
        before
            .keys()
            .filter(|path| set.contains(path) && !now.contains_key(*path))
            .map(|path| format!("{path} was removed")),
    );
    named.sort();
    // Another repository altogether would list every file: the first few say enough.
    if named.len() > FILES_NAMED {
        let more = named.len() - FILES_NAMED;
        named.truncate(FILES_NAMED);
        named.push(format!("and {more} more"));
    }
    Ok((!named.is_empty()).then(|| named.join(", ")))
}

/// How many changed files a refusal names.
const FILES_NAMED: usize = 10;

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
