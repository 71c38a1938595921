//! What a page shows, taken from either kind of record: one session for a run, one per message
//! for a chat. The page's parts read only this.

use mend_core::Stop;

use crate::record::chat::ChatRecord;
use crate::record::metrics::RunMetrics;
use crate::record::{AnyRecord, Record, RecordedCall, RecordedTurn, SessionSettings};
use crate::verdict::verify::TestRun;

pub struct Shown<'a> {
    /// `run` or `chat`.
    pub kind: &'static str,
    pub description: Option<&'a str>,
    pub settings: &'a SessionSettings,
    pub sessions: Vec<SessionView<'a>>,
    /// A chat has no independent check before it starts.
    pub tests_before: Option<&'a TestRun>,
    /// Absent for a chat that never ended.
    pub ending: Option<Ending<'a>>,
    pub metrics: Option<&'a RunMetrics>,
}

/// One session: what it was asked, its turns and calls, and why it stopped.
pub struct SessionView<'a> {
    pub prompt: &'a str,
    pub turns: &'a [RecordedTurn],
    pub calls: &'a [RecordedCall],
    pub stop: &'a Stop,
}

/// What the run left behind.
pub struct Ending<'a> {
    pub tests_after: &'a TestRun,
    pub test_files_changed: bool,
    pub diff: &'a str,
}

impl Ending<'_> {
    /// The verdict: see [`crate::verdict::checks::verdict_passes`].
    pub fn passes(&self) -> bool {
        self.tests_after.passed() && !self.test_files_changed
    }
}

impl<'a> Shown<'a> {
    pub fn of(record: &'a AnyRecord) -> Shown<'a> {
        match record {
            AnyRecord::Run(run) => Shown::run(run),
            AnyRecord::Chat(chat) => Shown::chat(chat),
        }
    }

    pub fn run(record: &'a Record) -> Shown<'a> {
        Shown {
            kind: "run",
            description: record.description.as_deref(),
            settings: &record.settings,
            sessions: vec![SessionView {
                prompt: &record.task,
                turns: &record.turns,
                calls: &record.tool_calls,
                stop: &record.stop,
            }],
            tests_before: Some(&record.checks.tests_before),
            ending: Some(Ending {
                tests_after: &record.checks.tests_after,
                test_files_changed: record.checks.test_files_changed(),
                diff: &record.checks.diff,
            }),
            metrics: record.metrics.as_ref(),
        }
    }

    pub fn chat(chat: &'a ChatRecord) -> Shown<'a> {
        Shown {
            kind: "chat",
            description: None,
            settings: &chat.settings,
            sessions: chat
                .messages
                .iter()
                .map(|message| SessionView {
                    prompt: &message.text,
                    turns: &message.turns,
                    calls: &message.tool_calls,
                    stop: &message.stop,
                })
                .collect(),
            tests_before: None,
            ending: chat.ending.as_ref().map(|ending| Ending {
                tests_after: &ending.tests_after,
                test_files_changed: ending.test_file_sha256_after != chat.test_file_sha256_before,
                diff: &ending.diff,
            }),
            metrics: None,
        }
    }
}
