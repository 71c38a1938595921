//! What mend's pytest plugin said over its socket during a run (see `verdict::test_run`), and
//! the checks of the report against it: a report is trusted only when it says what the witness
//! heard as each test finished.

use std::collections::BTreeMap;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::verdict::contract::CaseOutcome;

/// One line the plugin sends.
#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Said {
    Start,
    Collected {
        count: u64,
    },
    Test {
        id: String,
        when: String,
        outcome: String,
        #[serde(default)]
        xfail: bool,
    },
    Uncollected {
        id: String,
    },
    Tampered {
        names: Vec<String>,
    },
    Finished {
        exitstatus: i64,
    },
    Report {
        sha256: Option<String>,
    },
}

/// What one connection said, put together.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Heard {
    pub collected: Option<u64>,
    /// Each test's outcome by pytest's node id, its phases combined (the worse wins).
    pub cases: BTreeMap<String, CaseOutcome>,
    pub finished: bool,
    /// The exit status pytest ended its session with.
    pub exit_status: Option<i64>,
    /// What of pytest and the builtins was replaced during the run.
    pub tampered: Vec<String>,
    /// The report's digest as pytest left it; `Some(None)` when pytest wrote none.
    pub report_sha256: Option<Option<String>>,
    /// Lines that were not the plugin's.
    pub garbled: usize,
}

/// Why the witness makes a run untrustworthy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doubt {
    /// Nothing connected: the plugin did not load, or its variable did not reach it.
    Silent,
    /// More than one connection, or lines that are not the plugin's.
    SecondVoice,
    /// The plugin started but pytest never finished its session (`os._exit`, a crash).
    StoppedEarly,
    /// The report file is not the one pytest wrote (rewritten after the session ended).
    ReportRewritten,
    /// The report's outcomes are not the ones the witness heard.
    ReportDisagrees { heard: String, reported: String },
    /// The process exited with another code than pytest ended its session with (an `atexit`
    /// hook calling `os._exit`).
    ExitAltered { session: i64, process: i32 },
    /// Code replaced part of pytest, or a builtin, while the tests ran.
    Tampered { names: Vec<String> },
    /// pytest collected more tests than it reported on.
    FewerThanCollected { collected: u64, reported: u64 },
}

impl Doubt {
    pub fn describe(&self) -> String {
        match self {
            Doubt::Silent => "the test run was not witnessed: mend's pytest plugin never reported (a wrapper that does not pass on PYTHONPATH and MEND_WITNESS, or code that stopped it)".to_owned(),
            Doubt::SecondVoice => "the report was altered: something besides mend's pytest plugin wrote to its channel".to_owned(),
            Doubt::StoppedEarly => "the tests stopped before reporting: pytest never finished its session".to_owned(),
            Doubt::ReportRewritten => "the report was altered: the JUnit file is not the one pytest wrote at the end of its session".to_owned(),
            Doubt::ReportDisagrees { heard, reported } => format!(
                "the report was altered: it says {reported}, but pytest reported {heard} as the tests ran"
            ),
            Doubt::ExitAltered { session, process } => format!(
                "the exit code was altered: pytest ended its session with {session}, but the process exited with {process}"
            ),
            Doubt::Tampered { names } => format!(
                "pytest was altered while the tests ran: {} replaced",
                names.join(", ")
            ),
            Doubt::FewerThanCollected { collected, reported } => format!(
                "pytest collected {collected} tests but reported on {reported}: the run stopped early"
            ),
        }
    }
}

impl Heard {
    /// Puts together what the connections said; `Err` when it cannot be trusted at all.
    pub fn of(connections: &[Vec<String>]) -> Result<Heard, Doubt> {
        let [lines] = connections else {
            return Err(if connections.is_empty() {
                Doubt::Silent
            } else {
                Doubt::SecondVoice
            });
        };
        let mut heard = Heard::default();
        let mut started = false;
        for line in lines {
            match serde_json::from_str::<Said>(line) {
                Ok(Said::Start) => started = true,
                Ok(Said::Collected { count }) => heard.collected = Some(count),
                Ok(Said::Test {
                    id,
                    when,
                    outcome,
                    xfail,
                }) => heard.phase(id, &when, &outcome, xfail),
                Ok(Said::Uncollected { id }) => heard.worse(id, CaseOutcome::Error),
                Ok(Said::Tampered { names }) => heard.tampered = names,
                Ok(Said::Finished { exitstatus }) => {
                    heard.finished = true;
                    heard.exit_status = Some(exitstatus);
                }
                Ok(Said::Report { sha256 }) => heard.report_sha256 = Some(sha256),
                Err(_) => heard.garbled += 1,
            }
        }
        if !started || heard.garbled > 0 {
            return Err(Doubt::SecondVoice);
        }
        if !heard.finished {
            return Err(Doubt::StoppedEarly);
        }
        Ok(heard)
    }

    fn phase(&mut self, id: String, when: &str, outcome: &str, xfail: bool) {
        let outcome = match (when, outcome) {
            (_, "passed") => CaseOutcome::Passed,
            ("call", "failed") => CaseOutcome::Failed,
            (_, "failed") => CaseOutcome::Error,
            (_, "skipped") if xfail => CaseOutcome::Xfailed,
            _ => CaseOutcome::Skipped,
        };
        self.worse(id, outcome);
    }

    fn worse(&mut self, id: String, outcome: CaseOutcome) {
        self.cases
            .entry(id)
            .and_modify(|seen| *seen = (*seen).max(outcome))
            .or_insert(outcome);
    }

    /// Checks the report pytest left (its text and its outcomes) and, when the command is pytest
    /// itself, its exit code against what was heard.
    pub fn check(
        &self,
        report_text: &str,
        reported: &BTreeMap<String, CaseOutcome>,
        pytest_exit: Option<i32>,
    ) -> Result<(), Doubt> {
        if !self.tampered.is_empty() {
            return Err(Doubt::Tampered {
                names: self.tampered.clone(),
            });
        }
        if let (Some(process), Some(session)) = (pytest_exit, self.exit_status) {
            if i64::from(process) != session {
                return Err(Doubt::ExitAltered { session, process });
            }
        }
        let digest = format!("{:x}", Sha256::digest(report_text.as_bytes()));
        if self.report_sha256 != Some(Some(digest)) {
            return Err(Doubt::ReportRewritten);
        }
        let (heard, written) = (tally(&self.cases), tally(reported));
        if heard != written {
            return Err(Doubt::ReportDisagrees {
                heard: describe_tally(&heard),
                reported: describe_tally(&written),
            });
        }
        let ran = self.cases.len() as u64;
        match self.collected {
            Some(collected) if collected > ran => Err(Doubt::FewerThanCollected {
                collected,
                reported: ran,
            }),
            _ => Ok(()),
        }
    }
}

fn tally(cases: &BTreeMap<String, CaseOutcome>) -> BTreeMap<CaseOutcome, usize> {
    let mut counts = BTreeMap::new();
    for outcome in cases.values() {
        *counts.entry(*outcome).or_insert(0) += 1;
    }
    counts
}

fn describe_tally(counts: &BTreeMap<CaseOutcome, usize>) -> String {
    if counts.is_empty() {
        return "no tests".to_owned();
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(outcome, count)| format!("{count} {}", outcome.word()))
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests;
