//! What a test run's exit means when it is not a plain pass or fail. A record keeps each as its
//! sentence, as older versions wrote it, and reads a sentence back as [`Note::Recorded`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::verdict::read::load_failure::LoadFailure;

/// What the exit code of a test run means beyond pass or fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Stopped at the task's time limit.
    TimedOut { seconds: u64 },
    /// Killed by a signal (the status as the system words it).
    Killed { status: String },
    /// A non-zero exit while the report lists no failing test.
    ExitedWithoutFailures { code: i32 },
    /// Exit 0 while the report lists failing tests.
    FailingDespiteZero,
    /// pytest's exit 2.
    PytestInterrupted,
    /// pytest's exit 2 while collecting, with what it could not load.
    InterruptedCollecting(LoadFailure),
    /// pytest's exit 5.
    NoTestsCollected,
    /// As a record keeps it: the sentence only.
    Recorded(String),
}

impl Note {
    pub fn describe(&self) -> String {
        match self {
            Note::TimedOut { seconds } => format!(
                "the tests did not finish within {seconds} s and were stopped (the limit counts pytest's start, and mend's runs read no bytecode of the project's own: its modules are compiled from source on every run, and pytest's and the standard library's too where mend cannot mirror their bytecode, slower on a busy machine); if they need longer, raise `timeout_seconds` under [test] in the task file (mend.toml)"
            ),
            Note::Killed { status } => format!("the test process was killed ({status})"),
            Note::ExitedWithoutFailures { code } => format!("the test command exited with {code}"),
            Note::FailingDespiteZero => {
                "the report lists failing tests although the command exited with 0".to_owned()
            }
            Note::PytestInterrupted => {
                "pytest was interrupted (exit 2), e.g. by errors while collecting the tests"
                    .to_owned()
            }
            Note::InterruptedCollecting(failure) => format!(
                "pytest was interrupted (exit 2) while collecting the tests: {}",
                failure.describe()
            ),
            Note::NoTestsCollected => "pytest collected no tests (exit 5)".to_owned(),
            Note::Recorded(sentence) => sentence.clone(),
        }
    }
}

impl Serialize for Note {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.describe())
    }
}

impl<'de> Deserialize<'de> for Note {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Note::Recorded)
    }
}
