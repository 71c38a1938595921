//! Reading what one run handed over, for any runner: the exit code as the runner means it, the
//! report or the runner's own output, and a note on what the exit means.

use std::collections::BTreeMap;

use camino::Utf8Path;

use crate::exec::process::Finished;
use crate::task::OutputReader;
use crate::task::{TestCommand, TestReport};
use crate::truncate::keep_tail;
use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::load_failure;
use crate::verdict::read::note::Note;
use crate::verdict::read::progress::shorten_trailing_progress;
use crate::verdict::read::readers::tests_counted;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::summary::{without_colours, Summary};
use crate::verdict::read::test_run::{RanTests, ReportFile};
use crate::verdict::trust::known::Known;
use crate::verdict::trust::printed::{forged_result, UNCONFIRMED};
use crate::verdict::trust::untrusted::{OwedReport, Untrusted};
use crate::verdict::trust::witness::{witness_failure, Heard};

use super::no_verdict::{not_run, stopped_before_report, untrusted, Fix, NotRun};
use super::pytest::read_pytest_run;
use super::{TestRun, OUTPUT_TAIL_CHARS};

/// Reads what one run handed over: the exit code as the runner means it, the report, and for
/// pytest the witness's account, which the report must agree with.
pub(super) fn read_run(
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
pub(super) fn read(
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
pub(super) fn tail_of(output: &str) -> Option<String> {
    let output = shorten_trailing_progress(&without_colours(output));
    let output = output.trim_end();
    (!output.trim().is_empty()).then(|| keep_tail(output, OUTPUT_TAIL_CHARS))
}
