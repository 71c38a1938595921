//! What a page shows, taken from a record: one session per message (a run has one). The page's parts read only this.

use mend_core::Stop;

use crate::record::metrics::RunMetrics;
use crate::record::{ChatCommand, HarnessEnd, Record, RecordedCall, RecordedTurn, SessionSettings};
use crate::verdict::check::TestRun;
use crate::verdict::grade::decide::Verdict;
use crate::verdict::grade::ending::Ending;

/// A record as its page shows it: the sessions, the checks around them and the verdict, whatever the record's kind.
pub struct Shown<'a> {
    /// `run` or `chat`.
    pub kind: &'static str,
    /// The task's one-line description, when the record has one.
    pub description: Option<&'a str>,
    /// What the run was started with: model, server, sandbox, limits.
    pub settings: &'a SessionSettings,
    /// Each session in order: the task's, then each message or Stop hook's return.
    pub sessions: Vec<SessionView<'a>>,
    /// A chat has no independent check before it starts.
    pub tests_before: Option<&'a TestRun>,
    /// Absent for a chat that never ended.
    pub ending: Option<Ended<'a>>,
    /// The run's figures; absent in records made before they were kept.
    pub metrics: Option<&'a RunMetrics>,
    /// What the user asked mend itself between a chat's messages, in order.
    pub commands: &'a [ChatCommand],
    /// Why a run ended before its loop (mend could not run the tests before it).
    pub harness_error: Option<&'a HarnessEnd>,
}

/// One session: what it was asked, its turns and calls, and why it stopped.
pub struct SessionView<'a> {
    /// The message's number, from 1, when the record has several (a chat, a resumed run): each
    /// message numbers its turns from 1 again, so the page names its turns `message.turn`.
    pub message: Option<usize>,
    /// What the session was asked ([`WENT_ON`] when it went on without a new message).
    pub prompt: &'a str,
    /// The model's turns, their raw lines and how each ended.
    pub turns: &'a [RecordedTurn],
    /// The tool calls of those turns and their results.
    pub calls: &'a [RecordedCall],
    /// Why the session stopped.
    pub stop: &'a Stop,
}

impl SessionView<'_> {
    /// What the page calls turn `turn` of this session: `3`, or `2.3` in the second of several
    /// messages, so that no two turns of a record share a name.
    pub fn turn_name(&self, turn: u32) -> String {
        match self.message {
            Some(message) => format!("{message}.{turn}"),
            None => turn.to_string(),
        }
    }
}

/// What the run left behind, with the digest of the test files it started from.
pub struct Ended<'a> {
    /// The final tests and what the verdict reads from them.
    pub after: &'a Ending,
    /// The test files' digest before the run, so the page can tell the run changed them.
    pub test_file_sha256_before: &'a str,
}

impl Ended<'_> {
    /// The verdict (see [`crate::verdict::grade::decide`]).
    pub fn verdict(&self) -> Verdict {
        self.after.verdict(self.test_file_sha256_before)
    }

    /// Whether the repair holds.
    pub fn passes(&self) -> bool {
        self.verdict().passed
    }

    pub(crate) fn test_files_changed(&self) -> bool {
        self.after.test_files_changed(self.test_file_sha256_before)
    }
}

/// What the page says a session was asked when it went on without a new message.
pub const WENT_ON: &str = "(went on from where the session before stopped)";

impl<'a> Shown<'a> {
    /// The view of a record of a run, a resumed run or a chat.
    pub fn of(record: &'a Record) -> Shown<'a> {
        Shown {
            kind: record.kind(),
            description: record.description.as_deref(),
            settings: &record.settings,
            sessions: record
                .messages
                .iter()
                .enumerate()
                .map(|(number, message)| SessionView {
                    message: (record.messages.len() > 1).then_some(number + 1),
                    prompt: message.text.as_deref().unwrap_or(WENT_ON),
                    turns: &message.turns,
                    calls: &message.tool_calls,
                    stop: &message.stop,
                })
                .collect(),
            tests_before: record.tests_before.as_ref(),
            ending: record.ending.as_ref().map(|after| Ended {
                after,
                test_file_sha256_before: &record.test_file_sha256_before,
            }),
            metrics: record.metrics.as_ref(),
            commands: &record.commands,
            harness_error: record.harness_error.as_ref(),
        }
    }
}
