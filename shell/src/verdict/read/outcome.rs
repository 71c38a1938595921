//! What one test came to in one run, as any report or runner's output says it.

use serde::{Deserialize, Serialize};

/// What one test came to in one run. Ordered from best to worst, so a test a report lists twice
/// (a retry) keeps its worse outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseOutcome {
    Passed,
    /// Marked to fail, and failed: not a pass.
    Xfailed,
    Skipped,
    Failed,
    Error,
}

impl CaseOutcome {
    pub fn word(self) -> &'static str {
        match self {
            CaseOutcome::Passed => "passed",
            CaseOutcome::Xfailed => "xfailed",
            CaseOutcome::Skipped => "skipped",
            CaseOutcome::Failed => "failed",
            CaseOutcome::Error => "error",
        }
    }

    /// Failed or errored: what the first run's failing tests were.
    pub fn is_failing(self) -> bool {
        matches!(self, CaseOutcome::Failed | CaseOutcome::Error)
    }
}
