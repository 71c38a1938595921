//! Reading a pytest run: pytest's own exit codes, its report, and what its witness heard, which
//! the report must agree with.

use crate::exec::process::Finished;
use crate::task::TestCommand;
use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::{LoadFailure, Loaded};
use crate::verdict::read::note::Note;
use crate::verdict::read::test_run::ReportFile;
use crate::verdict::trust::known::Known;
use crate::verdict::trust::untrusted::{OwedReport, Untrusted};
use crate::verdict::trust::witness::{Heard, Unchecked};

use super::no_verdict::{not_run, stopped_before_report, untrusted, Fix, NotRun};
use super::reading::read;
use super::run::TestRun;

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

pub(super) fn read_pytest_run(
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
        Err(unread) => {
            return Err(not_run(
                finished,
                test,
                Untrusted::ReportUnreadable {
                    owed: OwedReport::Pytest,
                    reason: unread.to_string(),
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
pub(super) const EXITED_EARLY_FIX: &str = "something the tests import ended the process before pytest wrote its report (an `os._exit` or `sys.exit` at import, a conftest.py that exits); run the test command by hand to see where";

/// Whether `argv` is pytest itself (`pytest …`, `python -m pytest …`), whose exit code is
/// pytest's, rather than a wrapper that runs it (`make test`, `sh -c …`, `tox`).
pub(super) fn runs_pytest_itself(argv: &[String]) -> bool {
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
