//! The figures of a live run, kept in its record and shown on the verdict's summary line.

use serde::{Deserialize, Serialize};

/// Per-run figures, in the record and on the final summary line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// Requests sent to the model server, repairs included.
    pub model_requests: u32,
    /// Bytes of response bodies read, for the throughput on the summary line.
    pub streamed_bytes: u64,
    /// Time from sending each request to its first line, per turn.
    pub first_byte_ms: Vec<u64>,
    /// Time spent waiting on the model (request sent to turn complete), all turns.
    pub model_ms: u64,
    /// Time spent running tool calls, all turns.
    pub tool_ms: u64,
    /// The part of `tool_ms` spent running the repository's tests (`run_tests`).
    #[serde(default)]
    pub run_tests_ms: u64,
    /// Time spent on the independent test runs after the session (the verdict's).
    pub verify_ms: u64,
    /// Time spent in hooks (`[hooks]`), apart from the tools' time; absent when none ran.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hook_ms: u64,
    /// What the command spent outside the tests and the model: making the throwaway copy and
    /// putting it back for the final tests,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_ms: Option<u64>,
    /// starting the sandbox (bubblewrap on `true`, the probe every command makes before its
    /// first test run; each test run pays about as much again),
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_start_ms: Option<u64>,
    /// and deleting the copy (0 when it was kept). All three are absent from a record made before
    /// they were measured, and from a chat's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_ms: Option<u64>,
    /// Prompt tokens the server counted, all turns.
    pub prompt_tokens: u64,
    /// Tokens the model generated, as the server counted them, all turns.
    pub eval_tokens: u64,
}

impl RunMetrics {
    /// What the command spent outside the tests and the model (`copy 12 ms, sandbox start 8 ms,
    /// cleanup 3 ms`), when it was measured.
    pub fn outside_the_tests(&self) -> Option<String> {
        let shown = |figure: Option<u64>| figure.map_or("?".to_owned(), |ms| format!("{ms} ms"));
        let figures = [self.copy_ms, self.sandbox_start_ms, self.cleanup_ms];
        figures.iter().any(Option::is_some).then(|| {
            format!(
                "copy {}, sandbox start {}, cleanup {}",
                shown(self.copy_ms),
                shown(self.sandbox_start_ms),
                shown(self.cleanup_ms)
            )
        })
    }

    /// Adds a later session's figures (a chat's next message) to these.
    pub fn add(&mut self, later: &RunMetrics) {
        self.model_requests += later.model_requests;
        self.streamed_bytes += later.streamed_bytes;
        self.first_byte_ms.extend(&later.first_byte_ms);
        self.model_ms += later.model_ms;
        self.tool_ms += later.tool_ms;
        self.run_tests_ms += later.run_tests_ms;
        self.verify_ms += later.verify_ms;
        self.hook_ms += later.hook_ms;
        self.copy_ms = sum(self.copy_ms, later.copy_ms);
        self.sandbox_start_ms = sum(self.sandbox_start_ms, later.sandbox_start_ms);
        self.cleanup_ms = sum(self.cleanup_ms, later.cleanup_ms);
        self.prompt_tokens += later.prompt_tokens;
        self.eval_tokens += later.eval_tokens;
    }
}

fn is_zero(ms: &u64) -> bool {
    *ms == 0
}

/// Two optional figures added up: absent only when both are.
fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

#[cfg(test)]
mod tests {
    use super::RunMetrics;

    #[test]
    fn what_was_spent_outside_the_tests_is_said_only_when_measured_and_adds_up() {
        let old = RunMetrics::default();
        let mut measured = RunMetrics {
            copy_ms: Some(12),
            sandbox_start_ms: Some(8),
            cleanup_ms: Some(3),
            ..RunMetrics::default()
        };
        measured.add(&RunMetrics {
            copy_ms: Some(5),
            ..RunMetrics::default()
        });
        measured.add(&old);
        assert_eq!(
            (old.outside_the_tests(), measured.outside_the_tests()),
            (
                None,
                Some("copy 17 ms, sandbox start 8 ms, cleanup 3 ms".to_owned())
            )
        );
    }
}
