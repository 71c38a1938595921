//! Why a run of the tests gave no verdict, and what the user can do about it.

use crate::exec::process::Finished;
use crate::exec::runner::TestRunner;
use crate::task::OutputReader;
use crate::task::TestCommand;
use crate::verdict::read::load_failure::LoadFailure;
use crate::verdict::read::summary::Summary;
use crate::verdict::trust::untrusted::{OwedReport, Untrusted};

use super::reading::{read, tail_of};
use super::run::TestRun;

/// The tests could not give a verdict at all: the setup is wrong (pytest missing, a command
/// line pytest refuses, no report where the task says), or the model's change broke it.
pub(super) struct NotRun {
    /// The run as far as it went, with the reason it is no pass (boxed: a `TestRun` is large,
    /// and this is the rare path).
    pub(super) run: Box<TestRun>,
    /// What the user can do about it.
    pub(super) fix: Fix,
}

/// What the user can do about a run that gave no verdict. Only the check before the loop (and
/// `mend verify`) says it, in the words of [`Fix::words`]: reading a run needs no runner.
pub(super) enum Fix {
    /// The reason says it all: the tests were cut at the time limit.
    Nothing,
    Said(&'static str),
    /// pytest wrote no report, or its witness never spoke: pytest may be missing for the
    /// runner's Python, or the command may not pass mend's variables on.
    InstallPytest,
    /// pytest could not load a conftest.py or a plugin.
    Load(LoadFailure),
    /// The runner's output held nothing the reader reads; `instead`: the report that reads it
    /// ([`read_instead`]).
    Unread {
        reader: OutputReader,
        instead: Option<&'static str>,
    },
}

impl Fix {
    /// The advice, for the tests `runner` runs; empty for [`Fix::Nothing`].
    fn words(&self, runner: &TestRunner) -> String {
        match self {
            Fix::Nothing => String::new(),
            Fix::Said(words) => (*words).to_owned(),
            Fix::InstallPytest => format!(
                "is pytest installed for `{0}`? Install it there (`{0} -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variables PYTEST_ADDOPTS, PYTHONPATH, MEND_WITNESS and MEND_WITNESS_COPY, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS PYTHONPATH MEND_WITNESS MEND_WITNESS_COPY` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\"",
                runner.python
            ),
            Fix::Load(load) => load.fix(&runner.python),
            Fix::Unread {
                instead: Some(instead),
                ..
            } => format!(
                "its output is what the {instead} reader reads: set test.report = \"{instead}\" (a task file that names no test.report is read by the runner its command names, and a script called runtests.py is taken for django's)"
            ),
            Fix::Unread {
                reader,
                instead: None,
            } => format!(
                "check that test.command prints what the {} reader reads, or set test.report = \"exit_code\"",
                reader.name()
            ),
        }
    }
}

/// The report that reads `output` where `reader` read nothing: `pytest` where it holds pytest's
/// summary line (pytest's own report, witnessed, reads it), else another reader of mend's that
/// finds results in it.
pub(super) fn read_instead(reader: OutputReader, output: &str) -> Option<&'static str> {
    if Summary::parse(output).is_some() {
        return Some("pytest");
    }
    [
        OutputReader::Django,
        OutputReader::Sympy,
        OutputReader::Libtest,
        OutputReader::PytestRa,
    ]
    .into_iter()
    .filter(|other| *other != reader)
    .find(|other| other.read(output).is_ok())
    .map(OutputReader::name)
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
    pub(super) fn of(not_run: NotRun, runner: &TestRunner, test: &TestCommand) -> NoVerdict {
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

/// A run that gave no verdict, as far as it went: never a pass.
pub(super) fn not_run(
    finished: &Finished,
    test: &TestCommand,
    reason: Untrusted,
    fix: Fix,
) -> NotRun {
    NotRun {
        run: Box::new(untrusted(
            read(finished, test, None, None),
            finished,
            reason,
        )),
        fix,
    }
}

/// `run`, no longer a pass for `reason`, with the output's end to show why.
pub(super) fn untrusted(mut run: TestRun, finished: &Finished, reason: Untrusted) -> TestRun {
    run.not_trusted = Some(reason);
    run.output_tail = tail_of(&finished.output);
    run
}

/// Why a run has no report: it ended before writing one, and with which exit.
pub(super) fn stopped_before_report(finished: &Finished, owed: OwedReport) -> Untrusted {
    Untrusted::NoReport {
        exit: finished.status.and_then(|status| status.code()),
        owed,
    }
}
