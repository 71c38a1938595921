//! What mend's pytest plugin said over its socket during a run (see `verdict::read::test_run`):
//! each test's outcome as it finished, which is the run's report ([`Heard::report`]), and the
//! checks of the run against what it heard (the exit code, the canaries, the alarms).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::{LoadFailure, Loaded};
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::runner::Runner;
use crate::verdict::trust::known::Known;
use crate::verdict::trust::loaded_first::LoadedFirst;
use crate::verdict::trust::untrusted::{Alarm, Untrusted};
use crate::verdict::trust::witness::seal::Key;

pub(crate) mod seal;

/// The witness's first line, unsealed: the key its later lines are sealed with.
#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Opening {
    Start { key: String },
}

/// The loader's word that the witness could not load in this pytest, pluggy or Python: which
/// versions it met and what failed. It is not sealed (the witness never got to make its key):
/// all it can do is make a run fail, which any code can.
#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Notice {
    Broken {
        pytest: String,
        pluggy: String,
        python: String,
        error: String,
        #[serde(rename = "where")]
        place: Option<String>,
    },
}

/// A check the witness could not make in this pytest, pluggy or Python, and why: the verdict
/// names it instead of weakening silently.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct Unchecked {
    pub what: String,
    pub why: String,
}

impl Unchecked {
    pub(crate) fn describe(&self) -> String {
        format!("{} ({})", self.what, self.why)
    }
}

/// One sealed line the plugin sends.
#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Said {
    Runner(Runner),
    Unchecked(Unchecked),
    Collected {
        count: u64,
    },
    Canaries {
        pass: Option<String>,
        fail: Option<String>,
        error: Option<String>,
    },
    Test {
        id: String,
        when: String,
        outcome: String,
        #[serde(default)]
        xfail: bool,
    },
    /// Tests whose phase passed, a few dozen on one line: sealing each alone cost a passing test
    /// about as much as handing its report over.
    Passed {
        ids: Vec<String>,
    },
    Uncollected {
        id: String,
    },
    SkipRaised {
        id: String,
        at: String,
    },
    /// The copy's files whose code ran before the witness loaded, and which of them are
    /// pytest's or pluggy's own sources.
    LoadedFirst {
        files: Vec<String>,
        #[serde(default)]
        runner: Vec<String>,
    },
    /// The copy's modules Python imported in place of one of the same name outside it.
    Shadowing {
        files: Vec<String>,
    },
    Alarm(Alarm),
    Finished {
        exitstatus: i64,
    },
}

/// What one connection said, put together.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Heard {
    /// The pytest, pluggy and Python that ran the tests.
    pub runner: Option<Runner>,
    /// The checks this pytest, pluggy or Python did not let the witness make.
    pub unchecked: Vec<Unchecked>,
    pub collected: Option<u64>,
    /// Each test's outcome by pytest's node id, its phases combined (the worse wins); mend's
    /// canaries among them.
    pub cases: BTreeMap<String, CaseOutcome>,
    /// The tests whose call failed: one that then errored in its teardown is counted as failed
    /// and as an error, as pytest counts it.
    pub calls_failed: BTreeSet<String>,
    /// mend's canary tests by id, each with the outcome it must have: `None` when the witness
    /// never placed them, empty when there was no Python test module to place them in.
    pub canaries: Option<BTreeMap<String, CaseOutcome>>,
    pub finished: bool,
    /// The exit status pytest ended its session with.
    pub exit_status: Option<i64>,
    /// What reached into the run, in the order the witness saw it.
    pub alarms: Vec<Alarm>,
    /// The tests skipped by the code under test (not pytest's marks, not the tests' own code),
    /// each with the place (FILE:LINE) the skip was raised.
    pub skips_raised: BTreeMap<String, String>,
    /// The copy's files whose code ran before the witness loaded (a script the command ran, a
    /// module the copy holds under a name Python or pytest imports first), and those Python
    /// imported in place of a module of the same name outside the copy, relative to it.
    pub loaded_first: LoadedFirst,
    /// Lines that were not the plugin's.
    pub garbled: usize,
}

impl Heard {
    /// Puts together what the connections said; `Err` when it cannot be trusted at all.
    pub(crate) fn of(connections: &[Vec<String>]) -> Result<Heard, Untrusted> {
        let [lines] = connections else {
            return Err(if connections.is_empty() {
                Untrusted::Silent
            } else {
                Untrusted::SecondVoice
            });
        };
        let heard = Heard::opened(lines).ok_or(Untrusted::SecondVoice)?;
        if heard.garbled > 0 {
            return Err(Untrusted::SecondVoice);
        }
        if !heard.finished {
            return Err(Untrusted::StoppedEarly);
        }
        Ok(heard)
    }

    /// What one connection said, unjudged; `None` when it did not open with the witness's key.
    fn opened(lines: &[String]) -> Option<Heard> {
        let mut heard = Heard::default();
        for line in unsealed(lines)? {
            match line.map(serde_json::from_str::<Said>) {
                Some(Ok(said)) => heard.take(said),
                _ => heard.garbled += 1,
            }
        }
        Some(heard)
    }

    /// The runner a connection named before anything else happened, whatever came after.
    pub(crate) fn runner_of(connections: &[Vec<String>]) -> Option<Runner> {
        connections
            .iter()
            .find_map(|lines| Heard::opened(lines)?.runner)
    }

    fn take(&mut self, said: Said) {
        match said {
            Said::Runner(runner) => self.runner = Some(runner),
            Said::Unchecked(unchecked) => self.unchecked.push(unchecked),
            Said::Collected { count } => self.collected = Some(count),
            Said::Canaries { pass, fail, error } => {
                let placed = [
                    (pass, CaseOutcome::Passed),
                    (fail, CaseOutcome::Failed),
                    (error, CaseOutcome::Error),
                ];
                self.canaries = Some(
                    placed
                        .into_iter()
                        .filter_map(|(id, outcome)| Some((id?, outcome)))
                        .collect(),
                );
            }
            Said::Test {
                id,
                when,
                outcome,
                xfail,
            } => self.phase(id, &when, &outcome, xfail),
            Said::Passed { ids } => {
                for id in ids {
                    self.worse(id, CaseOutcome::Passed);
                }
            }
            Said::Uncollected { id } => self.worse(id, CaseOutcome::Error),
            Said::SkipRaised { id, at } => {
                self.skips_raised.insert(id, at);
            }
            Said::LoadedFirst { files, runner } => {
                self.loaded_first.files = files;
                self.loaded_first.runner = runner;
            }
            Said::Shadowing { files } => self.loaded_first.shadowing = files,
            Said::Alarm(alarm) => self.alarms.push(alarm),
            Said::Finished { exitstatus } => {
                self.finished = true;
                self.exit_status = Some(exitstatus);
            }
        }
    }

    fn phase(&mut self, id: String, when: &str, outcome: &str, xfail: bool) {
        let outcome = match (when, outcome) {
            (_, "passed") => CaseOutcome::Passed,
            ("call", "failed") => {
                self.calls_failed.insert(id.clone());
                CaseOutcome::Failed
            }
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

    /// The run as the witness heard it, in the shape of a report: each test's outcome by node id,
    /// the counts pytest prints (a test that failed and errored in its teardown in both), the
    /// failing tests sorted; mend's canaries left out.
    pub(crate) fn report(&self) -> Report {
        let mut report = Report::default();
        let canaries: BTreeSet<&String> = self.canary_ids().collect();
        for (id, outcome) in self.cases.iter().filter(|(id, _)| !canaries.contains(id)) {
            let summary = &mut report.summary;
            match outcome {
                CaseOutcome::Passed => summary.passed += 1,
                CaseOutcome::Xfailed => summary.xfailed += 1,
                CaseOutcome::Skipped => summary.skipped += 1,
                CaseOutcome::Failed => summary.failed += 1,
                CaseOutcome::Error => {
                    summary.errors += 1;
                    summary.failed += u32::from(self.calls_failed.contains(id));
                }
            }
            if outcome.is_failing() {
                report.failing.push(id.clone());
            }
            report.cases.insert(id.clone(), *outcome);
        }
        report
    }

    /// Checks what was heard and, when the command is pytest itself, the process's exit code
    /// against it: no alarm the first run did not excuse (`known`), the exit pytest's session
    /// ended with, the canaries, every test collected heard of.
    pub(crate) fn check(
        &self,
        pytest_exit: Option<i32>,
        known: Known<'_>,
    ) -> Result<(), Untrusted> {
        let alarms: Vec<Alarm> = self
            .alarms
            .iter()
            .filter(|alarm| !known.excuses(alarm))
            .cloned()
            .collect();
        if !alarms.is_empty() {
            return Err(Untrusted::Reached { alarms });
        }
        if let (Some(process), Some(session)) = (pytest_exit, self.exit_status) {
            if i64::from(process) != session {
                return Err(Untrusted::ExitAltered { session, process });
            }
        }
        self.check_canaries()?;
        let ran = self.cases.len() as u64;
        match self.collected {
            Some(collected) if collected > ran => Err(Untrusted::FewerThanCollected {
                collected,
                reported: ran,
            }),
            _ => Ok(()),
        }
    }

    /// Each canary that ran ended as it must; a session that passed ran them all. (One that
    /// failed may have stopped before them, with `-x`; it is no pass either way.)
    fn check_canaries(&self) -> Result<(), Untrusted> {
        let passed = self.exit_status == Some(0);
        let Some(canaries) = &self.canaries else {
            return if passed && !self.cases.is_empty() {
                Err(Untrusted::CanariesMissing)
            } else {
                Ok(())
            };
        };
        for (id, expected) in canaries {
            match self.cases.get(id) {
                Some(got) if got != expected => {
                    return Err(Untrusted::CanaryAltered {
                        expected: must(*expected).to_owned(),
                        got: got.word().to_owned(),
                    })
                }
                None if passed => return Err(Untrusted::CanariesMissing),
                _ => {}
            }
        }
        Ok(())
    }

    /// The ids of mend's canaries, which no count, id list or contract shows.
    pub(crate) fn canary_ids(&self) -> impl Iterator<Item = &String> {
        self.canaries.iter().flat_map(BTreeMap::keys)
    }
}

/// The text of each line of a connection after its first, the key it opened with (`None` for a
/// line that does not carry its seal); `None` when the first line gave no key. mend's unittest
/// watcher seals its lines as the witness does.
pub(crate) fn unsealed(lines: &[String]) -> Option<Vec<Option<&str>>> {
    let Some(Ok(Opening::Start { key })) = lines.first().map(|line| serde_json::from_str(line))
    else {
        return None;
    };
    let key = Key::from_hex(&key)?;
    let texts = (1u64..).zip(&lines[1..]);
    Some(texts.map(|(number, line)| key.open(number, line)).collect())
}

/// The witness itself failed in this pytest, pluggy or Python: as its loader told mend (the
/// versions it met, what failed, where), or as pytest printed it (`load`, a traceback whose
/// innermost frame of code not pytest's is the witness's), with the runner the witness named
/// when it started. Any other load failure is handed back as it is.
pub(crate) fn witness_failure(
    connections: &[Vec<String>],
    load: Option<LoadFailure>,
) -> Option<LoadFailure> {
    let notice = connections.iter().find_map(|lines| {
        let Ok(Notice::Broken {
            pytest,
            pluggy,
            python,
            error,
            place,
        }) = serde_json::from_str(lines.first()?)
        else {
            return None;
        };
        let runner = Some(Box::new(Runner {
            pytest,
            pluggy,
            python,
        }));
        Some(LoadFailure {
            what: Loaded::Witness { runner, place },
            error,
        })
    });
    match (notice, load) {
        (Some(notice), _) => Some(notice),
        (
            None,
            Some(LoadFailure {
                what:
                    Loaded::Witness {
                        runner: None,
                        place,
                    },
                error,
            }),
        ) => Some(LoadFailure {
            what: Loaded::Witness {
                runner: Heard::runner_of(connections).map(Box::new),
                place,
            },
            error,
        }),
        (None, load) => load,
    }
}

/// What a canary with `outcome` must do, in words.
fn must(outcome: CaseOutcome) -> &'static str {
    match outcome {
        CaseOutcome::Passed => "pass",
        CaseOutcome::Failed => "fail",
        _ => "error",
    }
}

#[cfg(test)]
mod between_tests;
#[cfg(test)]
mod closed_tests;
#[cfg(test)]
mod first_tests;
#[cfg(test)]
mod grammar_tests;
#[cfg(test)]
mod held_tests;
#[cfg(test)]
mod phases_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod versions_tests;
