//! `mend run`: a live attempt against a model server (Ollama, or any OpenAI- or
//! Anthropic-compatible one), recorded so it can be replayed.

use std::time::Duration;

use camino::Utf8Path;
use mend_core::{Codec, Config, ContextConfig, Stop, StopReason};

use crate::commands::outcome::{report_outcome, write_record, Outcome};
use crate::error::{exit, MendError};
use crate::provider::client::{Client, LiveSource, Secret};
use crate::provider::host::BaseUrl;
use crate::provider::window::{self, WindowChoice};
use crate::record::target::RecordTarget;
use crate::record::{Ending, Message, Origin, Record, ServerFacts, SessionSettings, RECORD_FORMAT};
use crate::session::attempt::{run_attempt, Attempt, Setup};
use crate::session::render::{Render, RunEvent};
use crate::task::Task;
use crate::workspace::changes::file_digests;
use crate::workspace::sandbox::SandboxChoice;

pub struct RunOptions<'a> {
    /// The session to run: model, provider, prompts, tools, budgets.
    pub config: Config,
    pub base: BaseUrl,
    pub api_key: Option<Secret>,
    /// `--record`, else a new file in `REPO/.mend/`.
    pub record: RecordTarget,
    pub read_timeout: Duration,
    /// Print the diff after the verdict.
    pub print_diff: bool,
    pub setup: Setup<'a>,
    /// The `--sandbox` given, kept in the record for replay.
    pub sandbox_choice: SandboxChoice,
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

/// `--host`, else the provider's usual variable (`OLLAMA_HOST`, `OPENAI_BASE_URL`,
/// `ANTHROPIC_BASE_URL`), else its usual address; always connectable.
pub fn server_base(host: Option<&str>, codec: Codec) -> BaseUrl {
    let (variable, default) = match codec {
        Codec::OllamaNdjson => ("OLLAMA_HOST", ""),
        Codec::OpenaiSse => ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        Codec::AnthropicSse => ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    };
    let from_env = std::env::var(variable).ok();
    BaseUrl::parse(host.or(from_env.as_deref()).unwrap_or(default)).connectable()
}

/// The provider's API key from its usual variable, if set. Only ever sent as a header.
pub fn api_key(codec: Codec) -> Option<Secret> {
    let variable = match codec {
        Codec::OllamaNdjson => return None,
        Codec::OpenaiSse => "OPENAI_API_KEY",
        Codec::AnthropicSse => "ANTHROPIC_API_KEY",
    };
    std::env::var(variable).ok().and_then(Secret::new)
}

/// What the per-turn hint says about where the run is: the repository's folder name and the OS.
pub fn context_config(repo: &Utf8Path) -> ContextConfig {
    ContextConfig {
        workdir: repo.file_name().unwrap_or("repository").to_owned(),
        os: std::env::consts::OS.to_owned(),
    }
}

/// A client for the model server, checked before any work starts: Ollama must answer with its
/// version and know the model; other servers show themselves at the first request.
pub struct Connection {
    pub client: Client,
    pub server_version: Option<String>,
    pub model_digest: Option<String>,
    /// `Ollama 0.33.0 at http://…`, for the user.
    pub described: String,
    /// The model's context length, when the server states it.
    pub model_length: Option<u64>,
}

impl Connection {
    /// `config` with its context window: the one it was given (`--num-ctx`, the task file's
    /// `num_ctx`), else the one chosen from what the server says of the model.
    pub fn settle_window(&self, config: Config) -> (Config, WindowChoice) {
        let requested = config.window.map(|window| window.tokens);
        let choice = window::choose(requested, config.codec, self.model_length);
        (window::with_window(config, choice.tokens), choice)
    }
}

pub fn connect(
    base: &BaseUrl,
    read_timeout: Duration,
    codec: Codec,
    api_key: Option<Secret>,
    model: &str,
) -> Result<Connection, MendError> {
    let client = Client::new(base.clone(), read_timeout, api_key);
    let (server_version, model_digest) = match codec {
        Codec::OllamaNdjson => (Some(client.version()?), Some(client.digest(model)?)),
        _ => (None, None),
    };
    let model_length = window::model_length(&client, codec, model);
    let described = match &server_version {
        Some(version) => format!("Ollama {version} at {}", client.base()),
        None => format!("{} server at {}", codec.provider(), client.base()),
    };
    Ok(Connection {
        client,
        server_version,
        model_digest,
        described,
        model_length,
    })
}

pub fn run(options: &RunOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let connection = connect(
        &options.base,
        options.read_timeout,
        options.config.codec,
        options.api_key.clone(),
        &options.config.model,
    )?;
    let (config, window) = connection.settle_window(options.config.clone());
    let config = &config;
    let Connection {
        client,
        server_version,
        model_digest,
        described,
        model_length,
    } = connection;
    render.run_event(&RunEvent::RunStart {
        command: "run".to_owned(),
        model: config.model.clone(),
        source: described,
    });
    render.run_event(&RunEvent::ContextWindow {
        tokens: window.tokens,
        why: window.why,
        model_length,
    });
    let setup = &options.setup;
    let mut file_sha256_before = file_digests(setup.repo, &setup.task.test.files)?;
    file_sha256_before.extend(file_digests(setup.repo, &setup.task.editable)?);
    let mut source = LiveSource { client: &client };
    let attempt = run_attempt(&options.setup, config.clone(), &mut source, render)?;

    let server = ServerFacts {
        model_digest,
        server_version,
        model_length,
        sandbox: options.setup.runner.sandbox.name(),
    };
    let origin = Origin {
        repo: setup.repo,
        python: &setup.runner.python,
        sandbox_choice: options.sandbox_choice,
    };
    let record = record_of(config, &server, &origin, &attempt, file_sha256_before);
    // The names actually written: a new record never replaces another run's.
    let written = write_record(&options.record, &record, &attempt.checks.diff)?;
    let exit_code = exit_code(&attempt.transcript.stop, attempt.checks.passed());
    render.run_event(&RunEvent::Verdict {
        tests_pass: attempt.checks.passed(),
        sandbox: options.setup.runner.sandbox.name().to_owned(),
        replay_matched: None,
        stop_reason: attempt.transcript.stop.reason.to_string(),
        exit_code,
        metrics: attempt.transcript.metrics.clone(),
        record: Some(written.record.to_string()),
        patch: written.patch.as_ref().map(ToString::to_string),
    });
    report_outcome(
        &Outcome {
            written: &written,
            test_files_changed: attempt.checks.test_files_changed(),
            task: options.setup.task,
            diff: &attempt.checks.diff,
            print_diff: options.print_diff,
            stop: &attempt.transcript.stop,
            model: &config.model,
            exit_code,
        },
        render,
    );
    Ok(exit_code)
}

/// The record of a finished attempt (`mend run`, and each attempt of `mend eval`): a
/// conversation of one message, the task.
pub fn record_of(
    config: &Config,
    server: &ServerFacts,
    origin: &Origin,
    attempt: &Attempt,
    file_sha256_before: std::collections::BTreeMap<String, String>,
) -> Record {
    let checks = &attempt.checks;
    Record {
        format: RECORD_FORMAT.to_owned(),
        description: None,
        settings: SessionSettings::of(config, server, origin),
        messages: vec![Message {
            text: Some(config.task.clone()),
            max_turns: None,
            deadline_ms: None,
            turns: attempt.transcript.turns.clone(),
            tool_calls: attempt.transcript.tool_calls.clone(),
            stop: attempt.transcript.stop.clone(),
        }],
        test_file_sha256_before: checks.test_file_sha256_before.clone(),
        source_sha256_before: checks.source_sha256_before.clone(),
        tests_before: Some(checks.tests_before.clone()),
        ending: Some(Ending::of(checks)),
        file_sha256_before,
        metrics: Some(attempt.transcript.metrics.clone()),
        resumed_from: None,
    }
}

/// A broken model turn is the server's failure whatever the tests say; otherwise the verdict.
pub fn exit_code(stop: &Stop, passed: bool) -> u8 {
    match stop.reason {
        StopReason::Cancelled => exit::INTERRUPTED,
        StopReason::ModelError | StopReason::IncompleteModelTurn | StopReason::ContextExceeded => {
            exit::MODEL
        }
        _ if passed => exit::PASS,
        _ => exit::TESTS_FAIL,
    }
}
