//! The argument groups the commands share (model, repository, replay), and what they resolve
//! to. Kept apart from the command enum so that `eval.rs` beside it can use them without
//! importing the file that imports it.

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, ValueEnum};
use mend_core::{Config, ContextConfig, Millis, Protocol};

use super::locate::repository;
use crate::error::MendError;
use crate::exec::image::{ImageCache, ImageRun};
use crate::record::settings::LEGACY_REPO;
use crate::session::attempt::Setup;
use crate::task::{Environment, Task, ToolName};
use crate::workspace::runner::TestRunner;
use crate::workspace::sandbox::{Sandbox, SandboxChoice};

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
    /// task file's model.protocol, else ollama]. `--provider` is its older name.
    #[arg(long, alias = "provider", value_name = "PROTOCOL", value_parser = crate::task::protocol::flag())]
    pub protocol: Option<Protocol>,
    /// The model to use [default: the task file's model.name, else gemma4:e2b].
    #[arg(long)]
    pub model: Option<String>,
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
        let config = Config {
            protocol: chosen_protocol(self.protocol, task),
            max_turns: self.max_turns(task),
            think: !self.no_think,
            context: self.context.then(|| context_config(repo)),
            text_tool_calls: task.text_tool_calls,
            instructions: task.instructions.as_ref().map(|found| found.message()),
            ..Config::new(
                &self.model_name(task),
                &task.system_prompt,
                prompt,
                crate::tools::table::offered_tools(task, self.context),
            )
        };
        // A window given here is final; otherwise the server is asked once connected.
        match self.num_ctx.or(task.num_ctx) {
            Some(tokens) => crate::provider::window::with_window(config, tokens),
            None => config,
        }
    }
}

/// What the per-turn hint says about where the run is: the repository's folder name and the OS.
fn context_config(repo: &Utf8Path) -> ContextConfig {
    ContextConfig {
        workdir: repo.file_name().unwrap_or("repository").to_owned(),
        os: std::env::consts::OS.to_owned(),
    }
}

/// `--deadline SECS` as the core counts it.
pub fn deadline(seconds: Option<u64>) -> Option<Millis> {
    seconds.map(|seconds| Millis(seconds.saturating_mul(1000)))
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
    #[arg(long, default_value_t = 120, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub read_timeout: u64,
}

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
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `--protocol`, else the task file's, else Ollama.
pub fn chosen_protocol(flag: Option<Protocol>, task: &Task) -> Protocol {
    flag.or(task.protocol).unwrap_or_default()
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
    /// The suite's `[environment]`, for a task file that names none.
    #[arg(skip)]
    pub default_environment: Option<Environment>,
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
    /// Where records go when no flag names a file (`.mend/` in it): the repository, or the task
    /// file's folder when the repository is the image's (the shared cache is never written).
    pub records: Utf8PathBuf,
    pub task: Task,
    pub runner: TestRunner,
    pub sandbox_choice: SandboxChoice,
}

impl Resolved {
    /// What one attempt on this repository needs.
    pub fn setup(&self, keep_workspace: bool) -> Setup<'_> {
        Setup {
            repo: &self.repo,
            task: &self.task,
            runner: &self.runner,
            keep_workspace,
        }
    }

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
        let (repo, task, image) = self.repo_and_task(recorded)?;
        let records = match (&image, &self.task_file) {
            (Some(image), Some(task_file)) if repo.starts_with(&image.root) => task_file
                .parent()
                .filter(|folder| !folder.as_str().is_empty())
                .map_or_else(|| Utf8PathBuf::from("."), Utf8Path::to_path_buf),
            _ => repo.clone(),
        };
        let python =
            crate::workspace::interpreter::choose(self.python.as_deref(), recorded.python, &repo)?
                .path;
        let sandbox_choice = self
            .sandbox
            .or(recorded.sandbox)
            .unwrap_or(SandboxChoice::Auto);
        let started = std::time::Instant::now();
        let sandbox = Sandbox::resolve(sandbox_choice)?;
        let sandbox_start = started.elapsed();
        let runner = TestRunner {
            sandbox_start,
            ..TestRunner::for_task(python, sandbox, &task, &repo, image)?
        };
        if task.offers(ToolName::Shell) && runner.sandbox == Sandbox::Unsandboxed {
            return Err(MendError::usage(format!(
                "{} enables the shell tool, which runs only inside a sandbox, and none is available here \
                 — install bubblewrap (`apt-get install bubblewrap`) or remove `shell` from tools.enabled",
                task.origin
            )));
        }
        Ok(Resolved {
            repo,
            records,
            task,
            runner,
            sandbox_choice,
        })
    }

    /// The repository, its task and the image it runs in. A task file given without `--repo`
    /// whose image holds the repository at its workdir (SWE-bench's `/testbed`) is worked on
    /// there: the copy is made from the image's folder.
    fn repo_and_task(
        &self,
        recorded: Recorded,
    ) -> Result<(Utf8PathBuf, Task, Option<ImageRun>), MendError> {
        if let (None, None, Some(task_file)) = (&self.repo, recorded.repo, &self.task_file) {
            let task = Task::load(task_file)?;
            if let Some(environment) = self.environment(&task) {
                let image = self.image_run(environment)?;
                if let Some(folder) = crate::exec::image::repository_in(&image) {
                    let task = Task::locate(&folder, Some(task_file))?;
                    return Ok((folder, task, Some(image)));
                }
            }
        }
        let repo = self.repo(recorded.repo)?;
        let task = Task::locate(&repo, self.task_file.as_deref())?;
        let image = match self.environment(&task) {
            Some(environment) => Some(self.image_run(environment)?),
            None => None,
        };
        Ok((repo, task, image))
    }

    fn environment<'a>(&'a self, task: &'a Task) -> Option<&'a Environment> {
        if self.on_host {
            return None;
        }
        task.environment
            .as_ref()
            .or(self.default_environment.as_ref())
    }

    /// The image pulled and unpacked unless this machine has it, ready to run in.
    fn image_run(&self, environment: &Environment) -> Result<ImageRun, MendError> {
        let cache = ImageCache::locate(self.image_cache.as_deref())?;
        let unpacked = cache.ensure(&environment.image)?;
        ImageRun::new(
            &environment.image.to_string(),
            &unpacked,
            environment.workdir.as_deref(),
        )
    }
}
