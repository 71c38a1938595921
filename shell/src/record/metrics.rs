//! The figures of a live run, kept in its record and shown on the verdict's summary line.

use serde::{Deserialize, Serialize};

/// Per-run figures, in the record and on the final summary line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    pub model_requests: u32,
    pub streamed_bytes: u64,
    /// Time from sending each request to its first line, per turn.
    pub first_byte_ms: Vec<u64>,
    /// Time spent waiting on the model (request sent to turn complete), all turns.
    pub model_ms: u64,
    pub tool_ms: u64,
    /// The part of `tool_ms` spent running the repository's tests (`run_tests`).
    #[serde(default)]
    pub run_tests_ms: u64,
    pub verify_ms: u64,
    /// What the command spent outside the tests and the model: making the throwaway copy and
    /// putting it back for the final tests,
    #[serde(default)]
    pub copy_ms: u64,
    /// starting the sandbox (bubblewrap on `true`, the probe every command makes before its
    /// first test run; each test run pays about as much again),
    #[serde(default)]
    pub sandbox_start_ms: u64,
    /// and deleting the copy (0 when it was kept).
    #[serde(default)]
    pub cleanup_ms: u64,
    pub prompt_tokens: u64,
    pub eval_tokens: u64,
}

impl RunMetrics {
    /// Adds a later session's figures (a chat's next message) to these.
    pub fn add(&mut self, later: &RunMetrics) {
        self.model_requests += later.model_requests;
        self.streamed_bytes += later.streamed_bytes;
        self.first_byte_ms.extend(&later.first_byte_ms);
        self.model_ms += later.model_ms;
        self.tool_ms += later.tool_ms;
        self.run_tests_ms += later.run_tests_ms;
        self.verify_ms += later.verify_ms;
        self.copy_ms += later.copy_ms;
        self.sandbox_start_ms += later.sandbox_start_ms;
        self.cleanup_ms += later.cleanup_ms;
        self.prompt_tokens += later.prompt_tokens;
        self.eval_tokens += later.eval_tokens;
    }
}
