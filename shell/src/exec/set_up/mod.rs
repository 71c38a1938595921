//! `environment.setup`: the commands that set a copy up before its first test run (an editable
//! install that writes `_version.py` and `*.egg-info`, a build of extension modules), run as
//! the tests are run — by the same runner, in the same sandbox, in the copy — each with its own
//! limit, their output kept in a log.
//!
//! A set-up is the same for every copy of the same original, so it runs once: what it wrote in
//! the copy (every file whose change time is past the moment it started) is kept in a store
//! beside the records (`.mend/setup/<key>/`), and every later copy gets those files instead of
//! running the steps again. The key is the steps, the interpreter, the image and the original's
//! files (path, size, time): change any and the set-up runs again. The store is never a copy's:
//! files are copied out of it, it lies inside the hidden original (or beside the task file,
//! outside an image), and each reuse checks every file against the digest the set-up recorded,
//! running the steps again when one differs. A kept result nobody made or reused for a week is
//! removed when the next one is kept (every change to the original makes a new key).

mod outputs;
mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::exec::process::run_bounded;
use crate::interrupt::Watch;
use crate::task::SetUpSteps;
use crate::truncate::keep_tail;

/// How much of a failing step's output its error quotes.
const FAILED_TAIL_CHARS: usize = 1500;

/// The set-up of one task's copies, shared by every attempt that uses the same runner.
pub struct SetUp {
    steps: SetUpSteps,
    /// The folder the results and logs are kept in.
    store: Utf8PathBuf,
    key: String,
    /// The copies set up so far.
    done: Mutex<BTreeSet<Utf8PathBuf>>,
    /// The files the set-up writes, relative to a copy's root, once known.
    written: Mutex<Option<BTreeSet<String>>>,
    /// The time spent setting copies up so far (steps run, or the kept result copied in).
    spent: Mutex<Duration>,
}

impl SetUp {
    /// The set-up of copies of `original`, its results kept under `records/.mend/setup`; `None`
    /// when the task has no steps.
    pub fn for_task(
        steps: &SetUpSteps,
        original: &Utf8Path,
        records: &Utf8Path,
        context: &[&str],
    ) -> Result<Option<SetUp>, MendError> {
        if steps.steps.is_empty() {
            return Ok(None);
        }
        let key = store::key(&steps.steps, original, context).map_err(|err| {
            MendError::harness(format!("cannot read {original} to key its set-up: {err}"))
        })?;
        Ok(Some(SetUp {
            steps: steps.clone(),
            store: records.join(".mend").join("setup"),
            key,
            done: Mutex::new(BTreeSet::new()),
            written: Mutex::new(None),
            spent: Mutex::new(Duration::ZERO),
        }))
    }

    /// The files the set-up wrote into a copy, relative to its root: the environment's, not a
    /// change of the attempt's (empty until a copy was set up).
    pub fn written(&self) -> BTreeSet<String> {
        self.written
            .lock()
            .ok()
            .and_then(|written| written.clone())
            .unwrap_or_default()
    }

    /// The time spent setting copies up so far: a part of the first test run in each copy,
    /// which a verify shows apart from the tests.
    pub fn time_spent(&self) -> Duration {
        self.spent.lock().map_or(Duration::ZERO, |spent| *spent)
    }

    /// The copy at `workdir` is no longer set up (put back to the original, which removed what
    /// the set-up wrote): its next command sets it up again.
    pub fn forget(&self, workdir: &Utf8Path) {
        if let Ok(mut done) = self.done.lock() {
            done.remove(workdir);
        }
    }

    /// Where the log of the set-up that made the kept result is.
    pub fn log_path(&self) -> Utf8PathBuf {
        store::log_path(&self.store, &self.key)
    }

    /// Sets the copy at `workdir` up, once: from the kept result when it is whole, else by
    /// running the steps.
    /// `command` makes a step's command in the copy, as the tests' runner makes theirs.
    pub(crate) fn ensure(&self, workdir: &Utf8Path, command: CommandIn) -> Result<(), MendError> {
        // Held for the whole set-up: a second worker on the same runner waits, then reuses.
        let mut done = self
            .done
            .lock()
            .map_err(|_| MendError::harness("a set-up of another copy failed midway"))?;
        if done.contains(workdir) {
            return Ok(());
        }
        let started = Instant::now();
        let written = match store::reuse(&self.store, &self.key, workdir)? {
            Some(written) => written,
            None => self.run_steps(workdir, command)?,
        };
        if let Ok(mut spent) = self.spent.lock() {
            *spent += started.elapsed();
        }
        if let Ok(mut known) = self.written.lock() {
            *known = Some(written);
        }
        done.insert(workdir.to_owned());
        Ok(())
    }

    fn run_steps(
        &self,
        workdir: &Utf8Path,
        command: CommandIn,
    ) -> Result<BTreeSet<String>, MendError> {
        let clock = std::time::Instant::now();
        let started = outputs::Moment::now(workdir)?;
        let mut log = String::new();
        let count = self.steps.steps.len();
        for (index, step) in self.steps.steps.iter().enumerate() {
            let argv = ["bash".to_owned(), "-c".to_owned(), step.clone()];
            let finished = run_bounded(command(&argv)?, self.steps.timeout, Watch::NONE).map_err(|err| {
                MendError::harness(format!(
                    "the set-up step {} of {count} `{step}` cannot start: {err} — install bash, or change environment.setup",
                    index + 1
                ))
            })?;
            log.push_str(&format!("$ {step}\n{}\n", finished.output));
            let failed = if finished.timed_out() {
                Some(format!(
                    "did not finish in {} s (environment.setup_timeout_seconds)",
                    self.steps.timeout.as_secs()
                ))
            } else {
                match finished.status.and_then(|status| status.code()) {
                    Some(0) => None,
                    Some(code) => Some(format!("exited {code}")),
                    None => Some("was killed by a signal".to_owned()),
                }
            };
            if let Some(why) = failed {
                let path = store::keep_log(&self.store, &self.key, &log);
                return Err(MendError::harness(format!(
                    "the set-up step {} of {count} `{step}` {why}, so no test ran (its whole output: {path}):\n{}",
                    index + 1,
                    keep_tail(finished.output.trim(), FAILED_TAIL_CHARS)
                )));
            }
        }
        let written = outputs::written_since(workdir, &started)?;
        store::keep(&self.store, &self.key, workdir, &written, &log)?;
        eprintln!(
            "mend: set-up: {count} step(s) ran in {:.1} s, wrote {} file(s), kept for the next copies (log: {})",
            clock.elapsed().as_secs_f64(),
            written.len(),
            self.log_path()
        );
        Ok(written)
    }
}

impl std::fmt::Debug for SetUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetUp")
            .field("steps", &self.steps)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Makes the command that runs an argument list in the copy.
pub(crate) type CommandIn<'a> = &'a dyn Fn(&[String]) -> Result<Command, MendError>;

/// What a kept set-up holds: each file's digest, by path.
type Manifest = BTreeMap<String, String>;
