//! The traces of many runs from one process (`mend eval`: one trace per attempt, `--jobs` at a
//! time): one sender per collector, shared by the attempts, so a collector that is down costs
//! one warning for the whole eval, and every sender is waited for (at most its grace) once, at
//! the end.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::record::Record;
use crate::telemetry::sender::Sender;
use crate::telemetry::trace::{export_request, Timing};
use crate::telemetry::Telemetry;

#[derive(Default)]
pub(crate) struct Traces {
    senders: Mutex<BTreeMap<String, Sender>>,
}

impl Traces {
    /// Hands the trace of the run `record` describes to `telemetry`'s collector; never waits.
    pub(crate) fn send(&self, telemetry: &Telemetry, record: &Record, timing: &Timing) {
        let request = export_request(record, timing, telemetry.include_content);
        let body = prost::Message::encode_to_vec(&request);
        let mut senders = self
            .senders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        senders
            .entry(telemetry.traces_url.clone())
            .or_insert_with(|| Sender::start(&telemetry.traces_url))
            .send(body);
    }

    /// Waits for what is still being sent, each collector at most its grace.
    pub(crate) fn finish(self) {
        let senders = self
            .senders
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for sender in senders.into_values() {
            sender.finish();
        }
    }
}

/// The trace of one run (`mend run`, a resume, a chat), sent to `telemetry`'s collector and
/// waited for, at most its grace.
pub fn send_one(telemetry: &Telemetry, record: &Record, timing: &Timing) {
    let traces = Traces::default();
    traces.send(telemetry, record, timing);
    traces.finish();
}

/// The times of a run that began at `run_start` and whose loop began at `loop_start`, ending now.
pub fn ending_now(run_start: SystemTime, loop_start: SystemTime) -> Timing {
    Timing {
        run_start,
        loop_start,
        run_end: SystemTime::now(),
    }
}
