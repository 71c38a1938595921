//! `mend eval SUITE --out DIR`: every (task, attempt) of this process's slice as an ordinary
//! `mend run` (its own throwaway copy, its record, patch and the final run's whole output under
//! `DIR/<task>/<attempt>.json`, `.patch`, `.output.gz`),
//! `--jobs` at a time, one results line per finished attempt.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::{Config, Millis, StopReason};

use crate::attempt::driver::Observer;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::run_record::record_of;
use crate::attempt::{run_attempt, Attempt};
use crate::error::{exit, MendError};
use crate::exec::sandbox::SandboxChoice;
use crate::provider::client::LiveSource;
use crate::provider::connect::{api_key, connect, server_base, Connection};
use crate::record::{RunMetrics, ServerFacts};
use crate::setup::config::chosen_protocol;
use crate::setup::{Recorded, RepoChoice, Resolved};
use crate::telemetry::config::chosen;
use crate::telemetry::traces::{ending_now, Traces};
use crate::workspace::changes::file_digests;

use super::check_file::{gate, gold_patch, CheckFile, Digests};
use super::progress::Progress;
use super::results::{read_dir_rows, ResultsFile, Row};
use super::shard::Shard;
use super::suite::Suite;

pub(crate) struct EvalOptions {
    pub suite: Suite,
    pub out: Utf8PathBuf,
    pub jobs: usize,
    pub shard: Shard,
    pub model: Option<String>,
    pub protocol: Option<mend_core::Protocol>,
    pub host: Option<String>,
    pub python: Option<Utf8PathBuf>,
    pub sandbox: Option<SandboxChoice>,
    /// `--image-cache`: where the tasks' images are unpacked.
    pub image_cache: Option<Utf8PathBuf>,
    /// `--on-host`: the tasks' images are not used (mend runs inside one already).
    pub on_host: bool,
    pub read_timeout: Duration,
    /// Run tasks without a current check, or found invalid, too.
    pub unchecked: bool,
    /// `--otel`: every attempt's trace goes there [default: each task file's
    /// `telemetry.otlp_endpoint`, else nowhere].
    pub otel: Option<String>,
}

/// One task of the suite, loaded once and shared by its attempts.
struct Prepared {
    name: String,
    resolved: Resolved,
    prompt: String,
    repo_sha256: String,
    /// The check found the task flaky: its rows say so, and the report lists it apart.
    flaky: bool,
}

/// Runs this slice's attempts that have no results line yet.
pub(crate) fn eval(options: &EvalOptions) -> Result<u8, MendError> {
    let suite = &options.suite;
    let tasks = suite
        .tasks
        .iter()
        .map(|(name, folder)| prepare(name, folder, options))
        .collect::<Result<Vec<_>, _>>()?;
    let flaky = checked_flaky(options, &tasks)?;
    let tasks: Vec<Prepared> = tasks
        .into_iter()
        .map(|task| Prepared {
            flaky: flaky.contains(&task.name),
            ..task
        })
        .collect();
    let server = Server::connect(options, &tasks[0].resolved.task)?;
    std::fs::create_dir_all(&options.out).map_err(|err| {
        MendError::harness(format!(
            "cannot create the output folder {}: {err}",
            options.out
        ))
    })?;
    let done = finished_attempts(&options.out, &suite.sha256, &server.model_digest)?;
    let pairs: Vec<(usize, u32)> = suite
        .pairs()
        .into_iter()
        .enumerate()
        .filter(|(number, _)| options.shard.holds(*number))
        .map(|(_, pair)| pair)
        .collect();
    let slice = pairs.len();
    let todo: VecDeque<(usize, u32)> = pairs
        .into_iter()
        .filter(|(task, attempt)| !done.contains(&(tasks[*task].name.clone(), *attempt)))
        .collect();
    let skipped = slice - todo.len();
    let results_path = options.out.join(options.shard.results_file_name());
    let results = ResultsFile::open(&results_path)?;
    let shared = Shared {
        tasks: &tasks,
        model: &server.model,
        protocol: server.protocol,
        connection: &server.connection,
        model_digest: &server.model_digest,
        options,
        traces: Traces::default(),
    };
    let progress = shared.run_all(todo, results);
    shared.traces.finish();
    let progress = progress?;
    eprintln!(
        "mend: eval: {} attempt(s) run, {} passed; {skipped} of this slice's {slice} were already in the results; results in {results_path} (summarize with `mend eval report {}`)",
        progress.done(),
        progress.passed(),
        options.out
    );
    if crate::interrupt::requested() {
        eprintln!("mend: interrupted: rerun the same command to run the remaining attempts");
        return Ok(exit::INTERRUPTED);
    }
    Ok(exit::PASS)
}

/// The one server and model every attempt talks to, checked before any attempt starts.
struct Server {
    model: String,
    protocol: mend_core::Protocol,
    connection: Connection,
    /// The server's digest of the model, else `protocol:model`.
    model_digest: String,
}

impl Server {
    /// The flags, else the suite, else `first`, the first task's file, decide.
    fn connect(options: &EvalOptions, first: &crate::task::Task) -> Result<Server, MendError> {
        let suite = &options.suite;
        let model = options
            .model
            .clone()
            .or_else(|| suite.model.clone())
            .or_else(|| first.model.clone())
            .unwrap_or_else(|| crate::task::DEFAULT_MODEL.to_owned());
        let protocol = chosen_protocol(options.protocol.or(suite.protocol), first);
        let host = options.host.clone().or_else(|| suite.host.clone());
        let base = server_base(host.as_deref(), protocol);
        let connection = connect(
            &base,
            options.read_timeout,
            protocol,
            api_key(protocol),
            &model,
        )?;
        let model_digest = connection
            .model_digest
            .clone()
            .unwrap_or_else(|| format!("{}:{model}", protocol.name()));
        Ok(Server {
            model,
            protocol,
            connection,
            model_digest,
        })
    }
}

/// The (task, attempt) pairs that already have a line, after checking that every line in the
/// folder belongs to this suite and model.
fn finished_attempts(
    out: &Utf8Path,
    suite_sha256: &str,
    model_digest: &str,
) -> Result<BTreeSet<(String, u32)>, MendError> {
    let rows = read_dir_rows(out)?;
    if let Some(row) = rows
        .iter()
        .find(|row| row.suite_sha256 != suite_sha256 || row.model_digest != model_digest)
    {
        return Err(MendError::refused(format!(
            "{out} holds results of another suite or model ({} attempt {}: suite {}, model {}) — pass a new --out folder",
            row.task, row.attempt, short(&row.suite_sha256), row.model_digest
        )));
    }
    Ok(rows
        .into_iter()
        .map(|row| (row.task, row.attempt))
        .collect())
}

fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked leaves whole values behind: every update is a single assignment.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Refuses tasks without a current check, or found invalid, unless `--unchecked`; returns the
/// names of the flaky ones.
fn checked_flaky(options: &EvalOptions, tasks: &[Prepared]) -> Result<Vec<String>, MendError> {
    let origin = &options.suite.origin;
    let check = CheckFile::load(origin)?;
    let now = tasks
        .iter()
        .map(|task| {
            let gold = gold_patch(origin, &task.name)?;
            Ok((
                task.name.clone(),
                Digests::of(&task.resolved, gold.as_deref())?,
            ))
        })
        .collect::<Result<Vec<_>, MendError>>()?;
    let (refused, flaky) = gate(check.as_ref(), &now);
    if !refused.is_empty() {
        if !options.unchecked {
            return Err(MendError::refused(format!(
                "{} task(s) of {origin} are not checked as valid: {} — run `mend eval check {origin}` \
                 (and fix what it names), or pass --unchecked to run them anyway",
                refused.len(),
                refused.join(", ")
            )));
        }
        eprintln!(
            "mend: eval: running tasks the check does not vouch for (--unchecked): {}",
            refused.join(", ")
        );
    }
    if !flaky.is_empty() {
        eprintln!(
            "mend: eval: flaky tasks (their outcome changed between runs of the same tree; the report lists them apart): {}",
            flaky.join(", ")
        );
    }
    Ok(flaky)
}

fn prepare(name: &str, folder: &Utf8Path, options: &EvalOptions) -> Result<Prepared, MendError> {
    let place = super::task_folder::place(folder);
    let args = RepoChoice {
        repo: place.repo.clone(),
        task_file: place.task_file.clone(),
        python: options.python.clone(),
        sandbox: options.sandbox,
        image_cache: options.image_cache.clone(),
        on_host: options.on_host,
        default_environment: options.suite.environment.clone(),
    };
    let resolved = args.resolve(Recorded::default())?;
    super::task_folder::check(&place, &resolved, folder)?;
    let task = &resolved.task;
    let prompt = task.prompt.clone().ok_or_else(|| {
        MendError::usage(format!(
            "{} has no task.prompt, which every task of a suite needs — say what the model should do there: \
             [task] prompt = \"...\"",
            task.origin
        ))
    })?;
    let repo_sha256 = super::check_file::repo_sha256(&resolved)?;
    Ok(Prepared {
        name: name.to_owned(),
        resolved,
        prompt,
        repo_sha256,
        flaky: false,
    })
}

struct Shared<'a> {
    tasks: &'a [Prepared],
    model: &'a str,
    protocol: mend_core::Protocol,
    connection: &'a Connection,
    model_digest: &'a str,
    options: &'a EvalOptions,
    /// Where each attempt's OpenTelemetry trace goes, when telemetry is on.
    traces: Traces,
}

impl Shared<'_> {
    /// Runs `todo` on `--jobs` threads, each attempt's line appended as it finishes; stops
    /// taking attempts at Ctrl-C or the first failure, which is returned.
    fn run_all(
        &self,
        todo: VecDeque<(usize, u32)>,
        results: ResultsFile,
    ) -> Result<Progress, MendError> {
        let results = Mutex::new(results);
        let progress = Mutex::new(Progress::new(todo.len()));
        let queue = Mutex::new(todo);
        let failure: Mutex<Option<MendError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..self.options.jobs.max(1) {
                scope.spawn(|| loop {
                    if crate::interrupt::requested() || lock(&failure).is_some() {
                        return;
                    }
                    let Some((task, attempt)) = lock(&queue).pop_front() else {
                        return;
                    };
                    match self.attempt(task, attempt) {
                        Ok(Some(row)) => {
                            if let Err(error) = lock(&results).append(&row) {
                                lock(&failure).get_or_insert(error);
                                return;
                            }
                            lock(&progress).finished(&row);
                        }
                        Ok(None) => return,
                        Err(error) => {
                            lock(&failure).get_or_insert(error);
                            return;
                        }
                    }
                });
            }
        });
        let progress = progress
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        progress.clear();
        match failure
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
        {
            Some(error) => Err(error),
            None => Ok(progress),
        }
    }

    /// The session of one attempt: the suite's budget and sampling over the task's own, and
    /// the attempt's seed.
    fn config(&self, prepared: &Prepared, seed: i64) -> Config {
        let (suite, task) = (&self.options.suite, &prepared.resolved.task);
        let mut config = Config {
            protocol: self.protocol,
            max_turns: suite
                .max_turns
                .or(task.max_turns)
                .unwrap_or(mend_core::DEFAULT_MAX_TURNS),
            deadline: suite
                .deadline_seconds
                .map(|seconds| Millis(seconds.saturating_mul(1000))),
            token_budget: suite.token_budget,
            text_tool_calls: task.text_tool_calls,
            instructions: task.instructions.as_ref().map(|found| found.message()),
            ..Config::new(
                self.model,
                &task.system_prompt,
                &prepared.prompt,
                crate::tools::table::offered_tools(task, false),
            )
        };
        if let Some(tokens) = task.num_ctx {
            config = crate::provider::window::with_window(config, tokens);
        }
        let (mut config, _) = self.connection.settle(config);
        config.options.seed = seed;
        if let Some(temperature) = suite.temperature {
            config.options.temperature = temperature;
        }
        config
    }

    /// One attempt as `mend run` makes it; `None` when Ctrl-C cut it (it gets no line, so a
    /// rerun makes it again).
    fn attempt(&self, task_index: usize, attempt: u32) -> Result<Option<Row>, MendError> {
        let suite = &self.options.suite;
        let prepared = &self.tasks[task_index];
        let Resolved {
            repo, task, runner, ..
        } = &prepared.resolved;
        let seed = suite.seed.saturating_add(i64::from(attempt));
        let config = self.config(prepared, seed);
        let folder = self.options.out.join(&prepared.name);
        std::fs::create_dir_all(&folder)
            .map_err(|err| MendError::harness(format!("cannot create {folder}: {err}")))?;
        let record_path = folder.join(format!("{attempt}.json"));

        let mut file_sha256_before = file_digests(repo, &task.test.files)?;
        file_sha256_before.extend(file_digests(repo, &task.editable)?);
        let setup = prepared.resolved.setup(false);
        let mut source = LiveSource {
            client: &self.connection.client,
        };
        let run_start = std::time::SystemTime::now();
        let outcome = run_attempt(&setup, config.clone(), &mut source, &mut Quiet)?;
        let stop = outcome.transcript.stop.reason;
        if stop == StopReason::Cancelled {
            return Ok(None);
        }
        let server = ServerFacts {
            model_digest: self.connection.model_digest.clone(),
            server_version: self.connection.server_version.clone(),
            model_length: self.connection.model_length,
            sandbox: runner.sandbox.name(),
        };
        let origin = prepared.resolved.origin();
        let record = record_of(&config, &server, &origin, &outcome, file_sha256_before);
        record.write_atomically(&record_path)?;
        if let Some(telemetry) = chosen(self.options.otel.as_deref(), &task.telemetry) {
            let timing = ending_now(run_start, outcome.loop_started_at);
            self.traces.send(&telemetry, &record, &timing);
        }
        if !outcome.checks.after.diff.is_empty() {
            crate::record::patch::write_atomically(
                &record_path.with_extension("patch"),
                &outcome.checks.after.diff,
            )?;
        }
        super::run_output::write(
            &super::run_output::output_path(&folder, attempt),
            &outcome.checks.after.tests_after.output,
        )?;
        let metrics = &outcome.transcript.metrics;
        Ok(Some(Row {
            task: prepared.name.clone(),
            attempt,
            seed,
            stop: stop.to_string(),
            passed: outcome.checks.passed(),
            suspect: suspect(&outcome),
            turns: turns(&outcome),
            tokens: metrics.prompt_tokens + metrics.eval_tokens,
            model_ms: metrics.model_ms,
            tool_ms: metrics.tool_ms,
            test_ms: metrics.verify_ms,
            outside_ms: Some(outside_ms(metrics)),
            record: format!("{}/{attempt}.json", prepared.name),
            suite_sha256: suite.sha256.clone(),
            task_file_sha256: task.sha256.clone(),
            repo_sha256: prepared.repo_sha256.clone(),
            model: self.model.to_owned(),
            model_digest: self.model_digest.to_owned(),
            k: suite.k,
            flaky: prepared.flaky,
            why: super::why::Why::of(&outcome),
        }))
    }
}

/// A pass whose change adds Python that reaches into the test run: not counted as a pass.
fn suspect(outcome: &Attempt) -> bool {
    outcome.checks.passed()
        && outcome
            .checks
            .after
            .python_reaches
            .as_ref()
            .is_some_and(|reaches| !reaches.is_empty())
}

/// The model turns of every message of the attempt.
fn turns(outcome: &Attempt) -> u32 {
    let turns: usize = outcome
        .messages
        .iter()
        .map(|message| message.turns.len())
        .sum();
    u32::try_from(turns).unwrap_or(u32::MAX)
}

/// The time neither the model, the tools nor the tests took: the copy, the sandbox's start, the
/// cleanup.
fn outside_ms(metrics: &RunMetrics) -> u64 {
    [
        metrics.copy_ms,
        metrics.sandbox_start_ms,
        metrics.cleanup_ms,
    ]
    .into_iter()
    .flatten()
    .sum()
}

/// Attempts print nothing of their own: the progress bar speaks for them.
struct Quiet;

impl Observer for Quiet {
    fn event(&mut self, _event: &mend_core::Event) {}
}

impl Render for Quiet {
    fn run_event(&mut self, _event: &RunEvent) {}
}
