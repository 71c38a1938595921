//! The record shapes older mends wrote — a run (`mend-record/1`) and a chat (`mend-chat/1`) —
//! read into today's one shape, so that every record ever written still loads, shows, applies
//! and replays. Nothing writes them any more.

use std::collections::BTreeMap;

use mend_core::Stop;
use serde::Deserialize;

use crate::record::message::{Ending, Message};
use crate::record::metrics::RunMetrics;
use crate::record::settings::SessionSettings;
use crate::record::turn::{RecordedCall, RecordedTurn};
use crate::record::Record;
use crate::verdict::checks::Checks;

/// `mend run`'s record before runs and chats shared one format.
pub const RUN_FORMAT_1: &str = "mend-record/1";
/// `mend chat`'s record before runs and chats shared one format.
pub const CHAT_FORMAT_1: &str = "mend-chat/1";

#[derive(Deserialize)]
pub struct RunRecord1 {
    #[serde(default)]
    description: Option<String>,
    #[serde(flatten)]
    settings: SessionSettings,
    task: String,
    turns: Vec<RecordedTurn>,
    tool_calls: Vec<RecordedCall>,
    stop: Stop,
    #[serde(flatten)]
    checks: Checks,
    #[serde(default)]
    file_sha256_before: BTreeMap<String, String>,
    #[serde(default)]
    metrics: Option<RunMetrics>,
}

#[derive(Deserialize)]
pub struct ChatRecord1 {
    #[serde(flatten)]
    settings: SessionSettings,
    test_file_sha256_before: String,
    source_sha256_before: String,
    messages: Vec<ChatMessage1>,
    #[serde(default)]
    ending: Option<Ending>,
}

#[derive(Deserialize)]
struct ChatMessage1 {
    text: String,
    turns: Vec<RecordedTurn>,
    tool_calls: Vec<RecordedCall>,
    stop: Stop,
}

impl From<RunRecord1> for Record {
    /// A run is a conversation of one message, with the tests before it.
    fn from(run: RunRecord1) -> Record {
        let checks = run.checks;
        Record {
            format: crate::record::RECORD_FORMAT.to_owned(),
            description: run.description,
            settings: run.settings,
            messages: vec![Message {
                text: Some(run.task),
                max_turns: None,
                turns: run.turns,
                tool_calls: run.tool_calls,
                stop: run.stop,
            }],
            test_file_sha256_before: checks.test_file_sha256_before,
            source_sha256_before: checks.source_sha256_before,
            tests_before: Some(checks.tests_before),
            ending: Some(Ending {
                tests_after: checks.tests_after,
                test_file_sha256_after: checks.test_file_sha256_after,
                source_sha256_after: checks.source_sha256_after,
                diff: checks.diff,
            }),
            file_sha256_before: run.file_sha256_before,
            metrics: run.metrics,
            resumed_from: None,
        }
    }
}

impl From<ChatRecord1> for Record {
    fn from(chat: ChatRecord1) -> Record {
        Record {
            format: crate::record::RECORD_FORMAT.to_owned(),
            description: None,
            settings: chat.settings,
            messages: chat
                .messages
                .into_iter()
                .map(|message| Message {
                    text: Some(message.text),
                    max_turns: None,
                    turns: message.turns,
                    tool_calls: message.tool_calls,
                    stop: message.stop,
                })
                .collect(),
            test_file_sha256_before: chat.test_file_sha256_before,
            source_sha256_before: chat.source_sha256_before,
            tests_before: None,
            ending: chat.ending,
            file_sha256_before: BTreeMap::new(),
            metrics: None,
            resumed_from: None,
        }
    }
}
