//! Why attempts ended as they did, beyond pass or fail: kept in each results line (the calls
//! that fit no tool or that a tool refused, the verdict's first reason for a failure, its first
//! warning for a pass) and counted per task and for the suite by the report, with the stops.

use std::collections::BTreeMap;

use mend_core::{StopReason, ToolStatus};
use serde::{Deserialize, Serialize};

use super::results::Row;
use crate::attempt::Attempt;

/// What one attempt's line keeps of why (absent in results written before it was kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Why {
    /// Calls that fit no offered tool and never ran.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_calls: u32,
    /// Calls a tool refused or failed on (a path outside the task, an edit that did not match).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_calls: u32,
    /// For a failed attempt, the verdict's first reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a pass, the verdict's first warning: a pass a person should look at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspect: Option<String>,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl Why {
    pub fn of(attempt: &Attempt) -> Why {
        let count = |status: ToolStatus| {
            let calls = attempt.transcript.tool_calls.iter();
            u32::try_from(calls.filter(|call| call.status == status).count()).unwrap_or(u32::MAX)
        };
        let verdict = attempt.checks.verdict();
        Why {
            invalid_calls: count(ToolStatus::Refused),
            failed_calls: count(ToolStatus::Failed),
            reason: (!verdict.passed)
                .then(|| verdict.reasons.first().cloned())
                .flatten(),
            suspect: verdict
                .passed
                .then(|| verdict.warnings.first().cloned())
                .flatten(),
        }
    }
}

/// The reasons of a set of attempts, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WhyCounts {
    pub failed: u64,
    /// Failed attempts by the loop's stop (`assistant_finished`, `max_turns`, …).
    pub stops: BTreeMap<String, u64>,
    /// Failed attempts whose model ended on its own, saying it was done: it claimed success,
    /// and the final tests said otherwise.
    pub claimed_success: u64,
    /// Attempts with at least one call that fit no tool, or that a tool refused.
    pub with_invalid_calls: u64,
    pub with_failed_calls: u64,
    /// Passes the verdict warns about.
    pub suspect_passes: u64,
}

impl WhyCounts {
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> WhyCounts {
        let mut counts = WhyCounts::default();
        let finished = StopReason::AssistantFinished.to_string();
        for row in rows {
            counts.with_invalid_calls += u64::from(row.why.invalid_calls > 0);
            counts.with_failed_calls += u64::from(row.why.failed_calls > 0);
            if row.passed {
                counts.suspect_passes += u64::from(row.why.suspect.is_some());
                continue;
            }
            counts.failed += 1;
            *counts.stops.entry(row.stop.clone()).or_default() += 1;
            counts.claimed_success += u64::from(row.stop == finished);
        }
        counts
    }

    /// One line: `2 failed: max_turns 1, assistant_finished 1 (1 claimed success); 1 with
    /// invalid calls; …`, or `none failed`.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if self.failed == 0 {
            parts.push("none failed".to_owned());
        } else {
            let stops: Vec<String> = self
                .stops
                .iter()
                .map(|(stop, count)| format!("{stop} {count}"))
                .collect();
            parts.push(format!("{} failed: {}", self.failed, stops.join(", ")));
            if self.claimed_success > 0 {
                parts.push(format!(
                    "{} claimed success but the tests failed",
                    self.claimed_success
                ));
            }
        }
        for (count, what) in [
            (self.with_invalid_calls, "with calls that fit no tool"),
            (
                self.with_failed_calls,
                "with calls a tool refused or failed",
            ),
            (self.suspect_passes, "suspect pass(es) (the verdict warns)"),
        ] {
            if count > 0 {
                parts.push(format!("{count} {what}"));
            }
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::{Why, WhyCounts};
    use crate::eval::results::Row;

    #[test]
    fn failures_are_counted_by_stop_claim_calls_and_suspect_passes() {
        let row = |passed: bool, stop: &str, why: Why| Row {
            stop: stop.to_owned(),
            why,
            ..Row::example("t", 0, passed)
        };
        let rows = [
            row(
                false,
                "assistant_finished",
                Why {
                    reason: Some("1 failed".to_owned()),
                    ..Why::default()
                },
            ),
            row(
                false,
                "max_turns",
                Why {
                    invalid_calls: 2,
                    failed_calls: 1,
                    ..Why::default()
                },
            ),
            row(
                true,
                "assistant_finished",
                Why {
                    suspect: Some("no test file".to_owned()),
                    ..Why::default()
                },
            ),
            row(true, "assistant_finished", Why::default()),
        ];
        let counts = WhyCounts::of(&rows);
        assert_eq!(
            (counts.clone(), counts.line()),
            (
                WhyCounts {
                    failed: 2,
                    stops: [("assistant_finished".to_owned(), 1), ("max_turns".to_owned(), 1)].into(),
                    claimed_success: 1,
                    with_invalid_calls: 1,
                    with_failed_calls: 1,
                    suspect_passes: 1,
                },
                "2 failed: assistant_finished 1, max_turns 1; 1 claimed success but the tests failed; 1 with calls that fit no tool; 1 with calls a tool refused or failed; 1 suspect pass(es) (the verdict warns)".to_owned()
            )
        );
        assert_eq!(WhyCounts::of(&rows[3..]).line(), "none failed");
    }
}
