//! The arguments of `mend eval`: run a suite (`mend eval SUITE --out DIR`) or report on results
//! (`mend eval report DIR...`).

use camino::Utf8PathBuf;
use clap::{Args, Subcommand};

use super::args::PlaceArgs;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub report: Option<EvalCommand>,
    /// The suite file (suite.toml): tasks, k, and the budget of every attempt.
    #[arg(required = true)]
    pub suite: Option<Utf8PathBuf>,
    /// The folder for the results file and each attempt's record and patch.
    #[arg(long, required = true)]
    pub out: Option<Utf8PathBuf>,
    /// Attempts run at once, each on its own copy.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Run only slice I of N (0-based) of the (task, attempt) pairs [default: from
    /// SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else JOB_COMPLETION_INDEX with --shards,
    /// else all].
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// The number of slices when JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) picks one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// The model [default: the suite's model.name, else the first task file's, else gemma4:e2b].
    #[arg(long)]
    pub model: Option<String>,
    /// The protocol of the model server [default: the suite's model.protocol, else the first
    /// task file's, else ollama]. `--provider` is its older name.
    #[arg(long, alias = "provider", value_name = "PROTOCOL", value_parser = crate::task::protocol::flag())]
    pub protocol: Option<mend_core::Protocol>,
    /// The server [default: the suite's model.host, else as `mend run`].
    #[arg(long)]
    pub host: Option<String>,
    /// The Python that runs the tests [default: as `mend run`, per task].
    #[arg(long)]
    pub python: Option<Utf8PathBuf>,
    #[command(flatten)]
    pub place: PlaceArgs,
    /// Seconds to wait for each piece of the server's answer.
    #[arg(long, default_value_t = super::args::READ_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    pub read_timeout: u64,
    /// Also run tasks that `mend eval check` has not checked, or found invalid.
    #[arg(long)]
    pub unchecked: bool,
    /// Send each attempt's OpenTelemetry trace (one per attempt) to this OTLP/HTTP endpoint
    /// (e.g. http://127.0.0.1:4318) [default: each task file's telemetry.otlp_endpoint, else
    /// none].
    #[arg(long, value_name = "ENDPOINT")]
    pub otel: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Check each task of a suite: its tests fail without a change (at least one test by id),
    /// its gold patch (gold/TASK.patch beside the suite) passes, 3 runs each; flaky tasks are
    /// named. Writes SUITE's check beside it (suite.check.json), which `mend eval` requires.
    Check {
        /// The suite file (suite.toml).
        suite: Utf8PathBuf,
        /// The Python that runs the tests [default: as `mend verify`, per task].
        #[arg(long)]
        python: Option<Utf8PathBuf>,
        #[command(flatten)]
        place: PlaceArgs,
    },
    /// Make a suite of an instance file (SWE-bench's JSON lines, or a set built like it:
    /// SWE-bench-Live, SWE-Gym, SWE-smith): one task per row, its problem statement as the
    /// prompt, its test patch held out until the final run, its gold patch as the suite's
    /// gold, its FAIL_TO_PASS/PASS_TO_PASS lists given. Each row's repository comes from
    /// --repos (checked out at its base commit) or its image. Rows that cannot be tasks are
    /// named; the suite is written whole into --out or not at all.
    Import {
        /// The instance file: one JSON object per line.
        file: Utf8PathBuf,
        /// The new folder for the suite (suite.toml, tasks/, gold/); it must not exist.
        #[arg(long)]
        out: Utf8PathBuf,
        /// A folder of clones, named owner__name or owner/name, for rows without an image.
        #[arg(long, value_name = "DIR")]
        repos: Option<Utf8PathBuf>,
        /// The test command of rows that give none and that mend's table of SWE-bench's
        /// repositories does not cover (a shell line).
        #[arg(long, value_name = "CMD")]
        test_command: Option<String>,
        /// How the output of a row's own test command or --test-command is read [default:
        /// pytest when the command runs pytest, else exit_code].
        #[arg(long, value_name = "REPORT")]
        test_report: Option<String>,
        /// The image of rows that name none, from their fields: {instance_id}, {docker_id},
        /// {repo}, {owner}, {name}, {version}; e.g.
        /// swebench/sweb.eval.x86_64.{docker_id}:latest.
        #[arg(long, value_name = "TEMPLATE")]
        image_template: Option<String>,
    },
    /// Write one attempt of every task as SWE-bench's harness leaves an instance, for its own
    /// grading to read: DIR/INSTANCE/test_output.txt (the final run's whole output between the
    /// harness's markers), report.json (mend's grade, in the harness's shape) and patch.diff.
    Export {
        /// The --out folders of `mend eval` runs of one suite and model.
        #[arg(required = true)]
        dirs: Vec<Utf8PathBuf>,
        /// The new folder to write (it must not exist).
        #[arg(long, value_name = "DIR", required = true)]
        swebench: Utf8PathBuf,
        /// Which attempt of each task (0-based).
        #[arg(long, default_value_t = 0)]
        attempt: u32,
    },
    /// Merge the results of one or more --out folders and print n, c and pass@1..k per task,
    /// the suite's mean, and the cost per passing attempt.
    Report {
        /// The --out folders of `mend eval` runs of one suite and model (shards, machines).
        #[arg(required_unless_present = "compare")]
        dirs: Vec<Utf8PathBuf>,
        /// Set two runs side by side per task (two models, or one model under two settings):
        /// pass@1, pass@k, tokens, and B's mean pass@1 less A's with a 95 % interval over tasks
        /// (normal approximation of the paired per-task differences).
        #[arg(long, num_args = 2, value_names = ["DIR_A", "DIR_B"], conflicts_with_all = ["dirs", "html"])]
        compare: Option<Vec<Utf8PathBuf>>,
        /// Print the report as one JSON object.
        #[arg(long, conflicts_with = "html")]
        json: bool,
        /// Also write the report as one self-contained page, and each attempt's `mend show`
        /// page into an `attempts` folder beside it.
        #[arg(long, value_name = "OUT")]
        html: Option<Utf8PathBuf>,
        /// Also write each attempt's record as an ATIF trajectory (`TASK-N.json`) into this
        /// folder (see `mend export --atif`).
        #[arg(long, value_name = "DIR")]
        atif: Option<Utf8PathBuf>,
    },
}
