//! The shape of `mend.toml` exactly as written, before any meaning is checked. Every table
//! refuses unknown keys, so a misspelt field is an error that names it, not a silent default.

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TaskFile {
    #[serde(default)]
    pub task: TaskTable,
    pub paths: PathsTable,
    pub test: TestTable,
    #[serde(default)]
    pub tools: ToolsTable,
    #[serde(default)]
    pub model: ModelTable,
    #[serde(default)]
    pub shell: ShellTable,
    #[serde(default)]
    pub copy: CopyTable,
    #[serde(default)]
    pub sandbox: SandboxTable,
    /// Commands run around each call, in Claude Code's shape (see [`crate::hooks`]).
    #[serde(default)]
    pub hooks: super::hooks::HooksTable,
    /// Where a run's OpenTelemetry trace goes (see [`crate::telemetry`]).
    #[serde(default)]
    pub telemetry: TelemetryTable,
    #[serde(default)]
    pub environment: EnvironmentTable,
}

/// `[telemetry]` as written; `telemetry::config::chosen` reads it with `--otel`. It lives
/// with the task file, which names it, below the telemetry that uses it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryTable {
    /// The OTLP/HTTP endpoint's base, e.g. `http://127.0.0.1:4318` (traces go to `/v1/traces`).
    pub otlp_endpoint: Option<String>,
    /// Put prompts, outputs, tool arguments and results in the spans.
    #[serde(default)]
    pub include_content: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TaskTable {
    /// Optional: `mend chat` takes its task from the user, `mend run --task` from the flag.
    pub prompt: Option<String>,
    pub system: Option<String>,
    /// The project's instructions given to the model: `false`, or a file at the repository's
    /// root other than `AGENTS.md`.
    pub instructions: Option<Spanned<InstructionsSetting>>,
}

/// `task.instructions` as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum InstructionsSetting {
    On(bool),
    File(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PathsTable {
    pub readable: Vec<Spanned<String>>,
    pub editable: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TestTable {
    pub command: Spanned<Vec<String>>,
    /// Absent: [`super::defaults::TEST_TIMEOUT`].
    pub timeout_seconds: Option<Spanned<u64>>,
    /// The files the verdict rests on: hashed before and after, never writable by a tool.
    #[serde(default)]
    pub files: Vec<Spanned<String>>,
    /// Absent: read as the command's runner prints ([`super::defaults::report_for`]).
    pub report: Option<ReportKind>,
    /// The JUnit XML file the command writes, relative to the repository (`report = "junit"`).
    pub junit_path: Option<Spanned<String>>,
    /// Let pytest load the plugins installed in its environment (entry points).
    #[serde(default = "yes")]
    pub plugins: bool,
    /// Variables passed to the test command: `NAME` (its value from mend's environment) or
    /// `NAME=value`.
    #[serde(default)]
    pub env: Vec<Spanned<String>>,
    /// The copy's import roots, put first on PYTHONPATH; absent means `src` (when it exists)
    /// and the copy itself.
    pub pythonpath: Option<Vec<Spanned<String>>>,
    /// Test configuration (a `conftest.py`, `pyproject.toml`, …) the tools may change after all.
    #[serde(default)]
    pub config_editable: Vec<Spanned<String>>,
    /// A unified diff of held-out tests, relative to the task file's folder, applied only for
    /// the final run.
    pub patch: Option<Spanned<String>>,
    /// Files left out of the attempt's copy and put back for the final run.
    #[serde(default)]
    pub held_out: Vec<Spanned<String>>,
    /// The given contract: tests that must pass after the change, by the runner's ids.
    pub fail_to_pass: Option<Spanned<Vec<String>>>,
    pub pass_to_pass: Option<Spanned<Vec<String>>>,
    /// How a skipped `pass_to_pass` test counts: `"kept"` (SWE-bench's rule) or `"broken"`.
    pub skipped_pass_to_pass: Option<SkippedPassToPass>,
}

use super::held_out::SkippedPassToPass;

/// `test.report` as written; `junit` takes its file from `test.junit_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ReportKind {
    Pytest,
    Junit,
    ExitCode,
    Django,
    Sympy,
    #[serde(rename = "pytest-ra")]
    PytestRa,
    Libtest,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ToolsTable {
    /// Absent: [`super::defaults::tools`].
    pub enabled: Option<Spanned<Vec<Spanned<String>>>>,
    /// Offer `start_line`/`end_line` on `read_file`.
    #[serde(default = "yes")]
    pub read_file_line_range: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelTable {
    pub name: Option<String>,
    pub protocol: Option<Spanned<String>>,
    /// The older name of `protocol`.
    pub provider: Option<Spanned<String>>,
    pub max_turns: Option<Spanned<u32>>,
    pub num_ctx: Option<Spanned<u32>>,
    /// Seconds the server keeps the model loaded after each request (`0`: unload it).
    pub keep_alive: Option<u64>,
    /// Read calls a model writes into its text as calls (on unless `false`).
    #[serde(default = "yes")]
    pub text_tool_calls: bool,
    /// `true`, `false`, or a level (`"low"`, `"medium"`, `"high"`).
    pub think: Option<mend_core::Think>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ShellTable {
    pub timeout_seconds: Option<Spanned<u64>>,
    pub output_chars: Option<Spanned<usize>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CopyTable {
    /// Replaces the default list of caches left out of the copy.
    pub exclude: Option<Vec<Spanned<String>>>,
    /// Replaces the default list of dependency folders shared with the original.
    pub share: Option<Vec<Spanned<String>>>,
    /// What of the repository's `.git` the copy holds: `base` or `none`.
    pub history: Option<Spanned<String>>,
    /// The revision the attempt starts from.
    pub base: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SandboxTable {
    /// More folders the tests may read inside bubblewrap (absolute, or `~/...`).
    #[serde(default)]
    pub read_only: Vec<Spanned<String>>,
}

/// `[environment]`: the image the task runs in, and where its repository lives there.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnvironmentTable {
    pub image: Option<Spanned<String>>,
    pub workdir: Option<Spanned<String>>,
    /// Commands that set the copy up before any test run (an install, a build).
    #[serde(default)]
    pub setup: Vec<Spanned<String>>,
    pub setup_timeout_seconds: Option<Spanned<u64>>,
}

impl Default for ModelTable {
    fn default() -> Self {
        ModelTable {
            name: None,
            protocol: None,
            provider: None,
            max_turns: None,
            num_ctx: None,
            keep_alive: None,
            text_tool_calls: true,
            think: None,
        }
    }
}

impl Default for ToolsTable {
    fn default() -> Self {
        ToolsTable {
            enabled: None,
            read_file_line_range: true,
        }
    }
}

fn yes() -> bool {
    true
}
