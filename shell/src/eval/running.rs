//! Running an eval's attempts: `--jobs` threads take (task, attempt) pairs off one queue, run
//! each as `mend run` would (its own copy, its record and patch under `DIR/<task>/`) and append
//! its results line as it finishes.

use std::collections::VecDeque;
use std::sync::Mutex;

use mend_core::{Config, Millis, StopReason};

use crate::attempt::driver::Observer;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::run_record::record_of;
use crate::attempt::{run_attempt, Attempt};
use crate::error::MendError;
use crate::provider::client::LiveSource;
use crate::provider::connect::Connection;
use crate::record::RunMetrics;
use crate::setup::Resolved;
use crate::telemetry::config::chosen;
use crate::telemetry::traces::{ending_now, Traces};
use crate::workspace::changes::test_and_editable_digests;

use super::prepared::{EvalOptions, Prepared};
use super::progress::Progress;
use super::results::{ResultsFile, Row};

/// What every attempt of the slice shares: the tasks, the one server and model, the options.
pub(super) struct Shared<'a> {
    pub(super) tasks: &'a [Prepared],
    pub(super) model: &'a str,
    pub(super) protocol: mend_core::Protocol,
    pub(super) connection: &'a Connection,
    pub(super) model_digest: &'a str,
    pub(super) options: &'a EvalOptions,
    /// Where each attempt's OpenTelemetry trace goes, when telemetry is on.
    pub(super) traces: Traces,
}

impl Shared<'_> {
    /// Runs `todo` on `--jobs` threads, each attempt's line appended as it finishes; stops
    /// taking attempts at Ctrl-C or the first failure, which is returned.
    pub(super) fn run_all(
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

        let file_sha256_before = test_and_editable_digests(repo, task)?;
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
        let server = self.connection.server_facts(runner.sandbox.name());
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked leaves whole values behind: every update is a single assignment.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
