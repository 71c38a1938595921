//! The argument groups the commands share (model, repository, replay), and the choices they
//! make: what those resolve to is `crate::setup`'s. Kept apart from the command enum so that
//! `eval.rs` beside it can use them without importing the file that imports it.

use camino::{Utf8Path, Utf8PathBuf};
use clap::Args;
use mend_core::{Config, Protocol};

use crate::error::MendError;
use crate::exec::sandbox::SandboxChoice;
use crate::setup::config::ModelChoice;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::task::Task;

/// `mend run`'s arguments.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Which model, where, and each session's budgets.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The task given to the model [default: the task file's task.prompt].
    #[arg(long)]
    pub task: Option<String>,
    /// Where to write the record [default: REPO/.mend/<UTC timestamp>.json].
    #[arg(long)]
    pub record: Option<Utf8PathBuf>,
    /// Wall-clock budget of the model loop, in seconds; the run then stops with
    /// deadline_exceeded.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub deadline: Option<u64>,
    /// Print the run's diff at the end (it is always written next to the record as a .patch).
    #[arg(long)]
    pub diff: bool,
    /// Send the run's OpenTelemetry trace to this OTLP/HTTP endpoint (e.g.
    /// http://127.0.0.1:4318) [default: the task file's telemetry.otlp_endpoint, else none].
    #[arg(long, value_name = "ENDPOINT")]
    pub otel: Option<String>,
    /// The repository, its task file, the sandbox and the output's form.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `mend chat`'s arguments.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Which model, where, and each message's budgets.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The repository, its task file and the sandbox.
    #[command(flatten)]
    pub setup: RepoArgs,
    /// Where to record the conversation, rewritten after every message [default:
    /// REPO/.mend/chat-<UTC timestamp>.json].
    #[arg(long)]
    pub record: Option<Utf8PathBuf>,
    /// Send the conversation's OpenTelemetry trace (one, at its end) to this OTLP/HTTP
    /// endpoint [default: the task file's telemetry.otlp_endpoint, else none].
    #[arg(long, value_name = "ENDPOINT")]
    pub otel: Option<String>,
}

/// Which model, where, and how each session talks to it: shared by `run` and `chat`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The protocol of the model server: Ollama's own API, OpenAI-compatible chat completions
    /// (llama-server, vLLM, LM Studio, Ollama's /v1), or Anthropic's Messages API [default: the
    /// task file's model.protocol, else ollama]. `--provider` is its older name.
    #[arg(long, alias = "provider", value_name = "PROTOCOL", value_parser = crate::task::protocol::flag())]
    pub protocol: Option<Protocol>,
    /// The model to use [default: the task file's model.name, else gemma4:e2b].
    #[arg(long)]
    pub model: Option<String>,
    /// The server's address and how long to wait on it.
    #[command(flatten)]
    pub server: ServerArgs,
    /// How many model requests a run (in chat: each message) may send [default: the task
    /// file's model.max_turns, else 8].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// The context window of every request, in tokens (Ollama's num_ctx) [default: the task
    /// file's model.num_ctx, else the model's own length up to 16384 with Ollama, the window an
    /// OpenAI-compatible server states (else 8192), 200000 with Anthropic].
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(i64::from(mend_core::MIN_WINDOW_TOKENS)..))]
    pub num_ctx: Option<u32>,
    /// Seconds the server keeps the model loaded after each request, so the next turn finds it
    /// and its prompt cache warm; 0 unloads it after every request (each turn starts cold)
    /// [default: the task file's model.keep_alive, else 300, Ollama's own]. Sent as Ollama's
    /// keep_alive.
    #[arg(long, value_name = "SECS")]
    pub keep_alive: Option<u64>,
    /// Whether and how hard the model thinks: on, off, or a level for models that take one
    /// (low, medium, high, as gpt-oss does) [default: the task file's model.think, else on].
    /// Sent as Ollama's think, an OpenAI-compatible server's reasoning_effort and
    /// chat_template_kwargs, Anthropic's thinking budget.
    #[arg(long, value_name = "LEVEL", value_parser = think_level, conflicts_with = "no_think")]
    pub think: Option<mend_core::Think>,
    /// Ask the model not to think (the same as --think off).
    #[arg(long)]
    pub no_think: bool,
    /// End each request with a short system hint (folder, OS, turn, tool results so far, the
    /// model's TODO list) and offer a `todo` tool that mend answers itself.
    #[arg(long)]
    pub context: bool,
    /// Show the model's reasoning as it streams (human output only).
    #[arg(long)]
    pub thinking: bool,
}

impl ModelArgs {
    /// The model choices these flags make.
    pub fn choice(&self) -> ModelChoice {
        ModelChoice {
            protocol: self.protocol,
            model: self.model.clone(),
            max_turns: self.max_turns,
            num_ctx: self.num_ctx,
            keep_alive: self.keep_alive,
            think: if self.no_think {
                Some(mend_core::Think::Off)
            } else {
                self.think
            },
            context: self.context,
        }
    }

    /// The session these flags and the task file describe, asking `prompt` in `repo`.
    pub fn session_config(&self, task: &Task, repo: &Utf8Path, prompt: &str) -> Config {
        self.choice().session_config(task, repo, prompt)
    }
}

/// Where the model server is and how long to wait on it: shared by `run`, `chat` and `resume`.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The server, in OLLAMA_HOST's syntax [default: $OLLAMA_HOST, else http://127.0.0.1:11434;
    /// with --protocol openai: $OPENAI_BASE_URL, else https://api.openai.com/v1; with
    /// --protocol anthropic: $ANTHROPIC_BASE_URL, else https://api.anthropic.com]. Keys come
    /// from OPENAI_API_KEY / ANTHROPIC_API_KEY and are never printed or recorded.
    #[arg(long)]
    pub host: Option<String>,
    /// Seconds to wait for each piece of the server's answer before giving up.
    #[arg(long, default_value_t = READ_TIMEOUT_SECONDS, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub read_timeout: u64,
}

/// `--read-timeout` when not given: a slow machine's first token of a large prompt arrives
/// well within it.
pub(crate) const READ_TIMEOUT_SECONDS: u64 = 120;

/// `mend resume`: a recorded run or chat, replayed and then continued live. The model, its
/// settings and the prompts are the record's.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The record to continue (a run or a chat, of any format mend wrote); it is only read.
    pub record: Utf8PathBuf,
    /// What to tell the model next. Needed for a session that finished (the model said it was
    /// done, or failed); one cut by Ctrl-C, its deadline or max_turns goes on without it.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    /// How many model requests the resumed part may send [default: the record's max_turns].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Wall-clock budget of the resumed part, in seconds.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub deadline: Option<u64>,
    /// Where to write the new record (the old one's messages, then the new ones); never the
    /// record being resumed [default: REPO/.mend/<UTC timestamp>.json].
    #[arg(long, value_name = "PATH")]
    pub out: Option<Utf8PathBuf>,
    /// Print the diff at the end (it is always written next to the new record as a .patch).
    #[arg(long)]
    pub diff: bool,
    /// Show the model's reasoning as it streams (human output only).
    #[arg(long)]
    pub thinking: bool,
    /// Send the resumed run's OpenTelemetry trace (the whole new record: its replayed messages
    /// and the live ones) to this OTLP/HTTP endpoint [default: the task file's
    /// telemetry.otlp_endpoint, else none].
    #[arg(long, value_name = "ENDPOINT")]
    pub otel: Option<String>,
    /// The server the new messages go to, and how long to wait on it.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The repository, its task file, the sandbox and the output's form.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `mend replay`'s arguments.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The record to replay (`mend run` writes them to REPO/.mend/) [default: fixtures/repair.json,
    /// the recorded repair, when run in the mend checkout].
    pub record: Option<Utf8PathBuf>,
    /// The repository, its task file, the sandbox and the output's form; each defaults to the record's.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Show the model's reasoning as it streams (human output only).
    #[arg(long)]
    pub thinking: bool,
    /// Rewrite the record's observed fields (tool results, stop, tests, hashes) from this replay.
    /// For authoring fixtures: the streams stay as written.
    #[arg(long)]
    pub bless: bool,
}

/// What the commands that work on a copy share, and how they print.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// The repository, its task file and the sandbox.
    #[command(flatten)]
    pub setup: RepoArgs,
    /// Print one JSON event per line (schema: docs/events.md) instead of readable text.
    #[arg(long)]
    pub json: bool,
}

/// The repository, its task file, and where its code runs.
#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The repository to work on; it is copied, never modified [default: for replay and
    /// resume, the repository the record was made on; else the current folder].
    #[arg(long)]
    pub repo: Option<Utf8PathBuf>,
    /// The task file: what to ask, which files the tools may touch, how the tests run
    /// [default: REPO/mend.toml]. See docs/task-file.md.
    #[arg(long, value_name = "PATH")]
    pub task_file: Option<Utf8PathBuf>,
    /// The Python that runs the tests [default: for replay and resume, the one the record was
    /// made with; else $MEND_PYTHON, else REPO/.venv/bin/python, REPO/venv/bin/python,
    /// $VIRTUAL_ENV's python, python3].
    #[arg(long)]
    pub python: Option<Utf8PathBuf>,
    /// Keep the temporary copy after the run and print its path.
    #[arg(long)]
    pub keep_workspace: bool,
    /// The sandbox, the image cache and whether to run on the host.
    #[command(flatten)]
    pub place: PlaceArgs,
}

/// Where a task's commands run: the sandbox, and the images task files name. Declared once for
/// every command that runs a task's tests (run, verify, eval, eval check…), so a flag means the
/// same everywhere.
#[derive(Debug, Clone, Args)]
pub struct PlaceArgs {
    /// Where the repository's tests run: `auto` uses bubblewrap when it works here, else a
    /// network namespace, else no sandbox (with a loud warning) [default: for replay and
    /// resume, the record's; else auto].
    #[arg(long, value_enum)]
    pub sandbox: Option<SandboxChoice>,
    /// Where images are unpacked, once per machine, and shared by every run and worker
    /// [default: $XDG_CACHE_HOME/mend/images, else ~/.cache/mend/images].
    #[arg(long, value_name = "DIR")]
    pub image_cache: Option<Utf8PathBuf>,
    /// Run the task's commands on this machine's files even when its task file names an image:
    /// for a pod (or job) started from the task's own image, where mend already is inside it.
    #[arg(long)]
    pub on_host: bool,
}

impl RepoArgs {
    /// The choices these flags make.
    pub fn choice(&self) -> RepoChoice {
        RepoChoice {
            repo: self.repo.clone(),
            task_file: self.task_file.clone(),
            python: self.python.clone(),
            sandbox: self.place.sandbox,
            image_cache: self.place.image_cache.clone(),
            on_host: self.place.on_host,
            default_environment: None,
        }
    }

    /// The repository, its task file (loaded and checked) and a runner fit for it.
    pub fn resolve(&self, recorded: Recorded) -> Result<Resolved, MendError> {
        self.choice().resolve(recorded)
    }
}

/// `--think`'s value: one of the names [`mend_core::Think::name`] gives.
fn think_level(value: &str) -> Result<mend_core::Think, UnknownThink> {
    mend_core::Think::from_name(value).ok_or_else(|| UnknownThink(value.to_owned()))
}

/// A `--think` value that names no level (clap says it as a usage error, exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnknownThink(String);

impl std::fmt::Display for UnknownThink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not a thinking level: use on, off, low, medium or high",
            self.0
        )
    }
}

impl std::error::Error for UnknownThink {}
