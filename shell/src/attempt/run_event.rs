//! The shell's own events, around the core's: setup, the independent check, the verdict. Shown
//! by [`super::render`] as text or as one JSON line each (docs/events.md).

use serde::Serialize;
use serde_json::Value;

use crate::exec::sandbox::Sandbox;
use crate::record::metrics::RunMetrics;
use crate::record::usage::TurnUsage;
use crate::verdict::contract::Contract;
use crate::verdict::verify::TestRun;

/// Events of the shell, around the session's own: setup, the independent check, the verdict.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    RunStart {
        command: String,
        model: String,
        source: String,
    },
    /// Where the repository's tests run; a warning when the sandbox is partial or absent.
    Sandbox {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
    },
    /// The context window of every request of the run, why, and the model's own length when
    /// the server stated it.
    ContextWindow {
        tokens: u32,
        why: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        model_length: Option<u64>,
        /// The session's estimate of its first request, in tokens.
        #[serde(skip_serializing_if = "Option::is_none")]
        first_request_tokens: Option<u64>,
        /// `mend chat` (text only): that estimate is of the opening, before the message the
        /// user types.
        #[serde(skip)]
        before_message: bool,
    },
    /// A turn's accounting (after its `model_done`): the server's counts and speeds, mend's
    /// estimate.
    TurnUsage {
        turn: u32,
        usage: TurnUsage,
    },
    TestsBefore {
        run: TestRun,
    },
    TestsAfter {
        run: TestRun,
    },
    /// `mend verify`'s one run of the tests: no loop comes before it, so it is not a "final"
    /// check. As JSON it is the same `tests_after` event.
    #[serde(rename = "tests_after")]
    TestsOnly {
        run: TestRun,
    },
    /// One message of a conversation of several begins (replay, resume): what was asked, or
    /// nothing when it went on from where the one before stopped; `live` when it goes to the
    /// server rather than coming from the record.
    Message {
        number: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        live: bool,
    },
    /// A replay differed from its record; `what` says where.
    Divergence {
        what: String,
        expected: Value,
        got: Value,
    },
    /// The workspace's change against the original, as a unified diff (`--diff`).
    Diff {
        text: String,
    },
    WorkspaceKept {
        path: String,
    },
    /// `mend verify`: where its time went. `setup_ms` reads the task and probes the sandbox once,
    /// `copy_ms` makes the copy, `tests_ms` is the test run (the sandbox's own start included),
    /// `cleanup_ms` deletes the copy (absent when it was kept).
    Costs {
        setup_ms: u64,
        copy_ms: u64,
        sandbox_start_ms: u64,
        tests_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        cleanup_ms: Option<u64>,
    },
    Verdict {
        tests_pass: bool,
        /// Why the verdict is a FAIL, or what a PASS could not check, in sentences.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        reasons: Vec<String>,
        /// Lines of the change that reach into the test run, for a person to look at.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
        /// The first run's tests by id and what became of each (`fail_to_pass`, `pass_to_pass`,
        /// `added`), when the runs gave test ids.
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        contract: Option<Contract>,
        /// The sandbox the final tests ran in (`bwrap`, `network-namespace`, `none`): a PASS
        /// outside bwrap came from tests that could write outside the copy.
        sandbox: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        replay_matched: Option<bool>,
        stop_reason: String,
        exit_code: u8,
        metrics: RunMetrics,
        /// `mend run`, `mend resume`: the file the record was written to (a new one in `.mend/` may carry a
        /// `-2` when another run of the same second took the plain name).
        #[serde(skip_serializing_if = "Option::is_none")]
        record: Option<String>,
        /// `mend run`, `mend resume`: the file the change was written to, when there is one.
        #[serde(skip_serializing_if = "Option::is_none")]
        patch: Option<String>,
    },
}

impl RunEvent {
    /// Which sandbox the repository's tests run in, with its warning when it is partial or absent.
    pub fn sandbox(sandbox: &Sandbox) -> RunEvent {
        RunEvent::Sandbox {
            name: sandbox.name().to_owned(),
            warning: sandbox.warning().map(str::to_owned),
        }
    }
}
