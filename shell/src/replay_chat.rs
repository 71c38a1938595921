//! `mend replay` of a chat record: the messages go through the core again, in order, on one
//! fresh copy, each continuing the session before it; the tools and the tests run for real, and
//! every tool result, every stop and the end are compared with the record.

use camino::Utf8Path;
use mend_core::{Config, Session};
use serde_json::json;

use crate::attempt::Setup;
use crate::changes::set_sha256;
use crate::chat_record::ChatRecord;
use crate::driver::{Driver, RunMetrics};
use crate::error::{exit, MendError};
use crate::render::{Render, RunEvent};
use crate::replay::{
    first_call_divergence, first_request_divergence, refuse_changed_repository, same_tests,
    ReplaySource,
};
use crate::verify::independent_check;
use crate::workspace::Workspace;

/// Replays a chat record; 0 only when every message matched and the final tests pass.
pub fn replay_chat(
    path: &Utf8Path,
    record: &ChatRecord,
    setup: &Setup,
    render: &mut dyn Render,
) -> Result<u8, MendError> {
    refuse_changed_repository(
        &record.test_file_sha256_before,
        &record.source_sha256_before,
        setup,
        false,
    )?;
    render.run_event(&RunEvent::RunStart {
        command: "replay".to_owned(),
        model: record.settings.model.clone(),
        source: path.to_string(),
    });
    let config = record.settings.config("", setup.task)?;
    let workspace = Workspace::copy_of(setup.repo).map_err(|err| {
        MendError::harness(format!(
            "cannot copy {} to a temporary workspace: {err}",
            setup.repo
        ))
    })?;
    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));

    let mut metrics = RunMetrics::default();
    let mut divergence = None;
    let mut conversation: Option<Session> = None;
    let mut last_stop = None;
    for (number, message) in record.messages.iter().enumerate() {
        let place = format!("message {}, ", number + 1);
        let (session, first) = match &conversation {
            None => Session::new(Config {
                task: message.text.clone(),
                ..config.clone()
            })
            .map_err(|err| MendError::refused(format!("the record's settings: {err}")))?,
            Some(previous) => previous
                .follow_up(&message.text)
                .map_err(|err| MendError::harness(format!("cannot go on: {err}")))?,
        };
        let mut source = ReplaySource::new(&message.turns, &message.tool_calls, &message.stop);
        let mut driver = Driver {
            source: &mut source,
            root: workspace.root(),
            task: setup.task,
            runner: setup.runner,
            observer: render,
        };
        let (transcript, stopped) = driver.drive(session, first)?;
        metrics.model_requests += transcript.metrics.model_requests;
        metrics.streamed_bytes += transcript.metrics.streamed_bytes;
        metrics.tool_ms += transcript.metrics.tool_ms;
        let stop_differs =
            (transcript.stop.reason != message.stop.reason).then(|| RunEvent::Divergence {
                what: format!("{place}the stop reason"),
                expected: json!(message.stop.reason),
                got: json!(transcript.stop.reason),
            });
        let first_request = (number == 0)
            .then(|| first_request_divergence(&message.turns, &transcript.turns))
            .flatten();
        divergence = source
            .missing_turn
            .take()
            .or(first_request)
            .or_else(|| first_call_divergence(&message.tool_calls, &transcript.tool_calls, &place))
            .or(stop_differs);
        last_stop = Some(transcript.stop.reason);
        if divergence.is_some() {
            break;
        }
        conversation = Some(stopped);
    }

    let tests_after = independent_check(setup.runner, &setup.task.test, workspace.root())?;
    metrics.verify_ms = tests_after.duration_ms;
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let test_files_after = set_sha256(workspace.root(), &setup.task.test.files)?;
    if let (None, Some(ending)) = (&divergence, &record.ending) {
        let source_after = set_sha256(workspace.root(), &setup.task.editable)?;
        divergence = if source_after != ending.source_sha256_after {
            Some(RunEvent::Divergence {
                what: format!("{} at the end (sha256)", setup.task.editable.listed("and")),
                expected: json!(ending.source_sha256_after),
                got: json!(source_after),
            })
        } else if test_files_after != ending.test_file_sha256_after {
            Some(RunEvent::Divergence {
                what: format!(
                    "{} at the end (sha256)",
                    setup.task.test.files.listed("and")
                ),
                expected: json!(ending.test_file_sha256_after),
                got: json!(test_files_after),
            })
        } else if !same_tests(&ending.tests_after, &tests_after) {
            Some(RunEvent::Divergence {
                what: "the final tests".to_owned(),
                expected: json!(ending.tests_after),
                got: json!(tests_after),
            })
        } else {
            None
        };
    }
    if let Some(divergence) = &divergence {
        render.run_event(divergence);
    }
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    let tests_pass = tests_after.passed() && test_files_after == record.test_file_sha256_before;
    let exit_code = match (&divergence, tests_pass) {
        (Some(_), _) => exit::DIVERGED,
        (None, true) => exit::PASS,
        (None, false) => exit::TESTS_FAIL,
    };
    render.run_event(&RunEvent::Verdict {
        tests_pass,
        replay_matched: Some(divergence.is_none()),
        stop_reason: last_stop.map_or_else(|| "none".to_owned(), |reason| reason.to_string()),
        exit_code,
        metrics,
    });
    Ok(exit_code)
}
