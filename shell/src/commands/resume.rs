//! `mend resume RECORD [--message TEXT]`: a recorded run or chat replayed exactly on a fresh
//! copy, then continued live from where it stopped. The old record is only read; a new one holds
//! its messages followed by the resumed session, and the independent check gives the verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use camino::Utf8Path;
use mend_core::{Millis, Session, StopReason};

use crate::attempt::driver::drive;
use crate::attempt::recorder::Transcript;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::stop_rounds::until_stop_hooks_agree;
use crate::attempt::{end_loop, written_by_tools};
use crate::cli::args::ResumeArgs;
use crate::commands::finish::{finish, Came, Finish, Kept};
use crate::commands::replay::refuse_changed_repository;
use crate::error::{exit, MendError};
use crate::provider::client::{Client, LiveSource};
use crate::provider::connect::{api_key, connect, server_base, Connection};
use crate::provider::host::BaseUrl;
use crate::record::target::record_target;
use crate::record::target::RecordTarget;
use crate::record::{Message, Record, RunMetrics};
use crate::replay::conversation::replay_conversation;
use crate::setup::config::deadline;
use crate::setup::Recorded;
use crate::setup::Setup;
use crate::telemetry::config::chosen;
use crate::tools::ToolContext;
use crate::verdict::check::TestRun;
use crate::verdict::grade::ending::Ending;
use crate::workspace::changes::test_and_editable_digests;
use crate::workspace::Workspace;

/// What `mend resume` goes on with: the record, the next message, the server and the copy's setup.
pub struct ResumeOptions<'a> {
    /// Where the record was read from.
    pub record_path: &'a Utf8Path,
    /// The record whose conversation goes on.
    pub record: Record,
    /// The user's next message; `None` goes on from where the session stopped.
    pub message: Option<String>,
    /// The resumed session's turn budget [default: the record's].
    pub max_turns: Option<u32>,
    /// The resumed session's wall-clock budget (`--deadline`), when given.
    pub deadline: Option<Millis>,
    /// Where the new record goes: `--out`, else a new file in `REPO/.mend/`.
    pub out: RecordTarget,
    /// The model server the new messages go to.
    pub base: BaseUrl,
    /// How long to wait for the server's next bytes before giving up.
    pub read_timeout: Duration,
    /// `--diff`: print the change after the verdict.
    pub print_diff: bool,
    /// The repository, task and runner the resumed run's copy uses.
    pub setup: Setup<'a>,
    /// `--otel`: where the new record's trace goes [default: the task file's `[telemetry]`].
    pub otel: Option<String>,
}

/// `mend resume RECORD` from the command line: the record, checked to be resumable before
/// anything runs, and its repository unless `--repo` says otherwise; then [`resume`].
pub fn command(args: &ResumeArgs, render: &mut dyn Render) -> Result<u8, MendError> {
    crate::interrupt::install();
    let record = Record::read(&args.record)?;
    record.refuse_if_ended_early(&args.record, "resume")?;
    check_resumable(
        &args.record,
        &record,
        args.message.as_deref(),
        args.out.as_deref(),
    )?;
    let resolved = args.common.setup.resolve(Recorded::of(&record.settings))?;
    let out = record_target(args.out.as_deref(), &resolved.records, "")?;
    let protocol = record.settings.protocol;
    let options = ResumeOptions {
        record_path: &args.record,
        record,
        message: args.message.clone(),
        max_turns: args.max_turns,
        deadline: deadline(args.deadline),
        out,
        base: server_base(args.server.host.as_deref(), protocol),
        read_timeout: Duration::from_secs(args.server.read_timeout),
        print_diff: args.diff,
        setup: resolved.setup(args.common.setup.keep_workspace),
        otel: args.otel.clone(),
    };
    resume(&options, render)
}

/// The stops a session can go on from without a new message: it was cut, not finished.
const CUT: [StopReason; 3] = [
    StopReason::Cancelled,
    StopReason::DeadlineExceeded,
    StopReason::MaxTurns,
];

/// Refuses, before anything runs, a resume that cannot make sense: a record without a message,
/// a finished session without a follow-up, a new record that would overwrite the old.
pub fn check_resumable(
    path: &Utf8Path,
    record: &Record,
    message: Option<&str>,
    out: Option<&Utf8Path>,
) -> Result<(), MendError> {
    let Some(stop) = record.last_stop() else {
        return Err(MendError::usage(format!(
            "{path} records no message yet, so there is nothing to resume; start with `mend run` or `mend chat`"
        )));
    };
    if message.is_none() && !CUT.contains(&stop.reason) {
        return Err(MendError::usage(format!(
            "{path} stopped with `{}`: the session finished, so it goes on only with a follow-up — \
             say what to do next with --message \"...\"",
            stop.reason
        )));
    }
    // The default (a new timestamped name) is never an existing record.
    if let Some(out) = out {
        let (out_file, record_file) = (out.canonicalize_utf8(), path.canonicalize_utf8());
        if matches!((&out_file, &record_file), (Ok(a), Ok(b)) if a == b) {
            return Err(MendError::usage(format!(
                "--out {out} is the record being resumed, which mend never overwrites; choose another path"
            )));
        }
    }
    Ok(())
}

/// Replays the record, goes on live, writes the new record; returns the exit code as `mend run`
/// does. A record that does not replay is refused with the divergence (exit 3).
pub fn resume(options: &ResumeOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let (record, setup) = (&options.record, &options.setup);
    let run_start = std::time::SystemTime::now();
    refuse_changed_repository(record, setup, false)?;
    let client = connect_and_announce(options, render)?;
    let file_sha256_before = test_and_editable_digests(setup.repo, setup.task)?;
    let workspace = Workspace::copy_of(setup.repo, &setup.task.exclude, &setup.task.history)?;
    render.run_event(&RunEvent::sandbox(setup.runner));
    let (stopped, tests_before, replayed_writes) =
        replay_exactly(options, workspace.root(), render)?;
    let max_turns = options.max_turns.unwrap_or(record.settings.max_turns);
    let started = stopped
        .resume(options.message.as_deref(), max_turns, options.deadline)
        .map_err(|err| MendError::usage(format!("cannot resume: {err}")))?;
    render.run_event(&RunEvent::Message {
        number: record.messages.len() + 1,
        text: options.message.clone(),
        live: true,
    });
    let mut source = LiveSource { client: &client };
    let bench = ToolContext::new(workspace.root(), setup.task, setup.runner);
    let loop_start = std::time::SystemTime::now();
    let first = drive(bench, &mut source, render, started)?;
    // The Stop hooks as in a run: one that blocks sends the model back to work.
    let (transcript, mut messages, _stopped) = until_stop_hooks_agree(
        bench,
        &mut source,
        render,
        options.message.clone(),
        first,
        record.messages.len(),
    )?;
    // Every live message goes on under the limits the resume gave (a follow-up keeps them), so
    // each is recorded with them and replays the same.
    for message in &mut messages {
        message.max_turns = Some(max_turns);
        message.deadline_ms = options.deadline.map(|deadline| deadline.0);
    }
    let mut written = replayed_writes;
    written.extend(written_by_tools(
        messages.iter().flat_map(|message| &message.tool_calls),
    ));
    let mut transcript = transcript;
    let before = (tests_before.as_ref(), None);
    let ending = end_loop(
        setup,
        workspace,
        &written,
        before,
        &mut transcript.metrics,
        render,
    )?;
    let live = Live {
        started: (run_start, loop_start),
        messages,
        transcript,
        ending,
        tests_before,
        file_sha256_before,
    };
    finish_resumed(options, live, render)
}

/// Connects to the record's server with the record's protocol, and says where the turns come
/// from.
fn connect_and_announce(
    options: &ResumeOptions,
    render: &mut dyn Render,
) -> Result<Client, MendError> {
    let record = &options.record;
    let protocol = record.settings.protocol;
    let Connection {
        client, described, ..
    } = connect(
        &options.base,
        options.read_timeout,
        protocol,
        api_key(protocol),
        &record.settings.model,
    )?;
    render.run_event(&RunEvent::RunStart {
        command: "resume".to_owned(),
        model: record.settings.model.clone(),
        source: format!("{}, then {described}", options.record_path),
    });
    Ok(client)
}

/// Replays the record on the copy at `root` and returns the session it stopped with, the check
/// before it (when the record has one) and the files its tools wrote; a record that does not
/// replay is refused.
fn replay_exactly(
    options: &ResumeOptions,
    root: &Utf8Path,
    render: &mut dyn Render,
) -> Result<(Session, Option<TestRun>, BTreeSet<String>), MendError> {
    let setup = &options.setup;
    let replayed = replay_conversation(&options.record, setup, root, render, false)?;
    if let Some(divergence) = &replayed.divergence {
        render.run_event(divergence);
        return Err(MendError {
            exit_code: exit::DIVERGED,
            message: format!(
                "{} does not replay on {} (the divergence above), so it cannot be resumed; nothing was written",
                options.record_path, setup.repo
            ),
        });
    }
    let stopped = replayed.session.ok_or_else(|| {
        MendError::harness("the replay left no session to go on from; this is a bug in mend")
    })?;
    let written = written_by_tools(
        replayed
            .transcripts
            .iter()
            .flat_map(|played| &played.tool_calls),
    );
    Ok((stopped, replayed.tests_before, written))
}

/// What the live part gave.
struct Live {
    /// When the resume began, and when its live part did.
    started: (std::time::SystemTime, std::time::SystemTime),
    /// The live messages: the resumed one, then one per Stop hook that sent the model back.
    messages: Vec<Message>,
    /// The last live message's, with the metrics of all of them.
    transcript: Transcript,
    ending: Ending,
    /// The replay's check before the first message, when the record has one.
    tests_before: Option<TestRun>,
    file_sha256_before: BTreeMap<String, String>,
}

/// The new record (the old one's messages, then the live one), its verdict and the report.
fn finish_resumed(
    options: &ResumeOptions,
    live: Live,
    render: &mut dyn Render,
) -> Result<u8, MendError> {
    let (record, setup) = (&options.record, &options.setup);
    let Live {
        started,
        messages: live_messages,
        transcript,
        ending,
        tests_before,
        file_sha256_before,
    } = live;
    let mut metrics = record.metrics.clone().unwrap_or_else(RunMetrics::default);
    metrics.add(&transcript.metrics);
    let mut messages = record.messages.clone();
    messages.extend(live_messages);
    let mut settings = record.settings.clone();
    settings.sandbox = Some(setup.runner.sandbox.name().to_owned());
    let resumed = Record {
        settings,
        messages,
        tests_before: tests_before.or_else(|| record.tests_before.clone()),
        ending: Some(ending.clone()),
        file_sha256_before,
        metrics: Some(metrics),
        resumed_from: Some(options.record_path.to_string()),
        ..record.clone()
    };
    let telemetry = chosen(options.otel.as_deref(), &setup.task.telemetry);
    let kept = Kept {
        target: &options.out,
        record: &resumed,
        print_diff: options.print_diff,
        telemetry: telemetry.as_ref(),
        started,
    };
    finish(
        Finish {
            setup,
            ending: &ending,
            test_file_sha256_before: &resumed.test_file_sha256_before,
            came: Came::Live {
                stop: &transcript.stop,
                resumed: true,
                kept,
            },
            metrics: transcript.metrics,
        },
        render,
    )
}
