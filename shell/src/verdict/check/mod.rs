//! The independent check: the repository's own tests, run outside the loop before and after.
//! Its final result is the verdict; the model's stop reason never is.
//!
//! The counts and the failing tests are never read from what the runner prints where the runner
//! can tell them otherwise: under pytest they are what mend's witness plugin heard as each test
//! finished (loaded with `-p` through `PYTEST_ADDOPTS`, so that a wrapper running pytest passes
//! it on; pytest writes no report for mend), another runner names the JUnit XML file it writes
//! (`test.report = "junit"`); a reader of what the runner prints is named for the runners that
//! write nothing else (`libtest`, `django`, `sympy`, `pytest-ra`). Only `test.report = "exit_code"` goes by the exit code alone.
//!
//! Split by the question each part answers, arrows pointing one way: this file runs the tests
//! once, before the loop ([`independent_check`]) or after it ([`final_check`]), and hands what
//! came back to the reader of its kind; `pytest` reads a pytest run with its witness;
//! `no_verdict` says why a run gave no verdict, and the fix; `reading` is what any run came to
//! as read; `run` is the [`TestRun`] a record keeps.

use camino::Utf8Path;

use crate::error::MendError;
use crate::exec::process::Finished;
use crate::exec::runner::TestRunner;
use crate::task::{OutputReader, TestCommand, TestReport};
use crate::truncate::keep_tail;
use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::load_failure;
use crate::verdict::read::readers::tests_counted;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::test_run::{RanTests, ReportFile};
use crate::verdict::trust::known::Known;
use crate::verdict::trust::printed::{forged_result, UNCONFIRMED};
use crate::verdict::trust::unittest_watch::{account, Account};
use crate::verdict::trust::untrusted::{OwedReport, Untrusted};
use crate::verdict::trust::witness::{witness_failure, Heard};

mod no_verdict;
mod pytest;
mod reading;
mod run;

pub(crate) use no_verdict::NoVerdict;
use no_verdict::{not_run, read_instead, stopped_before_report, untrusted, Fix, NotRun};
use pytest::read_pytest_run;
use reading::{read, OUTPUT_TAIL_CHARS};
pub use run::TestRun;

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

/// Reads what one run handed over: the exit code as the runner means it, and the report, which
/// for pytest is the witness's account.
fn read_run(
    ran: RanTests,
    test: &TestCommand,
    (workdir, known): (&Utf8Path, Known<'_>),
) -> Result<TestRun, NotRun> {
    let finished = without_report_line(ran.finished, ran.report_path.as_deref());
    if finished.timed_out() {
        // Cut at the limit, the tests said nothing either way: before the loop the limit is
        // wrong for this suite; after it, the change made the tests hang.
        let run = read(&finished, test, None, None);
        return Err(NotRun {
            run: Box::new(TestRun {
                not_trusted: run.note.clone().map(Untrusted::Unfinished),
                note: None,
                ..run
            }),
            fix: Fix::Nothing,
        });
    }
    match (&test.report, ran.report) {
        (TestReport::ExitCode, _) => {
            let mut run = read(&finished, test, None, None);
            run.by_exit_code = true;
            run.tests_counted = tests_counted(&finished.output);
            Ok(run)
        }
        (TestReport::Output(reader), _) => {
            read_output_run(&finished, test, *reader, (&ran.witness, known))
        }
        (TestReport::Junit { path }, report) => {
            let fix = Fix::Said("check that test.junit_path names the file the test command writes, or set test.report = \"exit_code\"");
            let path = path.to_string();
            let reason = match report {
                ReportFile::Written(text) => match Report::parse(&text) {
                    Ok(report) => return Ok(read(&finished, test, Some(report), None)),
                    Err(unread) => Untrusted::ReportUnreadable {
                        path,
                        reason: unread.to_string(),
                    },
                },
                ReportFile::Unreadable(reason) => Untrusted::ReportUnreadable { path, reason },
                ReportFile::Missing | ReportFile::NotAsked => {
                    stopped_before_report(&finished, OwedReport::Junit { path })
                }
            };
            Err(not_run(&finished, test, reason, fix))
        }
        (TestReport::Pytest, _) => {
            let load = witness_failure(&ran.witness, load_failure(&finished.output, workdir));
            let graded = read_pytest_run(&finished, test, (&ran.witness, known, load));
            named_runner(graded, Heard::runner_of(&ran.witness))
        }
    }
}

/// The run, given or not, naming the pytest that ran it.
fn named_runner(
    graded: Result<TestRun, NotRun>,
    runner: Option<Runner>,
) -> Result<TestRun, NotRun> {
    match graded {
        Ok(run) => Ok(TestRun { runner, ..run }),
        Err(mut not_run) => {
            not_run.run.runner = runner;
            Err(not_run)
        }
    }
}

/// A run read from what the runner printed: each test's outcome by id, the counts from those,
/// held to what mend's unittest watcher heard where unittest recorded them.
fn read_output_run(
    finished: &Finished,
    test: &TestCommand,
    reader: OutputReader,
    (watcher, known): (&[Vec<String>], Known<'_>),
) -> Result<TestRun, NotRun> {
    match reader.read(&finished.output) {
        Ok(report) => {
            let run = TestRun {
                unconfirmed: Some(UNCONFIRMED.to_owned()),
                ..read(finished, test, Some(report), None)
            };
            if let Some(reason) = forged_result(reader, &finished.output) {
                return Ok(untrusted(run, finished, reason));
            }
            // The kept end of a long output lacks the first tests' lines; -rA's summary is at
            // the end, whole.
            if finished.head_dropped && reader != OutputReader::PytestRa {
                let reason = Untrusted::HeadDropped { reader };
                return Ok(untrusted(run, finished, reason));
            }
            if !reader.watched_by_unittest() {
                return Ok(run);
            }
            Ok(match account(watcher, &run.cases, known) {
                Account::Confirmed { alarms } => TestRun {
                    unconfirmed: None,
                    alarms,
                    ..run
                },
                Account::Unconfirmed(why) => TestRun {
                    unconfirmed: Some(why),
                    ..run
                },
                Account::Untrusted(reason) => {
                    let run = TestRun {
                        unconfirmed: None,
                        ..run
                    };
                    untrusted(run, finished, reason)
                }
            })
        }
        Err(nothing) => Err(not_run(
            finished,
            test,
            Untrusted::OutputUnread {
                reason: nothing.to_string(),
            },
            Fix::Unread {
                reader,
                instead: read_instead(reader, &finished.output),
            },
        )),
    }
}

/// pytest names the JUnit file a task reads (`test.junit_path`), which the user knows; that
/// line is left out.
fn without_report_line(finished: Finished, report: Option<&Utf8Path>) -> Finished {
    let Some(report) = report else {
        return finished;
    };
    let line = format!("generated xml file: {report}");
    let output = finished
        .output
        .lines()
        .filter(|printed| !printed.contains(&line))
        .collect::<Vec<_>>()
        .join("\n");
    Finished { output, ..finished }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod witness_report_tests;
