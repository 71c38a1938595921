//! What mend's unittest watcher (`unittest_watch/sitecustomize.py`) told over its socket, and the
//! outcomes read from a runner's output held to it. The code under test prints to the same
//! stream as unittest's runner, so a line it printed can pass for the runner's; the watcher tells
//! mend what `unittest.TestResult` recorded, over a channel the tested code cannot write to
//! without breaking its seal. No printed outcome counts unless unittest recorded it:
//!
//! - a test printed as passed that unittest did not record as passing is named as forged;
//! - a failure or error unittest recorded must show as failing in what was read;
//! - a run that started must have finished (`os._exit`, a crash, a closed channel stop it);
//! - one process only may report tests, each line carrying its seal (another voice is a forger);
//! - a method of unittest's own classes replaced while the tests ran is an alarm.
//!
//! Where there is no account to hold the output to (the runner's Python never loaded the
//! watcher, or could not be watched), the outcomes stay unconfirmed, and the verdict says so.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::trust::known::Known;
use crate::verdict::trust::untrusted::{Alarm, Untrusted};
use crate::verdict::trust::witness::unsealed;

/// One sealed line the watcher sends.
#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Said {
    Watching {
        #[allow(dead_code)] // read by people, in a record of the lines
        python: String,
    },
    Broken {
        error: String,
    },
    Run {
        step: Step,
    },
    Outcome {
        outcome: Recorded,
        names: Vec<String>,
    },
    Alarm(Alarm),
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Step {
    Started,
    Finished,
}

/// What `unittest.TestResult` recorded for one test (or subtest).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
enum Recorded {
    Passed,
    Failed,
    Error,
    Skipped,
    Xfailed,
    Xpassed,
}

/// What one connection told.
#[derive(Debug, Default)]
struct Told {
    broken: Option<String>,
    started: u32,
    finished: u32,
    /// Each outcome with the names the test is printed by: `str(test)`, its docstring's first
    /// line, its method's name.
    outcomes: Vec<(Recorded, Vec<String>)>,
    alarms: Vec<Alarm>,
    garbled: usize,
}

impl Told {
    /// What `lines` told; `None` when they did not open with a watcher's key.
    fn of(lines: &[String]) -> Option<Told> {
        let mut told = Told::default();
        for line in unsealed(lines)? {
            match line.map(serde_json::from_str::<Said>) {
                Some(Ok(said)) => told.take(said),
                _ => told.garbled += 1,
            }
        }
        Some(told)
    }

    fn take(&mut self, said: Said) {
        match said {
            Said::Watching { .. } => {}
            Said::Broken { error } => self.broken = Some(error),
            Said::Run {
                step: Step::Started,
            } => self.started += 1,
            Said::Run {
                step: Step::Finished,
            } => self.finished += 1,
            Said::Outcome { outcome, names } => self.outcomes.push((outcome, names)),
            Said::Alarm(alarm) => self.alarms.push(alarm),
        }
    }

    fn ran_tests(&self) -> bool {
        self.started > 0 || !self.outcomes.is_empty()
    }
}

/// The printed outcomes held to the watcher's account.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Account {
    /// unittest recorded each outcome as it was read.
    Confirmed {
        /// What reached into the run (all of it, excused or not): the first run's are the
        /// project's own.
        alarms: Vec<Alarm>,
    },
    /// There is no account to hold the outcomes to: why, as the verdict says it.
    Unconfirmed(String),
    /// The account gives the output away.
    Untrusted(Untrusted),
}

/// The outcomes `read` from the output, held to what the watcher's `connections` told;
/// `known` excuses what the first run saw too.
pub(crate) fn account(
    connections: &[Vec<String>],
    read: &BTreeMap<String, CaseOutcome>,
    known: Known<'_>,
) -> Account {
    if connections.is_empty() {
        return Account::Unconfirmed(NOT_CONNECTED.to_owned());
    }
    let Some(told) = connections
        .iter()
        .map(|lines| Told::of(lines))
        .collect::<Option<Vec<Told>>>()
        .filter(|told| told.iter().all(|told| told.garbled == 0))
    else {
        return unheard("something besides mend's unittest watcher wrote to its channel");
    };
    let mut running = told.iter().filter(|told| told.ran_tests());
    let (Some(run), None) = (running.next(), running.next()) else {
        if told.iter().any(Told::ran_tests) {
            return unheard("more than one process reported tests on mend's unittest channel");
        }
        if let Some(error) = told.iter().find_map(|told| told.broken.as_deref()) {
            return Account::Unconfirmed(format!("{NOT_WATCHED}: {error}"));
        }
        return printed(format!(
            "{} test outcomes are printed, but mend's unittest watcher heard unittest record none",
            read.len()
        ));
    };
    let alarms: Vec<Alarm> = told.iter().flat_map(|told| told.alarms.clone()).collect();
    let unexcused: Vec<Alarm> = alarms
        .iter()
        .filter(|alarm| !known.excuses(alarm))
        .cloned()
        .collect();
    if !unexcused.is_empty() {
        return Account::Untrusted(Untrusted::Reached { alarms: unexcused });
    }
    if run.finished < run.started {
        return unheard("the tests stopped before unittest finished its run (os._exit, a crash, or its channel closed)");
    }
    match forged(&run.outcomes, read) {
        Some(sign) => printed(sign),
        None => Account::Confirmed { alarms },
    }
}

/// Why outcomes read with no watcher connected are unconfirmed.
const NOT_CONNECTED: &str = "unconfirmed: the outcomes were read from the runner's output, and mend's unittest watcher never connected (a Python started with -I, -E or -S, or a runner that is not Python's)";
/// Why outcomes read where the watcher could not watch unittest are unconfirmed.
const NOT_WATCHED: &str = "unconfirmed: the outcomes were read from the runner's output, and mend's unittest watcher could not watch unittest in this Python";

fn unheard(why: &str) -> Account {
    Account::Untrusted(Untrusted::UnittestUnheard {
        why: why.to_owned(),
    })
}

fn printed(sign: String) -> Account {
    Account::Untrusted(Untrusted::PrintedOutcome { sign })
}

/// The first printed outcome unittest's account gives away: a pass it did not record, or a
/// failure it recorded that the output does not show.
fn forged(
    recorded: &[(Recorded, Vec<String>)],
    read: &BTreeMap<String, CaseOutcome>,
) -> Option<String> {
    let mut by_name: BTreeMap<&str, BTreeSet<Recorded>> = BTreeMap::new();
    for (outcome, names) in recorded {
        for name in names {
            by_name.entry(name).or_default().insert(*outcome);
        }
    }
    for (id, outcome) in read {
        if *outcome != CaseOutcome::Passed {
            continue;
        }
        let seen = by_name.get(id.as_str());
        if !seen.is_some_and(|seen| seen.contains(&Recorded::Passed)) {
            let recorded = match seen.and_then(|seen| seen.iter().next()) {
                Some(outcome) => format!("it {}", words(*outcome)),
                None => "no outcome for it".to_owned(),
            };
            return Some(format!(
                "{id} is printed as passed, but unittest recorded {recorded}"
            ));
        }
    }
    recorded
        .iter()
        .filter(|(outcome, _)| matches!(outcome, Recorded::Failed | Recorded::Error))
        .find(|(_, names)| !shown_failing(names, read))
        .map(|(outcome, names)| {
            let name = names.first().map_or("a test", String::as_str);
            format!(
                "unittest recorded {name} {}, and the output does not show it",
                words(*outcome)
            )
        })
}

/// Whether the output shows a test failing by any name it is printed by, the bare first word of
/// its name too (`FAIL: test_name (module.Class)` headers name it so).
fn shown_failing(names: &[String], read: &BTreeMap<String, CaseOutcome>) -> bool {
    let bare = names
        .first()
        .and_then(|name| name.split_whitespace().next());
    names
        .iter()
        .map(String::as_str)
        .chain(bare)
        .any(|name| read.get(name).is_some_and(|outcome| outcome.is_failing()))
}

fn words(outcome: Recorded) -> &'static str {
    match outcome {
        Recorded::Passed => "passed",
        Recorded::Failed => "failed",
        Recorded::Error => "as an error",
        Recorded::Skipped => "skipped",
        Recorded::Xfailed => "as an expected failure",
        Recorded::Xpassed => "as an unexpected success",
    }
}

#[cfg(test)]
#[path = "unittest_watch_tests.rs"]
mod tests;
