//! The command line: every command's arguments and help. `main.rs` parses them and hands each
//! command to its file under `commands/`.

pub(crate) mod args;
pub(crate) mod eval;
mod locate;

pub use args::{
    ChatArgs, CommonArgs, ModelArgs, ReplayArgs, RepoArgs, ResumeArgs, RunArgs, ServerArgs,
};

pub use locate::{replay_record, DEMO_RECORD};

use camino::Utf8PathBuf;
use clap::{Parser, Subcommand};

pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  the run (or replay) completed, matched its record, and the final tests pass
  1  everything ran, but the independent final tests fail
  2  usage error: a bad flag or argument, a missing or malformed task file
  3  replay divergence: a tool result, the stop or the outcome differs from the record
  4  refused: the record is unreadable, or the repository changed since it was recorded
  5  model server error: unreachable, unknown model, HTTP error, broken stream
  6  harness error: Python or pytest missing, a file that could not be read or written
  130  interrupted by Ctrl-C (the record is still written, with stop `cancelled`)";

/// `mend verify` runs no model and reads no record.
pub const VERIFY_EXIT_CODES_HELP: &str = "\
Exit codes:
  0  the tests pass
  1  the tests fail
  2  usage error: a bad flag or argument, a missing or malformed task file
  6  harness error: Python or pytest missing, a test command that cannot start or gives no verdict";

/// `mend init` only looks at the project and writes one file.
pub const INIT_EXIT_CODES_HELP: &str = "\
Exit codes:
  0  mend.toml was written
  2  usage error: a bad flag, or mend.toml is there already (--force replaces it)
  6  harness error: the project could not be read or mend.toml could not be written";

/// What `mend chat --help` and the chat's own `/help` say.
pub const CHAT_HELP: &str = "\
Type a message for the model; it works on a throwaway copy of the repository.
  /diff        show what the conversation has changed so far
  /verify      run the task's tests on the copy (the independent check)
  /save PATH   write the change as a patch file (apply it with `git apply` or `patch -p1`)
  /help        this text
Ctrl-C interrupts the model's turn and keeps the conversation; Ctrl-D (end of input) ends it.";

/// mend: a small, auditable coding-agent harness. A model proposes tool calls; mend runs the
/// accepted ones on a throwaway copy of the repository and returns every result to the
/// conversation; then an independent test run, not the model, says whether the repair holds.
#[derive(Debug, Parser)]
#[command(name = "mend", version, after_help = EXIT_CODES_HELP)]
pub struct Cli {
    /// Which command to run, with its arguments.
    #[command(subcommand)]
    pub command: Command,
}

/// Each of mend's commands with its own arguments; `main.rs` hands each to its file under `commands/`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Repair the repository with a live model (Ollama, or an OpenAI- or Anthropic-compatible
    /// server), then record the run.
    #[command(after_help = EXIT_CODES_HELP)]
    Run(RunArgs),
    /// Talk with a model about a repository: each line you type is a message in one
    /// conversation, run on one throwaway copy; /diff, /verify and /save PATH act on that copy.
    /// The task file's rules apply; its prompt does not (you type the task).
    #[command(after_help = CHAT_HELP)]
    Chat(ChatArgs),
    /// Replay a recorded run: its model streams go through the core again, while the tools and
    /// the tests run for real on a fresh copy of the repository. No model server is needed.
    #[command(after_help = EXIT_CODES_HELP)]
    Replay(ReplayArgs),
    /// Continue a recorded run or chat: replay it exactly on a fresh copy (no model server
    /// needed for that part), then go on live from where it stopped — a run cut by Ctrl-C, its
    /// deadline or max_turns, or any record given a follow-up --message — and write a new record
    /// holding the old one's messages followed by the new one; then the independent verdict.
    #[command(after_help = EXIT_CODES_HELP)]
    Resume(ResumeArgs),
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
    #[command(after_help = INIT_EXIT_CODES_HELP)]
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
    Eval(eval::EvalArgs),
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
    /// Run the repository's tests once on a fresh copy and report the result, as a run's final
    /// tests are judged: a task's held-out tests and test patch put back, its given tests graded.
    #[command(after_help = VERIFY_EXIT_CODES_HELP)]
    Verify(VerifyArgs),
    /// Serve mend's verification to other agents: an MCP server on stdin/stdout (JSON-RPC, one
    /// message per line) with the tools `verify` (a repository and a patch, or its current
    /// change → the verdict by test id) and `task` (what a task allows). See the README for the
    /// configuration of Claude Code, Codex and opencode.
    Mcp,
    /// Write a record in a format other tools read: `--atif` (the Agent Trajectory Interchange
    /// Format of Harbor and the `atif` package), with mend's verdict by test id in its `extra`.
    Export {
        /// The record to export as an ATIF trajectory.
        #[arg(long, value_name = "RECORD")]
        atif: Utf8PathBuf,
        /// Where to write it [default: stdout].
        #[arg(short = 'o', long = "out", value_name = "FILE")]
        out: Option<Utf8PathBuf>,
    },
    /// Feed every recorded response in CAPTURES/ollama (NDJSON) and CAPTURES/openai (SSE)
    /// through mend's codecs and session, and check each against what the server meant.
    Conformance {
        /// The captures folder: `ollama/` (.ndjson streams), `openai/` (.sse streams), .json errors.
        captures: Utf8PathBuf,
    },
    /// List the unpacked images of this machine's cache with their sizes (`mend images`), pull
    /// and unpack one ahead of a run (`mend images pull REF`, e.g. once per node before a Slurm
    /// array), or empty the cache (`mend images prune`).
    #[command(after_help = IMAGES_EXIT_CODES_HELP)]
    Images {
        /// What to do with the cache; listing it when none is given.
        #[command(subcommand)]
        action: Option<ImagesAction>,
        /// The cache [default: $XDG_CACHE_HOME/mend/images, else ~/.cache/mend/images].
        #[arg(long, value_name = "DIR", global = true)]
        image_cache: Option<Utf8PathBuf>,
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

/// `mend verify`'s arguments.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The repository, its task file, the sandbox and the output's form.
    #[command(flatten)]
    pub common: CommonArgs,
    /// A unified diff (`--- a/FILE` / `+++ b/FILE`, as `git diff` or the .patch beside a record)
    /// applied to the copy before the tests run; the repository itself is never written.
    #[arg(long, value_name = "FILE")]
    pub patch: Option<Utf8PathBuf>,
}

/// What `mend images` does with the cache besides listing it.
#[derive(Debug, Subcommand)]
pub enum ImagesAction {
    /// Pull REF (host/name:tag, host/name@sha256:…, oci:PATH, docker-archive:PATH) and unpack it
    /// into the cache unless it is there already; a tag is asked of the registry again. With
    /// --suite, every image the suite's tasks name that this machine lacks (a Slurm node's first
    /// step: the shards on one node then share one unpack).
    Pull {
        /// The image to pull and unpack.
        #[arg(required_unless_present = "suite", conflicts_with = "suite")]
        reference: Option<String>,
        /// A suite file (suite.toml): its tasks' images.
        #[arg(long, value_name = "SUITE")]
        suite: Option<Utf8PathBuf>,
    },
    /// Remove every image, blob and reference from the cache.
    Prune,
}

/// `mend images` pulls and unpacks, runs no tests.
pub const IMAGES_EXIT_CODES_HELP: &str = "\
Exit codes:
  0  done
  2  usage error: a malformed reference, an image that does not exist, access refused
  4  refused: an image whose blobs do not match their digests, or whose layers are hostile
  6  harness error: no network, a cache that cannot be written";

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::{Cli, EXIT_CODES_HELP};
    use crate::error::ALL_EXIT_CODES;

    fn listed(help: &str) -> Vec<u8> {
        help.lines()
            .skip(1)
            .filter_map(|line| line.split_whitespace().next()?.parse().ok())
            .collect()
    }

    #[test]
    fn each_command_lists_the_exit_codes_it_can_give() {
        let cli = Cli::command();
        let after_help = |name: &str| {
            let command = cli.find_subcommand(name).unwrap();
            listed(&command.get_after_help().unwrap().to_string())
        };
        let every: Vec<u8> = ALL_EXIT_CODES.iter().map(|(code, _)| *code).collect();
        assert_eq!(
            [after_help("verify"), after_help("init"), after_help("run")],
            [vec![0, 1, 2, 6], vec![0, 2, 6], every]
        );
        let verify = cli
            .find_subcommand("verify")
            .unwrap()
            .get_after_help()
            .unwrap();
        assert!(!verify.to_string().contains("record"), "{verify}");
    }

    /// The help of `--sandbox`, `--image-cache` and `--on-host` under `path` (a command and its
    /// subcommands), as clap shows it.
    fn place_flags(path: &[&str]) -> Vec<(String, String)> {
        let cli = Cli::command();
        let command = path
            .iter()
            .fold(&cli, |command, name| command.find_subcommand(name).unwrap());
        command
            .get_arguments()
            .filter_map(|arg| {
                let long = arg.get_long()?;
                ["sandbox", "image-cache", "on-host"]
                    .contains(&long)
                    .then(|| (long.to_owned(), arg.get_help().unwrap().to_string()))
            })
            .collect()
    }

    #[test]
    fn every_command_that_runs_a_tasks_tests_offers_the_same_place_flags() {
        let run = place_flags(&["run"]);
        assert_eq!(
            run.iter()
                .map(|(long, _)| long.as_str())
                .collect::<Vec<_>>(),
            ["sandbox", "image-cache", "on-host"]
        );
        for path in [
            &["verify"][..],
            &["replay"],
            &["resume"],
            &["chat"],
            &["eval"],
            &["eval", "check"],
        ] {
            assert_eq!(place_flags(path), run, "{path:?}");
        }
    }

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
