//! The independent check: the repository's own tests, run outside the loop before and after.
//! Its final result is the verdict; the model's stop reason never is.
//!
//! The counts and the failing tests are read from a JUnit XML report, never from what the
//! runner prints: pytest is asked for one (`--junitxml`, in a folder of its own outside the
//! copy, through `PYTEST_ADDOPTS` so that a wrapper running pytest passes it on), another runner
//! names the file it writes (`test.report = "junit"`). Only
//! `test.report = "exit_code"` goes by the exit code alone.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::exec::process::Finished;
use crate::exec::runner::TestRunner;
use crate::task::OutputReader;
use crate::task::{TestCommand, TestReport};
use crate::truncate::keep_tail;
use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::{load_failure, LoadFailure, Loaded};
use crate::verdict::read::note::Note;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::progress::shorten_trailing_progress;
use crate::verdict::read::readers::tests_counted;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::summary::{without_colours, Summary};
use crate::verdict::read::test_run::{RanTests, ReportFile};
use crate::verdict::trust::known::Known;
use crate::verdict::trust::printed::{forged_result, UNCONFIRMED};
use crate::verdict::trust::untrusted::{Alarm, OwedReport, Untrusted};
use crate::verdict::trust::witness::{witness_failure, Heard, Unchecked};

/// How much of the output a run that did not pass keeps, for the person reading the verdict.
const OUTPUT_TAIL_CHARS: usize = 2_000;

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
    pub note: Option<Note>,
    /// Why this run's result cannot count as a pass whatever its exit code says: no report
    /// where one was asked for, one mend cannot read, or one the witness contradicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_trusted: Option<Untrusted>,
    /// The task reads the exit code alone (`test.report = "exit_code"`): the weaker rule, with no
    /// test ids to hold the change to.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_exit_code: bool,
    /// How many tests the output's totals say ran, for a task judged by the exit code (see
    /// [`tests_counted`]); absent where it prints none mend knows, and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_counted: Option<u32>,
    /// What graded the run: pytest's, pluggy's and Python's versions, as mend's witness told
    /// them (pytest runs only; absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
    /// The witness's checks this pytest, pluggy or Python did not let it make, in sentences:
    /// the verdict stands without them, and says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<String>,
    /// Why the outcomes cannot be confirmed: read from the runner's output, which the code under
    /// test can print to (`verdict::trust::printed`); absent for a witnessed or JUnit run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconfirmed: Option<String>,
    /// The tests a skip raised by the code under test stopped (not pytest's marks, nor the
    /// tests' own code), each with the place it was raised: the witness's word (pytest runs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_by_code: BTreeMap<String, String>,
    /// The end of the output (colours removed) of a run that did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    /// Each test's outcome by id, for the contract (`verdict::grade::contract`); a record keeps the
    /// contract instead.
    #[serde(skip)]
    pub cases: BTreeMap<String, CaseOutcome>,
    /// What pytest's witness saw reach into the run: the first run's are the project's own, and
    /// do not count against the final run (`final_check`).
    #[serde(skip)]
    pub alarms: Vec<Alarm>,
    /// Everything the run printed as mend captured it (its last MiB when longer), unchanged:
    /// what SWE-bench's log parsers read. An eval keeps it beside each attempt's record
    /// (`eval::run_output`); a record keeps only the tail.
    #[serde(skip)]
    pub output: String,
}

impl TestRun {
    /// Exit code 0, nothing that makes the run untrustworthy, and when the report was read: no
    /// failing test and at least one that passed (a suite where nothing ran proves nothing).
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
            && self.not_trusted.is_none()
            && self.summary.is_none_or(|summary| {
                summary.failed == 0 && summary.errors == 0 && summary.passed > 0
            })
    }

    pub fn describe(&self) -> String {
        let outcome = match (self.exit_code, &self.summary) {
            (None, _) => {
                return self
                    .not_trusted
                    .as_ref()
                    .map(Untrusted::describe)
                    .or_else(|| self.note.as_ref().map(Note::describe))
                    .unwrap_or_else(|| "timed out".to_owned())
            }
            (Some(_), Some(summary)) => summary.describe(),
            (Some(code), None) => format!("exit {code}"),
        };
        let reasons: Vec<String> = self
            .not_trusted
            .iter()
            .map(Untrusted::describe)
            .chain(self.note.iter().map(Note::describe))
            .chain(
                (!self.unchecked.is_empty())
                    .then(|| format!("not checked: {}", self.unchecked.join("; "))),
            )
            .chain(self.unconfirmed.clone())
            .collect();
        if reasons.is_empty() {
            outcome
        } else {
            format!("{outcome} — {}", reasons.join("; "))
        }
    }
}

/// The tests could not give a verdict at all: the setup is wrong (pytest missing, a command
/// line pytest refuses, no report where the task says), or the model's change broke it.
struct NotRun {
    /// The run as far as it went, with the reason it is no pass (boxed: a `TestRun` is large,
    /// and this is the rare path).
    run: Box<TestRun>,
    /// What the user can do about it.
    fix: Fix,
}

/// What the user can do about a run that gave no verdict. Only the check before the loop (and
/// `mend verify`) says it, in the words of [`Fix::words`]: reading a run needs no runner.
enum Fix {
    /// The reason says it all: the tests were cut at the time limit.
    Nothing,
    Said(&'static str),
    /// pytest wrote no report, or its witness never spoke: pytest may be missing for the
    /// runner's Python, or the command may not pass mend's variables on.
    InstallPytest,
    /// pytest could not load a conftest.py or a plugin.
    Load(LoadFailure),
    /// The runner's output held nothing the reader reads.
    Unread(OutputReader),
}

impl Fix {
    /// The advice, for the tests `runner` runs; empty for [`Fix::Nothing`].
    fn words(&self, runner: &TestRunner) -> String {
        match self {
            Fix::Nothing => String::new(),
            Fix::Said(words) => (*words).to_owned(),
            Fix::InstallPytest => format!(
                "is pytest installed for `{0}`? Install it there (`{0} -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variables PYTEST_ADDOPTS, PYTHONPATH and MEND_WITNESS, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS PYTHONPATH MEND_WITNESS` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\"",
                runner.python
            ),
            Fix::Load(load) => load.fix(&runner.python),
            Fix::Unread(reader) => format!(
                "check that test.command prints what the {} reader reads, or set test.report = \"exit_code\"",
                reader.name()
            ),
        }
    }
}

/// A run of the tests that gave no verdict: the run as far as it went, and what it means in
/// words, with the fix where the user has one.
pub(crate) struct NoVerdict {
    /// The run, never a pass (boxed: a `TestRun` is large, and this is the rare path).
    pub run: Box<TestRun>,
    /// Why, with the fix and the end of the output: a harness error's message where no loop
    /// came before (the check before the loop, `mend verify`, `mend eval check`).
    pub message: String,
}

impl NoVerdict {
    fn of(not_run: NotRun, runner: &TestRunner, test: &TestCommand) -> NoVerdict {
        let run = not_run.run;
        let mut message = format!(
            "the test command `{}` gave no verdict: {}",
            test.argv.join(" "),
            run.not_trusted
                .as_ref()
                .map_or_else(|| "no result".to_owned(), Untrusted::describe),
        );
        let fix = not_run.fix.words(runner);
        if !fix.is_empty() {
            message.push_str(" — ");
            message.push_str(&fix);
        }
        if let Some(tail) = run.output_tail.as_deref().filter(|tail| !tail.is_empty()) {
            message.push_str(":\n");
            message.push_str(tail);
        }
        NoVerdict { run, message }
    }
}

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

/// Reads what one run handed over: the exit code as the runner means it, the report, and for
/// pytest the witness's account, which the report must agree with.
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
        (TestReport::Output(reader), _) => read_output_run(&finished, test, *reader),
        (TestReport::Junit { path }, report) => {
            let fix = Fix::Said("check that test.junit_path names the file the test command writes, or set test.report = \"exit_code\"");
            let owed = OwedReport::Junit {
                path: path.to_string(),
            };
            let reason = match report {
                ReportFile::Written(text) => match Report::parse(&text) {
                    Ok(report) => return Ok(read(&finished, test, Some(report), None)),
                    Err(reason) => Untrusted::ReportUnreadable { owed, reason },
                },
                ReportFile::Unreadable(reason) => Untrusted::ReportUnreadable { owed, reason },
                ReportFile::Missing | ReportFile::NotAsked => {
                    stopped_before_report(&finished, owed)
                }
            };
            Err(not_run(&finished, test, reason, fix))
        }
        (TestReport::Pytest, report) => {
            let load = witness_failure(&ran.witness, load_failure(&finished.output, workdir));
            let graded = read_pytest_run(&finished, test, report, (&ran.witness, known, load));
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

/// A run read from what the runner printed: each test's outcome by id, the counts from those.
fn read_output_run(
    finished: &Finished,
    test: &TestCommand,
    reader: OutputReader,
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
            Ok(run)
        }
        Err(reason) => Err(not_run(
            finished,
            test,
            Untrusted::OutputUnread { reason },
            Fix::Unread(reader),
        )),
    }
}

/// pytest's report as it wrote it, or why the run gave no verdict: pytest's own failures (exit
/// 3 and 4, read only when the command is pytest itself), no report, one mend cannot read.
fn pytest_report(
    finished: &Finished,
    test: &TestCommand,
    code: Option<i32>,
    report: ReportFile,
) -> Result<String, NotRun> {
    let fail = |reason: Untrusted, fix: Fix| Err(not_run(finished, test, reason, fix));
    match (code, report) {
        (Some(3), _) => fail(
            Untrusted::PytestInternalError,
            Fix::Said("see pytest's output below; a plugin or conftest.py may be failing"),
        ),
        (Some(4), _) => fail(
            Untrusted::PytestUsageError,
            Fix::Said("check test.command, and the project's pytest settings (addopts, conftest.py, plugins: test.plugins)"),
        ),
        (_, ReportFile::Written(text)) => Ok(text),
        (_, ReportFile::Missing | ReportFile::NotAsked) => {
            // Exit 0 with no report: pytest was there, and something it imported ended the
            // process before the report was written; the setup is not what to fix.
            let fix = if finished.status.and_then(|status| status.code()) == Some(0) {
                Fix::Said(EXITED_EARLY_FIX)
            } else {
                Fix::InstallPytest
            };
            fail(stopped_before_report(finished, OwedReport::Pytest), fix)
        }
        (_, ReportFile::Unreadable(reason)) => fail(
            Untrusted::ReportUnreadable {
                owed: OwedReport::Pytest,
                reason,
            },
            Fix::Said("see pytest's output below"),
        ),
    }
}

fn read_pytest_run(
    finished: &Finished,
    test: &TestCommand,
    report: ReportFile,
    (witness, known, load): (&[Vec<String>], Known<'_>, Option<LoadFailure>),
) -> Result<TestRun, NotRun> {
    // Read as pytest's own exit codes only when the command is pytest: a wrapper's are its own
    // (make exits 2 when a recipe fails), and then only the report tells what happened.
    let code = finished
        .status
        .and_then(|status| status.code())
        .filter(|_| runs_pytest_itself(&test.argv));
    let heard = Heard::of(witness);
    let no_report = !matches!(report, ReportFile::Written(_));
    // A witness that failed heard nothing to trust, whatever pytest went on to write.
    let witness_broke = load
        .as_ref()
        .is_some_and(|load| matches!(load.what, Loaded::Witness { .. }));
    if let Some(load) = load
        .as_ref()
        .filter(|_| witness_broke || no_report || matches!(code, Some(3 | 4)))
    {
        // pytest is there and said what it could not load: that, not the setup, is the fix.
        let reason = Untrusted::SetupNotLoaded {
            failure: load.clone(),
            exit: exit_words(finished, code),
        };
        return Err(not_run(finished, test, reason, Fix::Load(load.clone())));
    }
    let text = pytest_report(finished, test, code, report)?;
    let report = match Report::parse(&text) {
        Ok(report) => report,
        Err(reason) => {
            return Err(not_run(
                finished,
                test,
                Untrusted::ReportUnreadable {
                    owed: OwedReport::Pytest,
                    reason,
                },
                Fix::Said("see pytest's output below"),
            ))
        }
    };
    let note = match (code, load) {
        (Some(2), Some(load)) => Some(Note::InterruptedCollecting(load)),
        (Some(2), None) => Some(Note::PytestInterrupted),
        (Some(5), _) => Some(Note::NoTestsCollected),
        _ => None,
    };
    // mend's canaries are no part of the project's tests: no count, id or contract shows them.
    let canaries: Vec<String> = heard
        .as_ref()
        .map(|heard| heard.canary_ids().cloned().collect())
        .unwrap_or_default();
    let mut run = read(finished, test, Some(report.without(&canaries)), note);
    if let Ok(heard) = &heard {
        run.alarms = heard.alarms.clone();
        run.skipped_by_code = heard.skips_raised.clone();
        run.unchecked = heard.unchecked.iter().map(Unchecked::describe).collect();
    }
    let heard = heard.and_then(|heard| {
        heard
            .check(&text, &report.cases, code, known)
            .map(|()| heard)
    });
    trust(run, heard, &canaries, finished)
}

/// `run` as the witness's account leaves it: its cases are the ones the witness heard, or it
/// is untrusted for the reason the witness gives.
fn trust(
    mut run: TestRun,
    heard: Result<Heard, Untrusted>,
    canaries: &[String],
    finished: &Finished,
) -> Result<TestRun, NotRun> {
    match heard {
        Ok(mut heard) => {
            for id in canaries {
                heard.cases.remove(id);
            }
            run.cases = heard.cases;
        }
        Err(Untrusted::Silent) => {
            return Err(NotRun {
                run: Box::new(untrusted(run, finished, Untrusted::Silent)),
                fix: Fix::InstallPytest,
            });
        }
        Err(reason) => run = untrusted(run, finished, reason),
    }
    Ok(run)
}

/// `run`, no longer a pass for `reason`, with the output's end to show why.
fn untrusted(mut run: TestRun, finished: &Finished, reason: Untrusted) -> TestRun {
    run.not_trusted = Some(reason);
    run.output_tail = tail_of(&finished.output);
    run
}

/// The exit of a run pytest could not start, in the words of pytest's own exit codes where the
/// command is pytest itself (`code`).
fn exit_words(finished: &Finished, code: Option<i32>) -> String {
    match (code, finished.status.and_then(|status| status.code())) {
        (Some(3), _) => "an internal error, exit 3".to_owned(),
        (Some(4), _) => "a usage error, exit 4".to_owned(),
        (_, Some(exit)) => format!("exit {exit}, no pytest report"),
        (_, None) => "stopped, no pytest report".to_owned(),
    }
}

/// What a run that exited 0 without a report points at.
const EXITED_EARLY_FIX: &str = "something the tests import ended the process before pytest wrote its report (an `os._exit` or `sys.exit` at import, a conftest.py that exits); run the test command by hand to see where";

/// Why a run has no report: it ended before writing one, and with which exit.
fn stopped_before_report(finished: &Finished, owed: OwedReport) -> Untrusted {
    Untrusted::NoReport {
        exit: finished.status.and_then(|status| status.code()),
        owed,
    }
}

/// A run that gave no verdict, as far as it went: never a pass.
fn not_run(finished: &Finished, test: &TestCommand, reason: Untrusted, fix: Fix) -> NotRun {
    NotRun {
        run: Box::new(untrusted(
            read(finished, test, None, None),
            finished,
            reason,
        )),
        fix,
    }
}

/// pytest names the report file, which the user never sees; that line is left out.
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

/// The run as read: the exit code, the report's counts, and a note on what the exit means.
fn read(
    finished: &Finished,
    test: &TestCommand,
    report: Option<Report>,
    note: Option<Note>,
) -> TestRun {
    let exit_code = finished.status.and_then(|status| status.code());
    let (summary, failing, cases) = match report {
        Some(report) => (Some(report.summary), report.failing, report.cases),
        None => (None, Vec::new(), BTreeMap::new()),
    };
    let note = note.or_else(|| exit_note(finished, test, exit_code, summary.as_ref()));
    let mut run = TestRun {
        exit_code,
        summary,
        duration_ms: u64::try_from(finished.elapsed.as_millis()).unwrap_or(u64::MAX),
        failing,
        note,
        cases,
        output: finished.output.clone(),
        ..TestRun::default()
    };
    if !run.passed() {
        run.output_tail = tail_of(&finished.output);
    }
    run
}

/// What the exit code means when it is not a plain pass or fail.
fn exit_note(
    finished: &Finished,
    test: &TestCommand,
    exit_code: Option<i32>,
    summary: Option<&Summary>,
) -> Option<Note> {
    match (finished.status, exit_code) {
        (None, _) => Some(Note::TimedOut {
            seconds: test.timeout.as_secs(),
        }),
        (Some(status), None) => Some(Note::Killed {
            status: status.to_string(),
        }),
        (Some(_), Some(code)) => match summary {
            Some(summary) if code != 0 && summary.failed == 0 && summary.errors == 0 => {
                Some(Note::ExitedWithoutFailures { code })
            }
            Some(summary) if code == 0 && (summary.failed > 0 || summary.errors > 0) => {
                Some(Note::FailingDespiteZero)
            }
            _ => None,
        },
    }
}

/// The end of `output` without colours, a trailing run of pytest progress lines cut to its last
/// few; `None` when there is nothing to show.
fn tail_of(output: &str) -> Option<String> {
    let output = shorten_trailing_progress(&without_colours(output));
    let output = output.trim_end();
    (!output.trim().is_empty()).then(|| keep_tail(output, OUTPUT_TAIL_CHARS))
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

#[cfg(test)]
mod tests;
