//! A record as one ATIF trajectory: the agent (mend, the model and its digest), the steps of
//! every message ([`super::atif_steps`]), the totals, and mend's verdict in the trajectory's
//! `extra` ([`super::atif_verdict`]). Built from the record alone, so replayed, resumed and older
//! records export the same way.

use serde_json::{json, Map, Value};

use crate::export::atif_steps::Steps;
use crate::export::atif_verdict::verdict;
use crate::record::Record;

/// The ATIF version the trajectories follow (the `atif` package's models).
pub(crate) const SCHEMA_VERSION: &str = "ATIF-v1.8";

/// The trajectory of `record`; `session_id` names it (the record's file name).
pub(crate) fn trajectory(record: &Record, session_id: &str) -> Value {
    let settings = &record.settings;
    let mut steps = Steps::new(&settings.model, settings.protocol);
    steps.system(&settings.system_prompt);
    if let Some(instructions) = &settings.instructions {
        steps.system(instructions);
    }
    for message in &record.messages {
        steps.message(message);
    }
    let totals = steps.totals();
    let steps = steps.finish();
    let mut agent_extra = Map::new();
    for (key, value) in [
        ("model_digest", json!(settings.model_digest)),
        ("protocol", json!(settings.protocol)),
        ("server_version", json!(settings.server_version)),
        ("options", json!(settings.options)),
        ("max_turns", json!(settings.max_turns)),
    ] {
        if !value.is_null() {
            agent_extra.insert(key.to_owned(), value);
        }
    }
    let mut mend = Map::new();
    mend.insert("record_format".to_owned(), json!(record.format));
    mend.insert("kind".to_owned(), json!(record.kind()));
    mend.insert("sandbox".to_owned(), json!(settings.sandbox));
    if let Some(from) = &record.resumed_from {
        mend.insert("resumed_from".to_owned(), json!(from));
    }
    if let Some(metrics) = &record.metrics {
        mend.insert("metrics".to_owned(), json!(metrics));
    }
    mend.insert("verdict".to_owned(), verdict(record));
    json!({
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "agent": {
            "name": "mend",
            "version": env!("CARGO_PKG_VERSION"),
            "model_name": settings.model,
            "extra": agent_extra,
        },
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": totals.prompt,
            "total_completion_tokens": totals.completion,
            "total_cached_tokens": totals.cached,
            "total_steps": totals.steps,
        },
        "extra": {"mend": mend},
    })
}
