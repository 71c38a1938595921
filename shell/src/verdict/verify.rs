//! The independent check: the repository's own tests, run outside the loop before and after.
//! Its final result is the verdict; the model's stop reason never is.
//!
//! The counts and the failing tests are read from a JUnit XML report, never from what the
//! runner prints: pytest is asked for one (`--junitxml`, in a folder of its own outside the
//! copy, through `PYTEST_ADDOPTS` so that a wrapper running pytest passes it on), another runner
//! names the file it writes (`test.report = "junit"`). Only
//! `test.report = "exit_code"` goes by the exit code alone.

use std::fs;
use std::io;

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::interrupt::Watch;
use crate::task::{TestCommand, TestReport};
use crate::truncate::keep_tail;
use crate::verdict::junit::Report;
use crate::verdict::progress::shorten_trailing_progress;
use crate::verdict::summary::{without_colours, Summary};
use crate::workspace::process::Finished;
use crate::workspace::runner::{Extra, TestRunner};

/// How much of the output a run that did not pass keeps, for the person reading the verdict.
const OUTPUT_TAIL_CHARS: usize = 2_000;
/// The file pytest writes its report to, in a temporary folder of its own.
const PYTEST_REPORT_FILE: &str = "junit.xml";
/// A report larger than this is not read (a JUnit file of a huge suite is a few MiB).
const REPORT_MAX_BYTES: u64 = 64 << 20;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// `None` when the run was killed (at the timeout, or by a signal).
    pub exit_code: Option<i32>,
    /// The counts of the report; absent when the task reads only the exit code
    /// (`test.report`) or the run was stopped before it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    pub duration_ms: u64,
    /// The tests that failed or errored, as the report names them, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
    /// What the exit code means when it is not a plain pass or fail: the time limit, no tests
    /// collected, pytest interrupted or unable to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The end of the output (colours removed) of a run that did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
}

impl TestRun {
    /// Exit code 0, and when the report was read: no failing test and at least one that passed
    /// (a suite where nothing ran proves nothing).
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
            && self.summary.is_none_or(|summary| {
                summary.failed == 0 && summary.errors == 0 && summary.passed > 0
            })
    }

    pub fn describe(&self) -> String {
        let outcome = match (self.exit_code, &self.summary) {
            (None, _) => return self.note.clone().unwrap_or_else(|| "timed out".to_owned()),
            (Some(_), Some(summary)) => summary.describe(),
            (Some(code), None) => format!("exit {code}"),
        };
        match &self.note {
            Some(note) => format!("{outcome} — {note}"),
            None => outcome,
        }
    }
}

/// The tests could not give a verdict at all: the setup is wrong (pytest missing, a command
/// line pytest refuses, no report where the task says), or the model's change broke it.
struct NotRun {
    /// The run as far as it went, with the reason as its note.
    run: TestRun,
    /// What the user can do about it.
    fix: String,
}

/// The check before the loop, and `mend verify`: tests that cannot give a verdict there mean
/// the task or the environment is wrong, a harness error that names the fix.
pub fn independent_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<TestRun, MendError> {
    check(runner, test, workdir)?.map_err(|not_run| {
        let run = not_run.run;
        let mut message = format!(
            "the test command `{}` gave no verdict: {} — {}",
            test.argv.join(" "),
            run.note.as_deref().unwrap_or("no result"),
            not_run.fix
        );
        if let Some(tail) = run.output_tail.as_deref().filter(|tail| !tail.is_empty()) {
            message.push_str(":\n");
            message.push_str(tail);
        }
        MendError::harness(message)
    })
}

/// The check after the model's work: the same tests, in the same environment as the first
/// check, so a run that gives no verdict now was broken by the change, and fails.
pub fn final_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<TestRun, MendError> {
    Ok(check(runner, test, workdir)?.unwrap_or_else(|not_run| not_run.run))
}

/// Runs the task's tests once in `workdir` and reads their result. `Err` is the harness's own
/// failure (the command cannot start, a file mend cannot handle).
fn check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<Result<TestRun, NotRun>, MendError> {
    match &test.report {
        TestReport::Pytest => pytest_check(runner, test, workdir),
        TestReport::Junit { path } => junit_check(runner, test, workdir, path),
        TestReport::ExitCode => {
            let finished = runner.run(test, workdir, Watch::NONE)?;
            Ok(Ok(ran(&finished, test, None, None)))
        }
    }
}

fn pytest_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
) -> Result<Result<TestRun, NotRun>, MendError> {
    let kept_until_read = tempfile::Builder::new()
        .prefix("mend-report-")
        .tempdir()
        .map_err(|err| {
            MendError::harness(format!("cannot create a folder for pytest's report: {err}"))
        })?;
    let folder = Utf8Path::from_path(kept_until_read.path()).ok_or_else(|| {
        MendError::harness(format!(
            "the temporary folder {} is not UTF-8 — set TMPDIR to a plain path",
            kept_until_read.path().display()
        ))
    })?;
    let report_path = folder.join(PYTEST_REPORT_FILE);
    let extra = Extra {
        writable: &[folder.to_owned()],
        pytest_options: &report_options(&report_path),
    };
    let finished = runner.run_reporting(test, workdir, extra)?;
    // pytest names the report file, which the user never sees; that line is left out.
    let output = finished
        .output
        .lines()
        .filter(|line| !line.contains(&format!("generated xml file: {report_path}")))
        .collect::<Vec<_>>()
        .join("\n");
    let finished = Finished { output, ..finished };
    if finished.timed_out() {
        return Ok(Ok(ran(&finished, test, None, None)));
    }
    let report = read_report(&report_path);
    // Read as pytest's own exit codes only when the command is pytest: a wrapper's are its own
    // (make exits 2 when a recipe fails), and then only the report tells what happened.
    let code = finished
        .status
        .and_then(|status| status.code())
        .filter(|_| runs_pytest_itself(&test.argv));
    let not_run = |note: String, fix: &str| {
        let mut run = ran(&finished, test, None, Some(note));
        run.output_tail = tail_of(&finished.output);
        Ok(Err(NotRun {
            run,
            fix: fix.to_owned(),
        }))
    };
    match (code, report) {
        (Some(3), _) => not_run(
            "pytest stopped with an internal error (exit 3)".to_owned(),
            "see pytest's output below; a plugin or conftest.py may be failing",
        ),
        (Some(4), _) => not_run(
            "pytest refused its command line or configuration (usage error, exit 4)".to_owned(),
            "check test.command, and the project's pytest settings (addopts, conftest.py, plugins: test.plugins)",
        ),
        (_, Ok(Some(report))) => {
            let note = match code {
                Some(2) => Some("pytest was interrupted (exit 2), e.g. by errors while collecting the tests".to_owned()),
                Some(5) => Some("pytest collected no tests (exit 5)".to_owned()),
                _ => None,
            };
            Ok(Ok(ran(&finished, test, Some(report), note)))
        }
        (_, Ok(None)) => not_run(
            "it wrote no pytest report".to_owned(),
            &format!(
                "is pytest installed for `{0}`? Install it there (`{0} -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variable PYTEST_ADDOPTS, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\"",
                runner.python
            ),
        ),
        (_, Err(reason)) => not_run(
            format!("pytest's report could not be read: {reason}"),
            "see pytest's output below",
        ),
    }
}

fn junit_check(
    runner: &TestRunner,
    test: &TestCommand,
    workdir: &Utf8Path,
    path: &str,
) -> Result<Result<TestRun, NotRun>, MendError> {
    let report_path = workdir.join(path);
    // A report left in the repository by an earlier run must not stand in for this one.
    match fs::remove_file(&report_path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => {
            return Err(MendError::harness(format!(
                "cannot remove the old report {path} in the copy: {err}"
            )))
        }
        _ => {}
    }
    let finished = runner.run(test, workdir, Watch::NONE)?;
    if finished.timed_out() {
        return Ok(Ok(ran(&finished, test, None, None)));
    }
    let reason = match read_report(&report_path) {
        Ok(Some(report)) => return Ok(Ok(ran(&finished, test, Some(report), None))),
        Ok(None) => format!("it wrote no JUnit report at {path}"),
        Err(reason) => format!("its JUnit report {path} could not be read: {reason}"),
    };
    let mut run = ran(&finished, test, None, Some(reason));
    run.output_tail = tail_of(&finished.output);
    Ok(Err(NotRun {
        run,
        fix: "check that test.junit_path names the file the test command writes, or set test.report = \"exit_code\"".to_owned(),
    }))
}

/// The run as read: the exit code, the report's counts, and a note on what the exit means.
fn ran(
    finished: &Finished,
    test: &TestCommand,
    report: Option<Report>,
    note: Option<String>,
) -> TestRun {
    let exit_code = finished.status.and_then(|status| status.code());
    let (summary, failing) = match report {
        Some(report) => (Some(report.summary), report.failing),
        None => (None, Vec::new()),
    };
    let note = note.or_else(|| match (finished.status, exit_code) {
        (None, _) => Some(format!(
            "the tests did not finish within {} s and were stopped; if they need longer, raise `timeout_seconds` under [test] in the task file (mend.toml)",
            test.timeout.as_secs()
        )),
        (Some(status), None) => Some(format!("the test process was killed ({status})")),
        (Some(_), Some(code)) => match &summary {
            Some(summary) if code != 0 && summary.failed == 0 && summary.errors == 0 => {
                Some(format!("the test command exited with {code}"))
            }
            Some(summary) if code == 0 && (summary.failed > 0 || summary.errors > 0) => {
                Some("the report lists failing tests although the command exited with 0".to_owned())
            }
            _ => None,
        },
    });
    let mut run = TestRun {
        exit_code,
        summary,
        duration_ms: u64::try_from(finished.elapsed.as_millis()).unwrap_or(u64::MAX),
        failing,
        note,
        output_tail: None,
    };
    if !run.passed() {
        run.output_tail = tail_of(&finished.output);
    }
    run
}

/// The end of `output` without colours, a trailing run of pytest progress lines cut to its last
/// few; `None` when there is nothing to show.
fn tail_of(output: &str) -> Option<String> {
    let output = shorten_trailing_progress(&without_colours(output));
    let output = output.trim_end();
    (!output.trim().is_empty()).then(|| keep_tail(output, OUTPUT_TAIL_CHARS))
}

/// `Ok(None)` when there is no report; `Err` with the reason when there is one mend cannot read.
fn read_report(path: &Utf8Path) -> Result<Option<Report>, String> {
    let size = match fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => metadata.len(),
        Ok(_) => return Err("it is not a file".to_owned()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    if size > REPORT_MAX_BYTES {
        return Err(format!(
            "it has {size} bytes, more than the {REPORT_MAX_BYTES} mend reads"
        ));
    }
    let bytes = fs::read(path).map_err(|err| err.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())?;
    Report::parse(&text).map(Some)
}

/// Whether `argv` is pytest itself (`pytest …`, `python -m pytest …`), whose exit code is
/// pytest's, rather than a wrapper that runs it (`make test`, `sh -c …`, `tox`).
fn runs_pytest_itself(argv: &[String]) -> bool {
    let name = |word: &String| word.rsplit('/').next().unwrap_or_default().to_owned();
    let Some(first) = argv.first().map(name) else {
        return false;
    };
    if first == "pytest" || first == "py.test" {
        return true;
    }
    let options: Vec<&String> = argv[1..]
        .iter()
        .take_while(|word| word.starts_with('-'))
        .collect();
    first.starts_with("python")
        && options.last().is_some_and(|last| *last == "-m")
        && argv
            .get(options.len() + 1)
            .is_some_and(|module| module == "pytest")
}

/// pytest's report options: the report to `report`, with the file of each test
/// (`junit_family=xunit1`, whatever the project set) so failing tests get their node ids.
fn report_options(report: &Utf8Path) -> Vec<String> {
    vec![
        format!("--junitxml={report}"),
        "--override-ini=junit_family=xunit1".to_owned(),
    ]
}

#[cfg(test)]
mod tests;
