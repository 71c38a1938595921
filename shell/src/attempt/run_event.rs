//! The shell's own events, around the core's: setup, the independent check, the verdict. Shown
//! by [`super::render`] as text or as one JSON line each (docs/events.md).

use mend_core::StopReason;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::exec::runner::TestRunner;
use crate::exec::sandbox::Sandbox;
use crate::record::metrics::RunMetrics;
use crate::record::settings::RecordedImage;
use crate::record::usage::TurnUsage;
use crate::record::ChatCommand;
use crate::verdict::check::TestRun;
use crate::verdict::grade::contract::Contract;
use crate::verdict::grade::decide::Verdict;
use crate::verdict::grade::ending::Ending;
use crate::verdict::grade::given::HeldAndGiven;
use crate::verdict::read::runner::Runner;
use camino::Utf8Path;

/// Events of the shell, around the session's own: setup, the independent check, the verdict.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    /// The run begins: which command, against which model, from which source (a repository or a record).
    RunStart {
        /// The mend subcommand that started the run (`run`, `replay`, `resume`...).
        command: String,
        /// The model the turns are asked of, as the server names it.
        model: String,
        /// Where the work comes from: the repository's folder or the record's file.
        source: String,
    },
    /// Where the repository's tests run; a warning when the sandbox is partial or absent.
    Sandbox {
        /// The sandbox's short name (`bwrap`, `network-namespace`, `none`), as the verdict repeats it.
        name: String,
        /// Why the isolation is weaker than bwrap's, when it is.
        #[serde(skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
        /// The image the commands run in (`[environment] image`) and the manifest digest its
        /// reference resolved to.
        #[serde(skip_serializing_if = "Option::is_none")]
        image: Option<RecordedImage>,
        /// Replay: the image the record ran in, when it is another than this one's.
        #[serde(skip_serializing_if = "Option::is_none")]
        recorded_image: Option<RecordedImage>,
    },
    /// The context window of every request of the run, why, and the model's own length when
    /// the server stated it.
    ContextWindow {
        /// The window's size in tokens, as every request asks for it.
        tokens: u32,
        /// Where that size came from (the flag, the task, the server), so a user can change it.
        why: String,
        /// The longest context the server says the model takes, to compare with the window.
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
        /// Which turn of the session the counts belong to, from 1.
        turn: u32,
        /// The turn's tokens and speeds.
        usage: TurnUsage,
    },
    /// One hook's run about a call: which hook, the event, its decision and reason, its time.
    Hook {
        /// The tool call the hook was asked about, to pair it with the call's own events.
        call_id: String,
        /// The tool the call asked for.
        tool: String,
        /// The hook's name, event, decision, reason and time.
        #[serde(flatten)]
        run: crate::record::HookRun,
    },
    /// The tests' run on the untouched copy, before the model's turns: what a repair is measured against.
    TestsBefore {
        /// The run's outcome, counts and output tail.
        run: TestRun,
    },
    /// The independent run of the tests on the changed copy, after the session: what the verdict grades.
    TestsAfter {
        /// The run's outcome, counts and output tail.
        run: TestRun,
    },
    /// `mend verify`'s one run of the tests: no loop comes before it, so it is not a "final"
    /// check. As JSON it is the same `tests_after` event.
    #[serde(rename = "tests_after")]
    TestsOnly {
        /// The run's outcome, counts and output tail.
        run: TestRun,
        /// The given tests' grade and the held-out files put back, when the task has them
        /// (boxed: the rare case).
        #[serde(flatten)]
        held: Box<HeldAndGiven>,
        /// What the patch's added lines reach into (`mend verify --patch`), as a run's verdict
        /// warns of its change.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// One message of a conversation of several begins (replay, resume): what was asked, or
    /// nothing when it went on from where the one before stopped; `live` when it goes to the
    /// server rather than coming from the record.
    Message {
        /// The message's place in the conversation, from 1.
        number: usize,
        /// What the user asked, when the message was a new one.
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Whether the message goes to the server rather than being read back from the record.
        live: bool,
    },
    /// A replay reached the place of a recorded chat command (`/verify`, `/save`): what was
    /// typed and what came of it then, as the record keeps it (a replay runs neither again).
    ChatCommand(ChatCommand),
    /// A replay differed from its record; `what` says where.
    Divergence {
        /// What the record holds at that place.
        what: String,
        /// What the record holds at that place.
        expected: Value,
        /// What this replay produced instead.
        got: Value,
    },
    /// The workspace's change against the original, as a unified diff (`--diff`).
    Diff {
        /// The unified diff, ready for `git apply`.
        text: String,
    },
    /// The copy the run worked in was kept (`--keep`), for the user to look into.
    WorkspaceKept {
        /// The kept copy's folder.
        path: String,
    },
    /// `mend verify`: where its time went. `setup_ms` reads the task and probes the sandbox once,
    /// `copy_ms` makes the copy, `set_up_ms` sets it up (`environment.setup`), `tests_ms` is the
    /// test run (the sandbox's own start included), `cleanup_ms` deletes the copy (absent when
    /// it was kept).
    Costs {
        /// Milliseconds to read the task and probe the sandbox.
        setup_ms: u64,
        /// Milliseconds to make the throwaway copy.
        copy_ms: u64,
        /// Milliseconds to set the copy up (its steps run, or their kept result copied in);
        /// absent when the task has no `environment.setup`.
        #[serde(skip_serializing_if = "Option::is_none")]
        set_up_ms: Option<u64>,
        /// Milliseconds the sandbox took to start, a part of `tests_ms`.
        sandbox_start_ms: u64,
        /// Milliseconds of the test run, the sandbox's start included.
        tests_ms: u64,
        /// Milliseconds to delete the copy; absent when it was kept.
        #[serde(skip_serializing_if = "Option::is_none")]
        cleanup_ms: Option<u64>,
    },
    /// The run's last word: whether the repair holds, why, and what it cost.
    Verdict {
        /// Whether the final, independent test run passed under the task's contract.
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
        /// The given tests' four groups (`given`: `test.fail_to_pass`, `test.pass_to_pass`)
        /// and the files held out of the attempt (`held_out`), each when there are any (boxed:
        /// the rare case).
        #[serde(flatten)]
        benchmark: Box<HeldAndGiven>,
        /// The sandbox the final tests ran in (`bwrap`, `network-namespace`, `none`): a PASS
        /// outside bwrap came from tests that could write outside the copy.
        sandbox: String,
        /// What graded the final tests (pytest, pluggy and Python's versions), when pytest did.
        #[serde(skip_serializing_if = "Option::is_none")]
        runner: Option<Runner>,
        /// A replay: whether every turn matched its record; absent for a live session.
        #[serde(skip_serializing_if = "Option::is_none")]
        replay_matched: Option<bool>,
        /// How the last session ended; `none` for a replay of a record without one.
        #[serde(serialize_with = "stop_reason_or_none")]
        stop_reason: Option<StopReason>,
        /// The process's exit code the verdict leads to (`mend --help` lists them).
        exit_code: u8,
        /// The run's turns, tokens, tool calls and times, summed.
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

/// A stop reason as its name, `none` where there was no session to stop.
fn stop_reason_or_none<S: Serializer>(
    reason: &Option<StopReason>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(reason.map_or("none", StopReason::as_str))
}

impl RunEvent {
    /// Which sandbox the repository's tests run in, with its warning when it is partial or absent.
    pub fn sandbox(runner: &TestRunner) -> RunEvent {
        RunEvent::Sandbox {
            name: runner.sandbox.name().to_owned(),
            warning: runner.sandbox.warning().map(str::to_owned),
            image: runner.image.as_ref().map(RecordedImage::of),
            recorded_image: None,
        }
    }

    /// Replay's: the sandbox, and the record's image beside this run's when they differ (a
    /// tag that names another image now, or a record made on this machine's files).
    pub fn replay_sandbox(runner: &TestRunner, recorded: Option<&RecordedImage>) -> RunEvent {
        let mut event = RunEvent::sandbox(runner);
        if let RunEvent::Sandbox {
            image,
            recorded_image,
            ..
        } = &mut event
        {
            if recorded != image.as_ref() {
                *recorded_image = recorded.cloned();
            }
        }
        event
    }

    /// The verdict event of a session (`mend run`, `resume`, `replay`): the one place it is
    /// built. A run's record and patch are added with [`RunEvent::written_to`], a replay's
    /// match with [`RunEvent::replayed`].
    pub fn verdict(
        verdict: Verdict,
        ending: &Ending,
        sandbox: &Sandbox,
        stop_reason: Option<StopReason>,
        exit_code: u8,
        metrics: RunMetrics,
    ) -> RunEvent {
        RunEvent::Verdict {
            tests_pass: verdict.passed,
            reasons: verdict.reasons,
            warnings: verdict.warnings,
            contract: ending.contract.clone(),
            benchmark: Box::new(ending.held_and_given()),
            sandbox: sandbox.name().to_owned(),
            runner: ending.tests_after.runner.clone(),
            replay_matched: None,
            stop_reason,
            exit_code,
            metrics,
            record: None,
            patch: None,
        }
    }

    /// A verdict event with the files its session was written to: the record, and the
    /// patch beside it when the session changed something.
    #[must_use]
    pub fn written_to(mut self, record_file: &Utf8Path, patch_file: Option<&Utf8Path>) -> RunEvent {
        if let RunEvent::Verdict { record, patch, .. } = &mut self {
            *record = Some(record_file.to_string());
            *patch = patch_file.map(ToString::to_string);
        }
        self
    }

    /// A verdict event of a session that (re)played a record: whether it matched.
    #[must_use]
    pub fn replayed(mut self, matched: bool) -> RunEvent {
        if let RunEvent::Verdict { replay_matched, .. } = &mut self {
            *replay_matched = Some(matched);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use mend_core::StopReason;
    use serde_json::json;

    use super::RunEvent;

    fn verdict(stop_reason: Option<StopReason>) -> serde_json::Value {
        let event = RunEvent::Verdict {
            tests_pass: true,
            reasons: Vec::new(),
            warnings: Vec::new(),
            contract: None,
            benchmark: Box::default(),
            sandbox: "none".to_owned(),
            runner: None,
            replay_matched: None,
            stop_reason,
            exit_code: 0,
            metrics: Default::default(),
            record: None,
            patch: None,
        };
        serde_json::to_value(&event).unwrap()["stop_reason"].clone()
    }

    #[test]
    fn the_verdicts_stop_reason_is_its_name_or_none() {
        assert_eq!(
            [verdict(Some(StopReason::ContextExceeded)), verdict(None)],
            [json!("context_exceeded"), json!("none")]
        );
    }
}
