//! The end of a session, one for `mend run`, `mend resume`, `mend replay` and `mend chat`: what
//! its final check comes to and the exit code, said once ([`finish`]); a live session's record
//! and change written first, what became of it told after the verdict, and its trace sent last
//! ([`send_trace`], which a chat's end calls too: a chat ends with no verdict or exit code of its
//! own).

use std::time::SystemTime;

use mend_core::{Stop, StopReason};

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::commands::outcome::{exit_code, report_outcome, write_record, Ended, Outcome};
use crate::error::MendError;
use crate::record::target::RecordTarget;
use crate::record::{Record, RunMetrics};
use crate::setup::Setup;
use crate::telemetry::traces::{ending_now, send_one};
use crate::telemetry::Telemetry;
use crate::verdict::grade::ending::Ending;

/// How a session came to its end, as far as its verdict and exit code tell.
pub(crate) enum Came<'a> {
    /// Live (`mend run`; `mend resume` after its replay matched, or it would have been refused
    /// before), stopped so; it keeps its record and change.
    Live {
        stop: &'a Stop,
        resumed: bool,
        kept: Kept<'a>,
    },
    /// A record replayed (`mend replay`), which writes nothing: its first divergence, if any,
    /// and how its last message stopped.
    Replayed {
        divergence: Option<&'a RunEvent>,
        stop_reason: Option<StopReason>,
    },
}

/// What a live session keeps: its record and change, written before the verdict is said.
pub(crate) struct Kept<'a> {
    /// Where the record goes.
    pub target: &'a RecordTarget,
    /// The record, its ending included.
    pub record: &'a Record,
    /// `--diff`: print the change after the verdict.
    pub print_diff: bool,
    /// Where the trace goes, if anywhere.
    pub telemetry: Option<&'a Telemetry>,
    /// When the command began, and when its live loop did.
    pub started: (SystemTime, SystemTime),
}

/// A finished session, as its command hands it over.
pub(crate) struct Finish<'a> {
    /// What the session was set up with.
    pub setup: &'a Setup<'a>,
    /// The final check.
    pub ending: &'a Ending,
    /// The digest of the task's test files before the session, which the verdict holds the
    /// final ones to.
    pub test_file_sha256_before: &'a str,
    /// How it came to its end.
    pub came: Came<'a>,
    /// The figures the verdict shows.
    pub metrics: RunMetrics,
}

/// Writes what a live session keeps, says the verdict (after a replay's divergence, if any) and
/// what became of the session, sends its trace; returns the exit code.
pub(crate) fn finish(end: Finish, render: &mut dyn Render) -> Result<u8, MendError> {
    let Finish {
        setup,
        ending,
        test_file_sha256_before,
        came,
        metrics,
    } = end;
    let verdict = ending.verdict(test_file_sha256_before);
    let sandbox = &setup.runner.sandbox;
    match came {
        Came::Live {
            stop,
            resumed,
            kept,
        } => {
            // The names actually written: a new record never replaces another run's.
            let written = write_record(kept.target, kept.record, &ending.diff)?;
            let code = exit_code(Ended::Live(stop), verdict.passed);
            let event =
                RunEvent::verdict(verdict, ending, sandbox, Some(stop.reason), code, metrics)
                    .written_to(&written.record, written.patch.as_deref());
            render.run_event(&if resumed { event.replayed(true) } else { event });
            let outcome = Outcome {
                written: &written,
                test_files_changed: kept.record.test_files_changed(),
                task: setup.task,
                diff: &ending.diff,
                print_diff: kept.print_diff,
                stop,
                model: &kept.record.settings.model,
                exit_code: code,
            };
            report_outcome(&outcome, render);
            send_trace(kept.telemetry, kept.record, kept.started);
            Ok(code)
        }
        Came::Replayed {
            divergence,
            stop_reason,
        } => {
            // A divergence outranks the tests, and is said first.
            if let Some(divergence) = divergence {
                render.run_event(divergence);
            }
            let diverged = divergence.is_some();
            let code = exit_code(Ended::Replayed { diverged }, verdict.passed);
            let event = RunEvent::verdict(verdict, ending, sandbox, stop_reason, code, metrics);
            render.run_event(&event.replayed(!diverged));
            Ok(code)
        }
    }
}

/// Sends the trace of the session `record` describes, begun at `started.0` with its loop at
/// `started.1` and ending now, when telemetry is on; waits for it at most the sender's grace.
pub(crate) fn send_trace(
    telemetry: Option<&Telemetry>,
    record: &Record,
    started: (SystemTime, SystemTime),
) {
    if let Some(telemetry) = telemetry {
        send_one(telemetry, record, &ending_now(started.0, started.1));
    }
}
