//! The parts of a session's end ([`super::finish`]): its record (and its change beside it)
//! written under the name actually free, what happened told to the user, and the one rule of the
//! exit code.

use camino::Utf8PathBuf;
use mend_core::{Stop, StopReason};

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::error::{exit, MendError};
use crate::record::stop::explain_stop;
use crate::record::target::{RecordFile, RecordTarget};
use crate::record::Record;
use crate::task::Task;

/// The files a finished session was written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    pub record: Utf8PathBuf,
    /// `RECORD.patch` beside the record, when the session changed something.
    pub patch: Option<Utf8PathBuf>,
}

/// Writes `record` to `target` and, when `diff` is not empty, the patch beside the file actually
/// written (a new record in `.mend/` may be `STAMP-2.json`, then its patch is `STAMP-2.patch`).
pub(crate) fn write_record(
    target: &RecordTarget,
    record: &Record,
    diff: &str,
) -> Result<Written, MendError> {
    let record = RecordFile::new(target.clone()).write_json(record)?;
    let patch = if diff.is_empty() {
        None
    } else {
        let patch = record.with_extension("patch");
        crate::record::patch::write_atomically(&patch, diff)?;
        Some(patch)
    };
    Ok(Written { record, patch })
}

/// What a live session left to say after its verdict (`mend run`, `mend resume`).
pub(crate) struct Outcome<'a> {
    pub written: &'a Written,
    pub test_files_changed: bool,
    pub task: &'a Task,
    pub diff: &'a str,
    pub print_diff: bool,
    pub stop: &'a Stop,
    pub model: &'a str,
    pub exit_code: u8,
}

/// Says where the record and the patch are, and explains a model failure.
pub(crate) fn report_outcome(outcome: &Outcome, render: &mut dyn Render) {
    let record = &outcome.written.record;
    eprintln!("mend: record written to {record} (replay it with `mend replay {record}`)");
    if outcome.test_files_changed {
        eprintln!(
            "mend: the run changed the task's test files ({}), so its final tests do not count as a pass",
            outcome.task.test.files.listed("and")
        );
    }
    if let Some(patch) = &outcome.written.patch {
        eprintln!("mend: the change is in {patch} (apply it with `mend apply {record}`)");
        if outcome.print_diff {
            render.run_event(&RunEvent::Diff {
                text: outcome.diff.to_owned(),
            });
        }
    }
    if outcome.exit_code == exit::MODEL {
        eprintln!("mend: error: {}", explain_stop(outcome.stop, outcome.model));
    }
}

/// How a session ended, as far as its exit code cares.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ended<'a> {
    /// Run live (`mend run`, `mend resume`), stopped so.
    Live(&'a Stop),
    /// Replayed from its record (`mend replay`), matching it or not.
    Replayed { diverged: bool },
}

/// The exit code of a session, the one rule of `mend run`, `resume` and `replay`: a divergence
/// outranks the tests; a broken model turn is the server's failure whatever the tests say;
/// otherwise the verdict.
pub(crate) fn exit_code(ended: Ended, passed: bool) -> u8 {
    match ended {
        Ended::Replayed { diverged: true } => exit::DIVERGED,
        Ended::Live(stop) => match stop.reason {
            StopReason::Cancelled => exit::INTERRUPTED,
            StopReason::ModelError
            | StopReason::IncompleteModelTurn
            | StopReason::ContextExceeded => exit::MODEL,
            _ if passed => exit::PASS,
            _ => exit::TESTS_FAIL,
        },
        Ended::Replayed { diverged: false } if passed => exit::PASS,
        Ended::Replayed { diverged: false } => exit::TESTS_FAIL,
    }
}
