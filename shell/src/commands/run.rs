//! `mend run`: a live attempt against a model server (Ollama, or any OpenAI- or
//! Anthropic-compatible one), recorded so it can be replayed.

use std::time::Duration;

use mend_core::Config;

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::run_record::record_of;
use crate::attempt::{attempt_from, begin};
use crate::cli::args::RunArgs;
use crate::commands::finish::{finish, Came, Finish, Kept};
use crate::commands::unbegun::ended_before_loop;
use crate::error::MendError;
use crate::exec::sandbox::SandboxChoice;
use crate::provider::client::{LiveSource, Secret};
use crate::provider::connect::{api_key, connect, server_base, Connection};
use crate::provider::host::BaseUrl;
use crate::provider::window::WindowChoice;
use crate::record::target::record_target;
use crate::record::target::RecordTarget;
use crate::record::SessionSettings;
use crate::setup::config::deadline;
use crate::setup::Recorded;
use crate::setup::Setup;
use crate::task::Task;
use crate::telemetry::Telemetry;
use crate::workspace::changes::test_and_editable_digests;

/// What `mend run` is set up with: the session, the server, the copy and where the record goes.
pub struct RunOptions<'a> {
    /// The session to run: model, protocol, prompts, tools, budgets.
    pub config: Config,
    /// The model server's address.
    pub base: BaseUrl,
    /// The key sent to servers that want one, read from the environment; never printed or recorded.
    pub api_key: Option<Secret>,
    /// `--record`, else a new file in `REPO/.mend/`.
    pub record: RecordTarget,
    /// How long to wait for the server's next bytes before giving up.
    pub read_timeout: Duration,
    /// Print the diff after the verdict.
    pub print_diff: bool,
    /// The repository, task and runner the run's copy uses.
    pub setup: Setup<'a>,
    /// The `--sandbox` given, kept in the record for replay.
    pub sandbox_choice: SandboxChoice,
    /// Where the run's trace goes (`--otel`, `[telemetry]`); `None`: nowhere, and nothing of
    /// telemetry runs.
    pub telemetry: Option<Telemetry>,
}

/// `mend run` from the command line: the repository, its task and the session the flags
/// describe, then [`run`].
pub fn command(args: &RunArgs, render: &mut dyn Render) -> Result<u8, MendError> {
    crate::interrupt::install();
    let resolved = args.common.setup.resolve(Recorded::default())?;
    let (repo, task) = (&resolved.repo, &resolved.task);
    let prompt = prompt(args.task.as_deref(), task)?;
    crate::workspace::survey::warn(repo, task)?;
    let config = Config {
        deadline: deadline(args.deadline),
        ..args.model.session_config(task, repo, prompt)
    };
    // Each setting from the room that owns it, the command's own first and the server's last.
    let options = RunOptions {
        telemetry: crate::telemetry::config::chosen(args.otel.as_deref(), &task.telemetry),
        record: record_target(args.record.as_deref(), &resolved.records, "")?,
        read_timeout: Duration::from_secs(args.model.server.read_timeout),
        print_diff: args.diff,
        setup: resolved.setup(args.common.setup.keep_workspace),
        sandbox_choice: resolved.sandbox_choice,
        api_key: api_key(config.protocol),
        base: server_base(args.model.server.host.as_deref(), config.protocol),
        config,
    };
    run(&options, render)
}

/// What `mend run` asks: `--task`, else the task file's prompt. Checked before the server is
/// asked anything.
pub fn prompt<'a>(flag: Option<&'a str>, task: &'a Task) -> Result<&'a str, MendError> {
    flag.or(task.prompt.as_deref()).ok_or_else(|| {
        MendError::usage(format!(
            "{} has no task.prompt: add one, or say what to do with --task \"...\"",
            task.origin
        ))
    })
}

/// Runs one repair live and records it: connects, runs the attempt, writes the record and the patch, shows the verdict; returns the exit code.
pub fn run(options: &RunOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let run_start = std::time::SystemTime::now();
    let connection = connect(
        &options.base,
        options.read_timeout,
        options.config.protocol,
        options.api_key.clone(),
        &options.config.model,
    )?;
    let (config, window) = connection.settle(options.config.clone());
    let config = &config;
    announce(render, "run", (config, &window), &connection);
    let setup = &options.setup;
    let file_sha256_before = test_and_editable_digests(setup.repo, setup.task)?;
    let server = connection.server_facts(setup.runner.sandbox.name());
    let origin = setup.origin(options.sandbox_choice);
    let begun = match begin(setup, render)? {
        Ok(begun) => begun,
        Err(unbegun) => {
            let settings = SessionSettings::of(config, &server, &origin);
            let record = (settings, file_sha256_before);
            return Err(ended_before_loop(&options.record, record, unbegun, render));
        }
    };
    let mut source = LiveSource {
        client: &connection.client,
    };
    let attempt = attempt_from(setup, begun, config.clone(), &mut source, render)?;

    let record = record_of(config, &server, &origin, &attempt, file_sha256_before);
    let kept = Kept {
        target: &options.record,
        record: &record,
        print_diff: options.print_diff,
        telemetry: options.telemetry.as_ref(),
        started: (run_start, attempt.loop_started_at),
    };
    finish(
        Finish {
            setup,
            ending: &attempt.checks.after,
            test_file_sha256_before: &record.test_file_sha256_before,
            came: Came::Live {
                stop: &attempt.transcript.stop,
                resumed: false,
                kept,
            },
            metrics: attempt.transcript.metrics.clone(),
        },
        render,
    )
}

/// What a live `command` (`run`, `chat`) talks to, and the window every request of it carries;
/// a chat's estimate is of the opening before the user's first message.
pub(crate) fn announce(
    render: &mut dyn Render,
    command: &str,
    (config, window): (&Config, &WindowChoice),
    connection: &Connection,
) {
    render.run_event(&RunEvent::RunStart {
        command: command.to_owned(),
        model: config.model.clone(),
        source: connection.described.clone(),
    });
    render.run_event(&RunEvent::ContextWindow {
        tokens: window.tokens,
        why: window.why.clone(),
        model_length: connection.model_length,
        first_request_tokens: crate::provider::window::first_request_estimate(config),
        before_message: command == "chat",
    });
}
