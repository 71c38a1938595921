//! `mend eval SUITE --out DIR`: every (task, attempt) of this process's slice as an ordinary
//! `mend run` (its own throwaway copy, its record and patch under `DIR/<task>/<attempt>.json`),
//! `--jobs` at a time, one results line per finished attempt.

use std::collections::{BTreeSet, VecDeque};

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::provider::connect::{api_key, connect, server_base, Connection};
use crate::setup::config::chosen_protocol;
use crate::telemetry::traces::Traces;

use super::prepared::{checked_flaky, prepare, EvalOptions, Prepared};
use super::results::{read_dir_rows, ResultsFile};
use super::running::Shared;

/// Runs this slice's attempts that have no results line yet.
pub(crate) fn eval(options: &EvalOptions) -> Result<u8, MendError> {
    let suite = &options.suite;
    let tasks = suite
        .tasks
        .iter()
        .map(|(name, folder)| prepare(name, folder, options))
        .collect::<Result<Vec<_>, _>>()?;
    let flaky = checked_flaky(options, &tasks)?;
    // Once per task, not per attempt: what the tools will not treat as text.
    for task in &tasks {
        crate::workspace::survey::warn_in_suite(
            &task.name,
            &task.resolved.repo,
            &task.resolved.task,
        )?;
    }
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
