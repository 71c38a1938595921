//! The command line.

mod locate;

pub use locate::{replay_record, repository, DEMO_RECORD, LEGACY_REPO};

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, Parser, Subcommand, ValueEnum};
use mend_core::{Codec, Config};

use crate::error::MendError;
use crate::task::{Task, ToolName};
use crate::workspace::runner::TestRunner;
use crate::workspace::sandbox::{Sandbox, SandboxChoice};

pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  the run (or replay) completed, matched its record, and the final tests pass
  1  everything ran, but the independent final tests fail
  2  usage error: a bad flag or argument, a missing or malformed task file
  3  replay divergence: a tool result, the stop or the outcome differs from the record
  4  refused: the record is unreadable, or the repository changed since it was recorded
  5  model server error: unreachable, unknown model, HTTP error, broken stream
  6  harness error: Python or pytest missing, a file that could not be read or written
  130  interrupted by Ctrl-C (the record is still written, with stop `cancelled`)";

/// mend: a small, auditable coding-agent harness. A model proposes tool calls; mend runs the
/// accepted ones on a throwaway copy of the repository and returns every result to the
/// conversation; then an independent test run, not the model, says whether the repair holds.
#[derive(Debug, Parser)]
#[command(name = "mend", version, after_help = EXIT_CODES_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Repair the repository with a live model (Ollama, or an OpenAI- or Anthropic-compatible
    /// server), then record the run.
    #[command(after_help = EXIT_CODES_HELP)]
    Run(RunArgs),
    /// Talk with a model about a repository: each line you type is a message in one
    /// conversation, run on one throwaway copy; /diff, /verify and /save PATH act on that copy.
    /// The task file's rules apply; its prompt does not (you type the task).
    #[command(after_help = crate::commands::chat::CHAT_HELP)]
    Chat(ChatArgs),
    /// Replay a recorded run: its model streams go through the core again, while the tools and
    /// the tests run for real on a fresh copy of the repository. No model server is needed.
    #[command(after_help = EXIT_CODES_HELP)]
    Replay(ReplayArgs),
    /// Apply a recorded run's change to the original repository, only if the repository still
    /// matches what the run started from (and the result matches what it ended with).
    #[command(after_help = EXIT_CODES_HELP)]
    Apply {
        /// The record of the run whose change to apply.
        record: Utf8PathBuf,
        /// The repository to change [default: the repository the record was made on].
        #[arg(long)]
        repo: Option<Utf8PathBuf>,
        /// The task file [default: REPO/mend.toml].
        #[arg(long)]
        task_file: Option<Utf8PathBuf>,
    },
    /// Write a commented mend.toml for the repository from what it finds there (pytest and the
    /// project's venv, cargo, npm or go), and print what it guessed. Never overwrites one.
    #[command(after_help = EXIT_CODES_HELP)]
    Init {
        /// The project to write REPO/mend.toml in [default: the current folder].
        #[arg(long)]
        repo: Option<Utf8PathBuf>,
        /// Replace an existing mend.toml.
        #[arg(long)]
        force: bool,
    },
    /// Run a suite: k attempts per task under one budget, each an ordinary recorded run, with
    /// one results line per attempt (resumable, shardable); `mend eval report DIR...` gives
    /// pass@k. See evals/README.md.
    #[command(after_help = EXIT_CODES_HELP)]
    Eval(crate::eval::cli::EvalArgs),
    /// Show a record (a run or a chat): a summary here, or with --html one self-contained page
    /// (timeline, conversation, diff, tests, verdict, settings) that loads and runs nothing.
    #[command(after_help = EXIT_CODES_HELP)]
    Show {
        /// The record to show.
        record: Utf8PathBuf,
        /// Write the page to this file instead of printing the summary.
        #[arg(long, value_name = "OUT")]
        html: Option<Utf8PathBuf>,
    },
    /// Run the repository's tests once on a fresh copy and report the result.
    #[command(after_help = EXIT_CODES_HELP)]
    Verify(CommonArgs),
    /// Feed every recorded response in CAPTURES/ollama (NDJSON) and CAPTURES/openai (SSE)
    /// through mend's codecs and session, and check each against what the server meant.
    Conformance {
        /// The captures folder: `ollama/` (.ndjson streams), `openai/` (.sse streams), .json errors.
        #[arg(default_value = "../shared/captures")]
        captures: Utf8PathBuf,
    },
    /// Print what mend sends the model for a repository's task: the system prompt, the task and
    /// the tool schemas.
    Task {
        /// Print it as one JSON object.
        #[arg(long)]
        json: bool,
        /// The repository whose mend.toml to read [default: the current folder].
        #[arg(long)]
        repo: Option<Utf8PathBuf>,
        /// The task file [default: REPO/mend.toml].
        #[arg(long)]
        task_file: Option<Utf8PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct RunArgs {
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
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub setup: RepoArgs,
    /// Where to record the conversation, rewritten after every message [default:
    /// REPO/.mend/chat-<UTC timestamp>.json].
    #[arg(long)]
    pub record: Option<Utf8PathBuf>,
}

/// Which model, where, and how each session talks to it: shared by `run` and `chat`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The protocol of the model server: Ollama's own API, OpenAI-compatible chat completions
    /// (llama-server, vLLM, LM Studio, Ollama's /v1), or Anthropic's Messages API [default: the
    /// task file's model.provider, else ollama].
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// The model to use [default: the task file's model.name, else gemma4:e2b].
    #[arg(long)]
    pub model: Option<String>,
    /// The server, in OLLAMA_HOST's syntax [default: $OLLAMA_HOST, else http://127.0.0.1:11434;
    /// with --provider openai: $OPENAI_BASE_URL, else https://api.openai.com/v1; with
    /// --provider anthropic: $ANTHROPIC_BASE_URL, else https://api.anthropic.com]. Keys come
    /// from OPENAI_API_KEY / ANTHROPIC_API_KEY and are never printed or recorded.
    #[arg(long)]
    pub host: Option<String>,
    /// How many model requests a run (in chat: each message) may send [default: the task
    /// file's model.max_turns, else 8].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Seconds to wait for each piece of the server's answer before giving up.
    #[arg(long, default_value_t = 120, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub read_timeout: u64,
    /// Ask the model not to think (for models without thinking support).
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
    /// The model: the flag, else the task file's, else the default.
    pub fn model_name(&self, task: &Task) -> String {
        self.model
            .clone()
            .or_else(|| task.model.clone())
            .unwrap_or_else(|| crate::task::DEFAULT_MODEL.to_owned())
    }

    pub fn max_turns(&self, task: &Task) -> u32 {
        self.max_turns
            .or(task.max_turns)
            .unwrap_or(mend_core::DEFAULT_MAX_TURNS)
    }

    /// The session these flags and the task file describe, asking `prompt` in `repo`.
    pub fn session_config(&self, task: &Task, repo: &Utf8Path, prompt: &str) -> Config {
        Config {
            codec: Provider::chosen(self.provider, task),
            max_turns: self.max_turns(task),
            think: !self.no_think,
            context: self
                .context
                .then(|| crate::commands::run::context_config(repo)),
            ..Config::new(
                &self.model_name(task),
                &task.system_prompt,
                prompt,
                crate::tools::table::offered_tools(task, self.context),
            )
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    Ollama,
    Openai,
    Anthropic,
}

impl Provider {
    /// `--provider`, else the task file's, else Ollama.
    pub fn chosen(flag: Option<Provider>, task: &Task) -> Codec {
        match (
            flag,
            task.provider.as_deref().and_then(Codec::from_provider),
        ) {
            (Some(flag), _) => flag.codec(),
            (None, Some(codec)) => codec,
            (None, None) => Codec::OllamaNdjson,
        }
    }

    pub fn codec(self) -> Codec {
        match self {
            Provider::Ollama => Codec::OllamaNdjson,
            Provider::Openai => Codec::OpenaiSse,
            Provider::Anthropic => Codec::AnthropicSse,
        }
    }
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The record to replay (`mend run` writes them to REPO/.mend/) [default: fixtures/repair.json,
    /// the recorded repair, when run in the mend checkout].
    pub record: Option<Utf8PathBuf>,
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
    #[command(flatten)]
    pub setup: RepoArgs,
    /// Print one JSON event per line (schema: docs/events.md) instead of readable text.
    #[arg(long)]
    pub json: bool,
}

/// The repository, its task file, and where its code runs.
#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The repository to work on; it is copied, never modified [default: for replay, the
    /// repository the record was made on; else the current folder].
    #[arg(long)]
    pub repo: Option<Utf8PathBuf>,
    /// The task file: what to ask, which files the tools may touch, how the tests run
    /// [default: REPO/mend.toml]. See docs/task-file.md.
    #[arg(long, value_name = "PATH")]
    pub task_file: Option<Utf8PathBuf>,
    /// The Python that runs the tests [default: for replay, the one the record was made with;
    /// else $MEND_PYTHON, else REPO/.venv/bin/python, REPO/venv/bin/python, $VIRTUAL_ENV's
    /// python, python3].
    #[arg(long)]
    pub python: Option<Utf8PathBuf>,
    /// Keep the temporary copy after the run and print its path.
    #[arg(long)]
    pub keep_workspace: bool,
    /// Where the repository's tests run: `auto` uses bubblewrap when it works here, else a
    /// network namespace, else no sandbox (with a loud warning) [default: for replay, the
    /// record's; else auto].
    #[arg(long, value_enum)]
    pub sandbox: Option<SandboxChoice>,
}

/// What a record says about where it was made; replay reuses each unless a flag overrides it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Recorded<'a> {
    pub repo: Option<&'a str>,
    pub python: Option<&'a str>,
    pub sandbox: Option<SandboxChoice>,
}

impl<'a> Recorded<'a> {
    pub fn of(settings: &'a crate::record::SessionSettings) -> Recorded<'a> {
        Recorded {
            // Records made before records named their repository are the sample's.
            repo: Some(settings.repo.as_deref().unwrap_or(LEGACY_REPO)),
            python: settings.python.as_deref(),
            sandbox: settings
                .sandbox_choice
                .as_deref()
                .and_then(|name| SandboxChoice::from_str(name, true).ok()),
        }
    }
}

/// The repository, its task and where its tests run, as the flags (and a record) decided.
pub struct Resolved {
    pub repo: Utf8PathBuf,
    pub task: Task,
    pub runner: TestRunner,
    pub sandbox_choice: SandboxChoice,
}

impl Resolved {
    /// Where this run is made, as a record keeps it.
    pub fn origin(&self) -> crate::record::Origin<'_> {
        crate::record::Origin {
            repo: &self.repo,
            python: &self.runner.python,
            sandbox_choice: self.sandbox_choice,
        }
    }
}

impl RepoArgs {
    /// `--repo`, else the repository a record names, else the current folder; checked to be a
    /// folder.
    pub fn repo(&self, recorded: Option<&str>) -> Result<Utf8PathBuf, MendError> {
        repository(self.repo.as_deref(), recorded)
    }

    /// The repository, its task file (loaded and checked) and a runner fit for it: a task that
    /// enables `shell` needs a sandbox.
    pub fn resolve(&self, recorded: Recorded) -> Result<Resolved, MendError> {
        let repo = self.repo(recorded.repo)?;
        let task = Task::locate(&repo, self.task_file.as_deref())?;
        let python =
            crate::workspace::interpreter::choose(self.python.as_deref(), recorded.python, &repo)?
                .path;
        let sandbox_choice = self
            .sandbox
            .or(recorded.sandbox)
            .unwrap_or(SandboxChoice::Auto);
        let sandbox = Sandbox::resolve(sandbox_choice)?;
        let runner = TestRunner::for_task(python, sandbox, &task, &repo)?;
        if task.offers(ToolName::Shell) && runner.sandbox == Sandbox::Unsandboxed {
            return Err(MendError::usage(format!(
                "{} enables the shell tool, which runs only inside a sandbox, and none is available here \
                 — install bubblewrap (`apt-get install bubblewrap`) or remove `shell` from tools.enabled",
                task.origin
            )));
        }
        Ok(Resolved {
            repo,
            task,
            runner,
            sandbox_choice,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::EXIT_CODES_HELP;
    use crate::error::ALL_EXIT_CODES;

    #[test]
    fn help_documents_every_exit_code_once_in_order() {
        let documented: Vec<u8> = EXIT_CODES_HELP
            .lines()
            .skip(1)
            .filter_map(|line| line.split_whitespace().next()?.parse().ok())
            .collect();
        let defined: Vec<u8> = ALL_EXIT_CODES.iter().map(|(code, _)| *code).collect();
        assert_eq!(documented, defined);
    }
}
