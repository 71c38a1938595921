//! The record a finished attempt leaves: `mend run`'s, and each attempt's of `mend eval`.

use std::collections::BTreeMap;

use mend_core::Config;

use crate::attempt::Attempt;
use crate::record::{Origin, Record, ServerFacts, SessionSettings, RECORD_FORMAT};

/// The record of a finished attempt (`mend run`, and each attempt of `mend eval`): a
/// conversation of one message, the task — and one more each time a Stop hook sent the model
/// back to work.
pub(crate) fn record_of(
    config: &Config,
    server: &ServerFacts,
    origin: &Origin,
    attempt: &Attempt,
    file_sha256_before: BTreeMap<String, String>,
) -> Record {
    let checks = &attempt.checks;
    Record {
        format: RECORD_FORMAT.to_owned(),
        description: None,
        settings: SessionSettings::of(config, server, origin),
        messages: attempt.messages.clone(),
        test_file_sha256_before: checks.test_file_sha256_before.clone(),
        source_sha256_before: checks.source_sha256_before.clone(),
        tests_before: Some(checks.tests_before.clone()),
        ending: Some(checks.after.clone()),
        file_sha256_before,
        metrics: Some(attempt.transcript.metrics.clone()),
        resumed_from: None,
        commands: Vec::new(),
        harness_error: None,
    }
}
