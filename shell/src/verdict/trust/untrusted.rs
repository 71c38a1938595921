//! Why a test run's result cannot count as a pass whatever its exit code says: what the witness
//! heard, or failed to hear, and what the shared folders show. Each reason says it in a sentence
//! (`describe`), which is what a record keeps; a record's sentence reads back as
//! [`Untrusted::Recorded`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::verdict::read::load_failure::LoadFailure;

use crate::task::OutputReader;
use crate::verdict::read::note::Note;

/// What kind of reach into the test run the witness saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlarmKind {
    /// An audited event (PEP 578) owed to project code: `gc` over live objects, tracing,
    /// `ctypes`, an open of the witness's socket.
    Audit,
    /// Frame access from project code (`sys._getframe`, a traceback's frame).
    Frame,
    /// A plugin registered after pytest was configured, by other code than pytest's.
    Plugin,
    /// A new implementation of a hook that decides or reports outcomes, or pluggy's hook
    /// calling replaced.
    Hook,
    /// Part of pytest, pluggy or the builtins replaced.
    Replaced,
    /// The witness itself reached: a hand-over to it from code other than its own pytest
    /// hooks, or its hooks called other than by pluggy's hook calling.
    Witness,
    /// A file pytest finds by walking up from the tests (its configuration, a `conftest.py`)
    /// read from outside the copy: none of the repository's, and writable by whoever can write
    /// the folders above it.
    Outside,
    /// Part of pytest, pluggy or the builtins replaced by code of the copy that ran before the
    /// witness loaded, as the witness found them then.
    First,
}

/// One thing the witness saw reach into the test run, as it happened.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Alarm {
    pub kind: AlarmKind,
    pub what: String,
    /// The file and line it is owed to; `None` when no project frame was on the stack (a
    /// thread, an exit hook) or the value replaced has no code.
    #[serde(rename = "where")]
    pub place: Option<String>,
}

impl Alarm {
    /// The same reach from the same file (the line may have moved with the change).
    pub fn same_reach(&self, other: &Alarm) -> bool {
        let file = |alarm: &Alarm| {
            alarm.place.as_deref().map(|place| {
                place
                    .rsplit_once(':')
                    .map_or(place, |(file, _)| file)
                    .to_owned()
            })
        };
        self.kind == other.kind && self.what == other.what && file(self) == file(other)
    }

    fn describe(&self) -> String {
        let lead = match self.kind {
            AlarmKind::Audit => "the code under test reached into the test run",
            AlarmKind::Frame => "the code under test read the test run's frames",
            AlarmKind::Plugin => "a plugin was registered while the tests ran",
            AlarmKind::Hook => "pytest's hooks were altered",
            AlarmKind::Replaced => "the test run's own code was altered while the tests ran",
            AlarmKind::Witness => "mend's witness was reached from inside the test run",
            AlarmKind::Outside => "pytest read a file from outside the copy",
            AlarmKind::First => {
                "code that ran before mend's witness loaded altered the test run's own code"
            }
        };
        match &self.place {
            Some(place) => format!("{lead}: {} at {place}", self.what),
            None => format!("{lead}: {}", self.what),
        }
    }
}

/// How many alarms a reason names; the count says how many more there were.
const NAMED_ALARMS: usize = 5;

/// Which report a run owed mend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwedReport {
    /// pytest's: the end of its session, as mend's witness tells it.
    Pytest,
    /// The file `test.junit_path` names.
    Junit { path: String },
}

/// Why a run is not trusted: what the witness heard, or failed to hear, and what the run itself
/// left unread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untrusted {
    /// Nothing connected: the plugin did not load, or its variable did not reach it.
    Silent,
    /// More than one connection, or lines that do not carry the witness's seal.
    SecondVoice,
    /// The plugin started but pytest never finished its session (`os._exit`, a crash).
    StoppedEarly,
    /// The process exited with another code than pytest ended its session with (an `atexit`
    /// hook calling `os._exit`).
    ExitAltered { session: i64, process: i32 },
    /// The witness saw code reach into the run (see [`Alarm`]), in the order it happened.
    Reached { alarms: Vec<Alarm> },
    /// One of mend's canary tests ended otherwise than it must.
    CanaryAltered { expected: String, got: String },
    /// The session passed, but mend's canary tests were never placed or never ran.
    CanariesMissing,
    /// pytest collected more tests than it reported on.
    FewerThanCollected { collected: u64, reported: u64 },
    /// Under `--sandbox none`, the tests wrote into a folder mend shares with the original
    /// instead of copying (the project's `.venv`).
    SharedFolderWritten { entries: Vec<String> },
    /// Where no sandbox shields mend's bytecode mirror, the tests wrote into it off the
    /// installation's folders: bytecode for the copy's sources, which Python reads in their
    /// place (`entries`: the paths it would be of).
    BytecodeMirrorWritten { entries: Vec<String> },
    /// Where no sandbox shields mend's bytecode mirror, it was rebuilt while the tests ran (the
    /// installation changed, another mend made it anew): what they wrote in it cannot be told.
    BytecodeMirrorRebuilt { mirror: String },
    /// The tests did not finish: stopped at the time limit, or killed.
    Unfinished(Note),
    /// The run ended without the report mend reads; `exit` is its code, `None` when stopped.
    NoReport { exit: Option<i32>, owed: OwedReport },
    /// The JUnit file `test.junit_path` names is there, but mend cannot read it.
    ReportUnreadable { path: String, reason: String },
    /// The task's output reader found nothing it reads (the reader's own words).
    OutputUnread { reason: String },
    /// The output was longer than mend keeps, so a reader that needs its start cannot tell
    /// which tests ran.
    HeadDropped { reader: OutputReader },
    /// A result line the code under test printed among the runner's (see
    /// `verdict::trust::printed`): what gives it away.
    PrintedOutcome { sign: String },
    /// mend's unittest watcher (`verdict::trust::unittest_watch`) did not hear the run whole:
    /// why.
    UnittestUnheard { why: String },
    /// pytest's exit 3.
    PytestInternalError,
    /// pytest's exit 4.
    PytestUsageError,
    /// pytest could not load the project's setup (a conftest.py, a plugin): what and why, and
    /// its exit in pytest's words.
    SetupNotLoaded { failure: LoadFailure, exit: String },
    /// The held-out test patch does not apply after the change: there was no final run.
    HeldOutPatchRefused { patch: String, problem: String },
    /// Files the change added whose code ran before mend's witness loaded (a module of a name
    /// Python or pytest imports first): what they did to pytest was never watched.
    AddedCodeRanFirst { files: Vec<String> },
    /// Modules the change added that Python imported in place of one of the same name outside
    /// the copy: what the tests ran is not what they were written against.
    AddedCodeShadows { files: Vec<String> },
    /// The final run wrote files the verdict rests on (protected or held-out tests).
    VerdictFilesWritten { files: Vec<String> },
    /// Without test ids, the final run ran fewer tests than the first (`after: None`: it
    /// printed no totals).
    FewerTestsThanBefore { before: u32, after: Option<u32> },
    /// As a record keeps it: the sentence only.
    Recorded(String),
}

impl Untrusted {
    pub fn describe(&self) -> String {
        match self {
            Untrusted::Silent => "the test run was not witnessed: mend's pytest plugin never reported (a wrapper that does not pass on PYTHONPATH and MEND_WITNESS, or code that stopped it)".to_owned(),
            Untrusted::SecondVoice => "the report was altered: something besides mend's pytest plugin wrote to its channel".to_owned(),
            Untrusted::StoppedEarly => "the tests stopped before reporting: pytest never finished its session".to_owned(),
            Untrusted::ExitAltered { session, process } => format!(
                "the exit code was altered: pytest ended its session with {session}, but the process exited with {process}"
            ),
            Untrusted::Reached { alarms } => {
                let mut named: Vec<String> =
                    alarms.iter().take(NAMED_ALARMS).map(Alarm::describe).collect();
                let more = alarms.len().saturating_sub(NAMED_ALARMS);
                if more > 0 {
                    named.push(format!("and {more} more"));
                }
                named.join("; ")
            }
            Untrusted::CanaryAltered { expected, got } => format!(
                "the test outcomes were altered: a test mend placed among the project's, which must {expected}, {got}"
            ),
            Untrusted::CanariesMissing => "the test outcomes were altered: the tests mend placed among the project's never ran, yet the session passed".to_owned(),
            Untrusted::FewerThanCollected { collected, reported } => format!(
                "pytest collected {collected} tests but reported on {reported}: the run stopped early"
            ),
            Untrusted::SharedFolderWritten { entries } => format!(
                "the tests wrote into the original repository, in a folder mend shares instead of copying: {}",
                entries.join(", ")
            ),
            Untrusted::BytecodeMirrorWritten { entries } => format!(
                "the tests wrote into mend's bytecode mirror, where Python looks for the bytecode of the copy's sources: {}",
                entries.join(", ")
            ),
            Untrusted::BytecodeMirrorRebuilt { mirror } => format!(
                "mend's bytecode mirror {mirror} was rebuilt while the tests ran (the installation changed), so what they wrote in it cannot be told: run again"
            ),
            Untrusted::Unfinished(note) => note.describe(),
            Untrusted::NoReport { exit, owed } => {
                let missing = match owed {
                    OwedReport::Pytest => "no pytest report".to_owned(),
                    OwedReport::Junit { path } => format!("no JUnit report at {path}"),
                };
                match exit {
                    Some(code) => format!("the tests stopped before reporting: exit {code} with {missing}"),
                    None => format!("the tests were stopped before reporting: {missing}"),
                }
            }
            Untrusted::ReportUnreadable { path, reason } => {
                format!("its JUnit report {path} could not be read: {reason}")
            }
            Untrusted::OutputUnread { reason } => reason.clone(),
            Untrusted::HeadDropped { reader } => format!(
                "the output was longer than mend keeps, so its first test lines are lost and the {} reader cannot tell which tests ran; run fewer tests per task, or use a runner that writes a JUnit report",
                reader.name()
            ),
            Untrusted::PrintedOutcome { sign } => format!(
                "the output holds a test result the runner did not print: {sign}"
            ),
            Untrusted::UnittestUnheard { why } => format!(
                "the test outcomes were not witnessed whole: {why}"
            ),
            Untrusted::PytestInternalError => "pytest stopped with an internal error (exit 3)".to_owned(),
            Untrusted::PytestUsageError => "pytest refused its command line or configuration (usage error, exit 4)".to_owned(),
            Untrusted::SetupNotLoaded { failure, exit } => format!("{} ({exit})", failure.describe()),
            Untrusted::HeldOutPatchRefused { patch, problem } => format!(
                "the held-out test patch {patch} does not apply after the change: {problem}"
            ),
            Untrusted::AddedCodeRanFirst { files } => added_code_ran_first(files),
            Untrusted::AddedCodeShadows { files } => added_code_shadows(files),
            Untrusted::VerdictFilesWritten { files } => format!(
                "the test run wrote files the verdict rests on while it ran: {}",
                files.join(", ")
            ),
            Untrusted::FewerTestsThanBefore { before, after: Some(after) } => format!(
                "the final run ran {after} tests, fewer than the {before} the first run ran: tests were removed, filtered out or compiled out"
            ),
            Untrusted::FewerTestsThanBefore { before, after: None } => format!(
                "the final run printed no test totals, where the first run counted {before} tests"
            ),
            Untrusted::Recorded(sentence) => sentence.clone(),
        }
    }
}

fn added_code_ran_first(files: &[String]) -> String {
    format!(
        "code the change added ran before mend's witness loaded, where what it does to pytest goes unseen: {} (a module of a name Python or pytest imports first, found in the copy before the installed one)",
        files.join(", ")
    )
}

fn added_code_shadows(files: &[String]) -> String {
    format!(
        "the change added {}, which Python imported in place of a module of the same name outside the copy (the standard library's or an installed package's)",
        files.join(", ")
    )
}

/// A record keeps the sentence, as older versions wrote it.
impl Serialize for Untrusted {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.describe())
    }
}

impl<'de> Deserialize<'de> for Untrusted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Untrusted::Recorded)
    }
}
