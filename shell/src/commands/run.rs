//! `mend run`: a live attempt against a model server (Ollama, or any OpenAI- or
//! Anthropic-compatible one), recorded so it can be replayed.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::internal::server_message;
use mend_core::{Codec, Config, ContextConfig, Stop, StopCause, StopReason, TransportError};

use crate::error::{exit, MendError};
use crate::provider::client::{Client, LiveSource, Secret};
use crate::provider::host::BaseUrl;
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
    pub record: Utf8PathBuf,
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
    let described = match &server_version {
        Some(version) => format!("Ollama {version} at {}", client.base()),
        None => format!("{} server at {}", codec.provider(), client.base()),
    };
    Ok(Connection {
        client,
        server_version,
        model_digest,
        described,
    })
}

pub fn run(options: &RunOptions, render: &mut dyn Render) -> Result<u8, MendError> {
    let config = &options.config;
    let Connection {
        client,
        server_version,
        model_digest,
        described,
    } = connect(
        &options.base,
        options.read_timeout,
        config.codec,
        options.api_key.clone(),
        &config.model,
    )?;
    render.run_event(&RunEvent::RunStart {
        command: "run".to_owned(),
        model: config.model.clone(),
        source: described,
    });
    let setup = &options.setup;
    let mut file_sha256_before = file_digests(setup.repo, &setup.task.test.files)?;
    file_sha256_before.extend(file_digests(setup.repo, &setup.task.editable)?);
    let mut source = LiveSource { client: &client };
    let attempt = run_attempt(&options.setup, config.clone(), &mut source, render)?;

    let server = ServerFacts {
        model_digest,
        server_version,
        sandbox: options.setup.runner.sandbox.name(),
    };
    let origin = Origin {
        repo: setup.repo,
        python: &setup.runner.python,
        sandbox_choice: options.sandbox_choice,
    };
    let record = record_of(config, &server, &origin, &attempt, file_sha256_before);
    record.write_atomically(&options.record)?;
    let exit_code = exit_code(&attempt.transcript.stop, attempt.checks.passed());
    render.run_event(&RunEvent::Verdict {
        tests_pass: attempt.checks.passed(),
        sandbox: options.setup.runner.sandbox.name().to_owned(),
        replay_matched: None,
        stop_reason: attempt.transcript.stop.reason.to_string(),
        exit_code,
        metrics: attempt.transcript.metrics.clone(),
    });
    report_outcome(
        &Outcome {
            record: &options.record,
            test_files_changed: attempt.checks.test_files_changed(),
            task: options.setup.task,
            diff: &attempt.checks.diff,
            print_diff: options.print_diff,
            stop: &attempt.transcript.stop,
            model: &config.model,
            exit_code,
        },
        render,
    )?;
    Ok(exit_code)
}

/// What a live session left to say after its verdict (`mend run`, `mend resume`).
pub struct Outcome<'a> {
    pub record: &'a Utf8Path,
    pub test_files_changed: bool,
    pub task: &'a Task,
    pub diff: &'a str,
    pub print_diff: bool,
    pub stop: &'a Stop,
    pub model: &'a str,
    pub exit_code: u8,
}

/// Says where the record is, writes the patch next to it, and explains a model failure.
pub fn report_outcome(outcome: &Outcome, render: &mut dyn Render) -> Result<(), MendError> {
    report_record(outcome.record);
    if outcome.test_files_changed {
        eprintln!(
            "mend: the run changed the task's test files ({}), so its final tests do not count as a pass",
            outcome.task.test.files.listed("and")
        );
    }
    if !outcome.diff.is_empty() {
        let patch = outcome.record.with_extension("patch");
        crate::record::patch::write_atomically(&patch, outcome.diff)?;
        eprintln!(
            "mend: the change is in {patch} (apply it with `mend apply {}`)",
            outcome.record
        );
        if outcome.print_diff {
            render.run_event(&RunEvent::Diff {
                text: outcome.diff.to_owned(),
            });
        }
    }
    if outcome.exit_code == exit::MODEL {
        eprintln!("mend: error: {}", explain_stop(outcome.stop, outcome.model));
    }
    Ok(())
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
        StopReason::ModelError | StopReason::IncompleteModelTurn => exit::MODEL,
        _ if passed => exit::PASS,
        _ => exit::TESTS_FAIL,
    }
}

/// A model stop in words, with the fix for the failures a user can do something about (WIRE.md
/// §4). The hint rests on the stop's typed cause; only the server's own message is read as text.
pub fn explain_stop(stop: &Stop, model: &str) -> String {
    let detail = stop
        .detail
        .as_deref()
        .unwrap_or("the model's turn did not complete");
    let server_said = match &stop.cause {
        Some(StopCause::Transport(TransportError::Http { status, body })) => {
            Some((*status, server_message(body)))
        }
        _ => None,
    };
    let hint = match (&stop.cause, &server_said) {
        (Some(StopCause::TokenLimit), _) => {
            return format!(
                "the model ran out of tokens: {detail} — the answer exceeded num_predict"
            )
        }
        (_, Some((404, message))) if message.contains("not found") => {
            format!(" — run `ollama pull {model}`")
        }
        (_, Some((_, message))) if message.contains("does not support tools") => {
            " — choose a model with tool support (see `ollama show MODEL`)".to_owned()
        }
        (_, Some((_, message))) if message.contains("does not support thinking") => {
            " — pass --no-think".to_owned()
        }
        _ => String::new(),
    };
    format!("the model server failed: {detail}{hint}")
}

fn report_record(path: &Utf8Path) {
    eprintln!("mend: record written to {path} (replay it with `mend replay {path}`)");
}

#[cfg(test)]
mod tests {
    use mend_core::{Stop, StopCause, StopReason, TransportError};

    use super::explain_stop;

    fn stop(reason: StopReason, detail: &str, cause: Option<StopCause>) -> Stop {
        Stop {
            reason,
            detail: Some(detail.to_owned()),
            cause,
        }
    }

    #[test]
    fn the_hint_rests_on_the_typed_cause_not_on_the_words() {
        let http = |status: u16, body: &str| {
            Some(StopCause::Transport(TransportError::Http {
                status,
                body: body.to_owned(),
            }))
        };
        let stops = [
            stop(
                StopReason::ModelError,
                "HTTP 404: model 'm' not found",
                http(404, r#"{"error":"model 'm' not found"}"#),
            ),
            stop(
                StopReason::ModelError,
                "HTTP 400: m does not support tools",
                http(400, r#"{"error":"m does not support tools"}"#),
            ),
            // The words alone, without the typed cause (an error line mid-stream), give no hint.
            stop(
                StopReason::ModelError,
                "the server reported an error mid-stream: HTTP 404 model not found",
                None,
            ),
            stop(
                StopReason::IncompleteModelTurn,
                "the model's output was cut off by the token limit (done_reason: length)",
                Some(StopCause::TokenLimit),
            ),
        ];
        assert_eq!(
            stops.map(|stop| explain_stop(&stop, "m")),
            [
                "the model server failed: HTTP 404: model 'm' not found — run `ollama pull m`",
                "the model server failed: HTTP 400: m does not support tools — choose a model with tool support (see `ollama show MODEL`)",
                "the model server failed: the server reported an error mid-stream: HTTP 404 model not found",
                "the model ran out of tokens: the model's output was cut off by the token limit (done_reason: length) — the answer exceeded num_predict",
            ]
            .map(str::to_owned)
        );
    }
}
