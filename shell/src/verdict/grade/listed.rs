//! The final run's outcomes as SWE-bench's harness sees them in its log, so that a task's given
//! lists are graded exactly as the harness grades the same run. Published rows spell a test the
//! way the harness's log parser read it, and that is not always the whole id:
//!
//! - pytest's parser keeps a result line's second word, so an id with a space is cut at its first
//!   space (`t.py::t[a b]` → `t.py::t[a`); several tests can then share one key, and the
//!   parser's map keeps the line it read last.
//! - A listed id with more `[` than `]` that names no key is matched by prefix, when every key it
//!   starts agrees on pass or fail (the harness's own repair of rows whose ids were truncated).
//!
//! - pytest's `-rA` summary names no skipped test (it prints `SKIPPED [N] file:line: reason`),
//!   so a skipped test is not in the harness's map: listed, it did not run.
//!
//! mend reads whole ids (from what the witness heard, a JUnit report, or the runner's output),
//! and builds the harness's map from them: keys as the parser spells them, in the order pytest's
//! `-rA` summary prints its lines (passed, skipped, xfailed, errors, failures), so a key shared
//! by a passing and a failing test takes the failure, as the summary's later line gives it to the
//! harness.

use std::collections::BTreeMap;

use crate::task::ListedIds;
use crate::verdict::read::outcome::CaseOutcome;

/// One key of the harness's map: what it came to and the whole ids it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keyed {
    pub(crate) outcome: CaseOutcome,
    pub(crate) whole: Vec<String>,
}

/// The harness's map of one run, in the order its keys were first read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AsListed {
    keys: Vec<(String, Keyed)>,
    index: BTreeMap<String, usize>,
}

impl AsListed {
    pub(crate) fn of(cases: &BTreeMap<String, CaseOutcome>, ids: ListedIds) -> AsListed {
        let mut printed: Vec<(&String, CaseOutcome)> =
            cases.iter().map(|(id, outcome)| (id, *outcome)).collect();
        printed.sort_by_key(|(id, outcome)| (summary_place(*outcome), *id));
        let mut listed = AsListed::default();
        for (id, outcome) in printed {
            if outcome == CaseOutcome::Skipped && ids == ListedIds::UpToFirstSpace {
                // `-rA` folds skips into `SKIPPED [N] file:line: reason`, which names no test.
                continue;
            }
            let key = ids.listed(id);
            match listed.index.get(key) {
                Some(&at) => {
                    let keyed = &mut listed.keys[at].1;
                    keyed.outcome = outcome;
                    keyed.whole.push(id.clone());
                }
                None => {
                    listed.index.insert(key.to_owned(), listed.keys.len());
                    let whole = vec![id.clone()];
                    listed.keys.push((key.to_owned(), Keyed { outcome, whole }));
                }
            }
        }
        listed
    }

    /// The key a listed id names, as the harness resolves it: the same key, else (for an id cut
    /// inside its brackets) the first key it starts when all such keys agree on pass or fail.
    pub(crate) fn resolve(&self, id: &str) -> Option<&Keyed> {
        if let Some(&at) = self.index.get(id) {
            return Some(&self.keys[at].1);
        }
        if id.matches('[').count() <= id.matches(']').count() {
            return None;
        }
        let mut starting = self
            .keys
            .iter()
            .filter(|(key, _)| key.starts_with(id))
            .map(|(_, keyed)| keyed);
        let first = starting.next()?;
        let agree = starting.all(|keyed| passes(keyed.outcome) == passes(first.outcome));
        agree.then_some(first)
    }
}

/// Passed or xfailed: what the harness counts as a pass.
pub(crate) fn passes(outcome: CaseOutcome) -> bool {
    matches!(outcome, CaseOutcome::Passed | CaseOutcome::Xfailed)
}

/// Where pytest's `-rA` summary prints an outcome's lines: passed, skipped, xfailed, errors,
/// failures (its report characters `PpsxXEf`, in that order).
fn summary_place(outcome: CaseOutcome) -> u8 {
    match outcome {
        CaseOutcome::Passed => 0,
        CaseOutcome::Skipped => 1,
        CaseOutcome::Xfailed => 2,
        CaseOutcome::Error => 3,
        CaseOutcome::Failed => 4,
    }
}

#[cfg(test)]
mod tests;
