//! The reasons of a set of results lines, counted: the report's "why" line and the page's table
//! read them. Beside both the line and the counts, so neither imports the other.

use mend_core::StopReason;

use super::results::Row;
use super::why::WhyCounts;

impl WhyCounts {
    pub(crate) fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> WhyCounts {
        let mut counts = WhyCounts::default();
        let finished = StopReason::AssistantFinished.to_string();
        for row in rows {
            counts.with_invalid_calls += u64::from(row.why.invalid_calls > 0);
            counts.with_failed_calls += u64::from(row.why.failed_calls > 0);
            if row.passed {
                // One notion of suspect, the report's: a pass whose change reaches into the test
                // run is counted apart; any other warned pass still counts as a pass.
                counts.suspect_passes += u64::from(row.suspect);
                counts.warned_passes += u64::from(!row.suspect && row.why.warning.is_some());
                continue;
            }
            counts.failed += 1;
            *counts.stops.entry(row.stop.clone()).or_default() += 1;
            counts.claimed_success += u64::from(row.stop == finished);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::results::Row;
    use crate::eval::why::{Why, WhyCounts};

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
                    warning: Some("no test file".to_owned()),
                    ..Why::default()
                },
            ),
            Row {
                suspect: true,
                ..row(true, "assistant_finished", Why::default())
            },
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
                    warned_passes: 1,
                },
                "2 failed: assistant_finished 1, max_turns 1; 1 claimed success but the tests failed; 1 with calls that fit no tool; 1 with calls a tool refused or failed; 1 suspect pass(es), not counted (the change reaches into the test run); 1 pass(es) with a warning".to_owned()
            )
        );
        assert_eq!(WhyCounts::of(&rows[4..]).line(), "none failed");
    }
}
