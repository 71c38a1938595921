//! What one run came to as read, for any runner: the exit code as the runner means it, the
//! report's counts, a note on what the exit means, and the end of the output to show.

use std::collections::BTreeMap;

use crate::exec::process::Finished;
use crate::task::TestCommand;
use crate::truncate::keep_tail;
use crate::verdict::read::junit::Report;
use crate::verdict::read::note::Note;
use crate::verdict::read::progress::shorten_trailing_progress;
use crate::verdict::read::summary::{without_colours, Summary};

use super::run::TestRun;

/// How much of the output a run that did not pass keeps, for the person reading the verdict.
pub(super) const OUTPUT_TAIL_CHARS: usize = 2_000;

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
