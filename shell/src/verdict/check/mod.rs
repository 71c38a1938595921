//! The independent check: the repository's own tests, run outside the loop before and after.
//! Its final result is the verdict; the model's stop reason never is.
//!
//! The counts and the failing tests are read from a JUnit XML report, never from what the
//! runner prints: pytest is asked for one (`--junitxml`, in a folder of its own outside the
//! copy, through `PYTEST_ADDOPTS` so that a wrapper running pytest passes it on), another runner
//! names the file it writes (`test.report = "junit"`). Only
//! `test.report = "exit_code"` goes by the exit code alone.
//!
//! Split by the question each part answers: this file runs the tests once, before the loop
//! ([`independent_check`]) or after it ([`final_check`]); `run` is what one run came to (the
//! [`TestRun`] a record keeps); `reading` reads any runner's run, `pytest` a pytest run with
//! its witness; `no_verdict` says why a run gave no verdict, and the fix.

use camino::Utf8Path;

use crate::error::MendError;
use crate::exec::process::Finished;
use crate::exec::runner::TestRunner;
use crate::task::TestCommand;
use crate::truncate::keep_tail;
use crate::verdict::trust::known::Known;

mod no_verdict;
mod pytest;
mod reading;
mod run;

pub(crate) use no_verdict::NoVerdict;
use no_verdict::NotRun;
use reading::read_run;
pub use run::TestRun;

/// How much of the output a run that did not pass keeps, for the person reading the verdict.
const OUTPUT_TAIL_CHARS: usize = 2_000;

/// The check before the loop, and `mend verify`: tests that cannot give a verdict there mean
/// the task or the environment is wrong, a harness error that names the fix.
pub fn independent_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<TestRun, MendError> {
    run_and_read(runner, test, workdir, Known::default())?
        .map_err(|no_verdict| MendError::harness(no_verdict.message))
}

/// The check after the model's work: the same tests, in the same environment as the first
/// check, so a run that gives no verdict now was broken by the change, and fails. What the
/// witness saw in the first run (`known`: the project's own frame reads, say) is not held
/// against it.
pub fn final_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
    known: Known<'_>,
) -> Result<TestRun, MendError> {
    Ok(run_and_read(runner, test, workdir, known)?.unwrap_or_else(|no_verdict| *no_verdict.run))
}

/// The task's tests once in `workdir`, read and trusted: the run, or why it gave no verdict.
/// `Err` is the harness's own failure (the command cannot start, a file mend cannot handle).
pub(crate) fn run_and_read(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
    known: Known<'_>,
) -> Result<Result<TestRun, NoVerdict>, MendError> {
    Ok(
        check(runner, test, workdir, known)?
            .map_err(|not_run| NoVerdict::of(not_run, runner, test)),
    )
}

/// Runs the task's tests once in `workdir` and reads their result. `Err` is the harness's own
/// failure (the command cannot start, a file mend cannot handle).
fn check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
    known: Known<'_>,
) -> Result<Result<TestRun, NotRun>, MendError> {
    let ran = runner.run_tests(test, workdir)?;
    if let Some(message) = cargo_offline(&test.argv, &ran.finished) {
        return Err(MendError::harness(message));
    }
    Ok(read_run(ran, test, (workdir, known)))
}

/// What cargo prints when it needs the network to resolve or download dependencies, which the
/// sandbox does not give it.
const CARGO_OFFLINE_SIGNS: [&str; 4] = [
    "failed to get `",
    "failed to download",
    "Unable to update registry",
    "failed to load source for dependency",
];

/// A cargo test command that failed because it could not fetch its dependencies: no verdict,
/// but a setup to fix before any run (the tests never ran).
fn cargo_offline(argv: &[String], finished: &Finished) -> Option<String> {
    let program = argv.first()?.rsplit('/').next()?;
    let failed = finished.status.is_some_and(|status| !status.success());
    let offline = CARGO_OFFLINE_SIGNS
        .iter()
        .any(|sign| finished.output.contains(sign));
    (program == "cargo" && failed && offline).then(|| {
        format!(
            "the test command `{}` could not fetch its dependencies: the tests run without network. Run `cargo generate-lockfile` (if the project has no Cargo.lock) and `cargo fetch` in the repository once, then try again:\n{}",
            argv.join(" "),
            keep_tail(finished.output.trim(), OUTPUT_TAIL_CHARS)
        )
    })
}

#[cfg(test)]
mod tests;
