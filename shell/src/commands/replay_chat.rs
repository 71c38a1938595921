//! `mend replay` of a chat record: the messages go through the core again, in order, on one
//! fresh copy, each continuing the session before it; the tools and the tests run for real, and
//! every tool result, every stop and the end are compared with the record.

use camino::Utf8Path;
use mend_core::Session;
use serde_json::json;

use crate::commands::chat::message_session;
use crate::commands::replay::{
    end_divergence, first_call_divergence, first_request_divergence, judge,
    refuse_changed_repository, Ending, ReplaySource,
};
use crate::error::MendError;
use crate::record::chat::ChatRecord;
use crate::record::metrics::RunMetrics;
use crate::session::attempt::Setup;
use crate::session::driver::Driver;
use crate::session::render::{Render, RunEvent};
use crate::verdict::checks::verdict_passes;
use crate::verdict::verify::final_check;
use crate::workspace::changes::set_sha256;
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
    let workspace = Workspace::copy_of(setup.repo, &setup.task.exclude)?;
    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));

    let mut metrics = RunMetrics::default();
    let mut divergence = None;
    let mut conversation: Option<Session> = None;
    let mut last_stop = None;
    for (number, message) in record.messages.iter().enumerate() {
        let place = format!("message {}, ", number + 1);
        let (session, first) = message_session(conversation.as_ref(), &config, &message.text)?;
        let mut source = ReplaySource::new(&message.turns, &message.tool_calls, &message.stop);
        let mut driver = Driver {
            source: &mut source,
            root: workspace.root(),
            task: setup.task,
            runner: setup.runner,
            observer: render,
        };
        let (transcript, stopped) = driver.drive(session, first)?;
        metrics.add(&transcript.metrics);
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

    let tests_after = final_check(setup.runner, &setup.task.test, workspace.root())?;
    metrics.verify_ms = tests_after.duration_ms;
    render.run_event(&RunEvent::TestsAfter {
        run: tests_after.clone(),
    });
    let test_files_after = set_sha256(workspace.root(), &setup.task.test.files)?;
    if let (None, Some(ending)) = (&divergence, &record.ending) {
        let source_after = set_sha256(workspace.root(), &setup.task.editable)?;
        divergence = end_divergence(
            setup.task,
            Ending {
                source_sha256: &ending.source_sha256_after,
                test_file_sha256: &ending.test_file_sha256_after,
                tests: &ending.tests_after,
            },
            Ending {
                source_sha256: &source_after,
                test_file_sha256: &test_files_after,
                tests: &tests_after,
            },
        );
    }
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    let tests_pass = verdict_passes(
        &tests_after,
        &record.test_file_sha256_before,
        &test_files_after,
    );
    let stop_reason = last_stop.map_or_else(|| "none".to_owned(), |reason| reason.to_string());
    let exit_code = judge(
        render,
        divergence,
        tests_pass,
        &setup.runner.sandbox,
        stop_reason,
        metrics,
    );
    Ok(exit_code)
}
