//! Why attempts ended as they did, beyond pass or fail: kept in each results line (the calls
//! that fit no tool or that a tool refused, the verdict's first reason for a failure, its first
//! warning for a pass) and counted per task and for the suite by the report, with the stops.

use std::collections::BTreeMap;

use mend_core::ToolStatus;
use serde::{Deserialize, Serialize};

use crate::attempt::Attempt;

/// What one attempt's line keeps of why (absent in results written before it was kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Why {
    /// Calls that fit no offered tool and never ran.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_calls: u32,
    /// Calls a tool refused or failed on (a path outside the task, an edit that did not match).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_calls: u32,
    /// For a failed attempt, the verdict's first reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a pass, the verdict's first warning: a pass a person should look at. Results lines
    /// written before it was renamed call it `suspect` (`results::read_rows` reads them), a word
    /// now kept for passes counted apart (`Row::suspect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl Why {
    pub(crate) fn of(attempt: &Attempt) -> Why {
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
            warning: verdict
                .passed
                .then(|| verdict.warnings.first().cloned())
                .flatten(),
        }
    }
}

/// The reasons of a set of attempts, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct WhyCounts {
    pub failed: u64,
    /// Failed attempts by the loop's stop (`assistant_finished`, `max_turns`, …).
    pub stops: BTreeMap<String, u64>,
    /// Failed attempts whose model ended on its own, saying it was done: it claimed success,
    /// and the final tests said otherwise.
    pub claimed_success: u64,
    /// Attempts with at least one call that fit no tool, or that a tool refused.
    pub with_invalid_calls: u64,
    pub with_failed_calls: u64,
    /// Passes counted apart: the change reaches into the test run (`Row::suspect`).
    pub suspect_passes: u64,
    /// Passes counted as passes that carry a verdict warning a person should look at.
    pub warned_passes: u64,
}

impl WhyCounts {
    /// One line: `2 failed: max_turns 1, assistant_finished 1 (1 claimed success); 1 with
    /// invalid calls; …`, or `none failed`.
    pub(crate) fn line(&self) -> String {
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
            (
                self.suspect_passes,
                "suspect pass(es), not counted (the change reaches into the test run)",
            ),
            (self.warned_passes, "pass(es) with a warning"),
        ] {
            if count > 0 {
                parts.push(format!("{count} {what}"));
            }
        }
        parts.join("; ")
    }
}
