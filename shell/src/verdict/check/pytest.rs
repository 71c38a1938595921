//! Reading a pytest run: pytest's own exit codes, and what its witness heard as each test
//! finished, which is the run's report (pytest writes none for mend).

use crate::exec::process::Finished;
use crate::task::TestCommand;
use crate::verdict::read::load_failure::{LoadFailure, Loaded};
use crate::verdict::read::note::Note;
use crate::verdict::trust::known::Known;
use crate::verdict::trust::untrusted::{OwedReport, Untrusted};
use crate::verdict::trust::witness::{Heard, Unchecked};

use super::no_verdict::{not_run, stopped_before_report, untrusted, Fix, NotRun};
use super::reading::read;
use super::run::TestRun;

pub(super) fn read_pytest_run(
    finished: &Finished,
    test: &TestCommand,
    (witness, known, load): (&[Vec<String>], Known<'_>, Option<LoadFailure>),
) -> Result<TestRun, NotRun> {
    // Read as pytest's own exit codes only when the command is pytest: a wrapper's are its own
    // (make exits 2 when a recipe fails), and then only the witness tells what happened.
    let code = finished
        .status
        .and_then(|status| status.code())
        .filter(|_| runs_pytest_itself(&test.argv));
    let heard = Heard::of(witness);
    // pytest never reported the end of its session: nothing spoke, or the witness was cut off.
    let unfinished = matches!(heard, Err(Untrusted::Silent | Untrusted::StoppedEarly));
    // A witness that failed heard nothing to trust, whatever pytest went on to do.
    let witness_broke = load
        .as_ref()
        .is_some_and(|load| matches!(load.what, Loaded::Witness { .. }));
    if let Some(load) = load
        .as_ref()
        .filter(|_| witness_broke || unfinished || matches!(code, Some(3 | 4)))
    {
        // pytest is there and said what it could not load: that, not the setup, is the fix.
        let reason = Untrusted::SetupNotLoaded {
            failure: load.clone(),
            exit: exit_words(finished, code),
        };
        return Err(not_run(finished, test, reason, Fix::Load(load.clone())));
    }
    let fail = |reason: Untrusted, fix: Fix| Err(not_run(finished, test, reason, fix));
    let heard = match (code, heard) {
        (Some(3), _) => return fail(
            Untrusted::PytestInternalError,
            Fix::Said("see pytest's output below; a plugin or conftest.py may be failing"),
        ),
        (Some(4), _) => return fail(
            Untrusted::PytestUsageError,
            Fix::Said("check test.command, and the project's pytest settings (addopts, conftest.py, plugins: test.plugins)"),
        ),
        (_, Ok(heard)) => heard,
        (_, Err(Untrusted::Silent | Untrusted::StoppedEarly)) => {
            // Exit 0 and no end of session: pytest was there, and something it imported ended
            // the process before the session ended; the setup is not what to fix.
            let fix = if finished.status.and_then(|status| status.code()) == Some(0) {
                Fix::Said(EXITED_EARLY_FIX)
            } else {
                Fix::InstallPytest
            };
            return fail(stopped_before_report(finished, OwedReport::Pytest), fix);
        }
        (_, Err(reason)) => {
            let run = read(finished, test, None, exit_note(code, load));
            return Ok(untrusted(run, finished, reason));
        }
    };
    // mend's canaries are no part of the project's tests: no count, id or contract shows them.
    let mut run = read(finished, test, Some(heard.report()), exit_note(code, load));
    run.alarms = heard.alarms.clone();
    run.loaded_first = heard.loaded_first.clone();
    run.skipped_by_code = heard.skips_raised.clone();
    run.unchecked = heard.unchecked.iter().map(Unchecked::describe).collect();
    Ok(match heard.check(code, known) {
        Ok(()) => run,
        Err(reason) => untrusted(run, finished, reason),
    })
}

/// What pytest's own exit code says beyond pass or fail.
fn exit_note(code: Option<i32>, load: Option<LoadFailure>) -> Option<Note> {
    match (code, load) {
        (Some(2), Some(load)) => Some(Note::InterruptedCollecting(load)),
        (Some(2), None) => Some(Note::PytestInterrupted),
        (Some(5), _) => Some(Note::NoTestsCollected),
        _ => None,
    }
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

/// What a run that exited 0 before pytest ended its session points at.
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
