//! A `mend run` that could not begin: mend could not run the tests before the loop (its witness
//! cannot load in the pytest it met, the interpreter is broken), so the model was asked nothing.
//! The run still leaves its record, whole, saying so, and the copy the tests ran in, kept.

use std::collections::BTreeMap;

use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::Unbegun;
use crate::commands::outcome::write_record;
use crate::error::MendError;
use crate::record::target::RecordTarget;
use crate::record::{HarnessEnd, HarnessStage, Record, SessionSettings, RECORD_FORMAT};

/// Keeps the copy, writes the record of a run that ended before its loop, and returns the error
/// to end the command with: mend's message, then where the record and the copy are.
pub(crate) fn ended_before_loop(
    target: &RecordTarget,
    (settings, file_sha256_before): (SessionSettings, BTreeMap<String, String>),
    unbegun: Unbegun,
    render: &mut dyn Render,
) -> MendError {
    let Unbegun {
        error,
        workspace,
        test_file_sha256_before,
        source_sha256_before,
    } = unbegun;
    let copy = workspace.keep();
    render.run_event(&RunEvent::WorkspaceKept {
        path: copy.to_string(),
    });
    let record = Record {
        format: RECORD_FORMAT.to_owned(),
        description: None,
        settings,
        messages: Vec::new(),
        test_file_sha256_before,
        source_sha256_before,
        tests_before: None,
        ending: None,
        file_sha256_before,
        metrics: None,
        resumed_from: None,
        commands: Vec::new(),
        harness_error: Some(HarnessEnd {
            at: HarnessStage::BeforeLoop,
            message: error.message.clone(),
            copy: copy.to_string(),
        }),
    };
    let left = match write_record(target, &record, "") {
        Ok(written) => format!(
            "the run ended before its loop: its record is {record} (`mend show {record}`), and the copy the tests ran in is kept at {copy}",
            record = written.record
        ),
        Err(not_written) => format!(
            "the run ended before its loop; the copy the tests ran in is kept at {copy}, and its record could not be written: {not_written}"
        ),
    };
    MendError {
        exit_code: error.exit_code,
        message: format!("{}\nmend: {left}", error.message),
    }
}
