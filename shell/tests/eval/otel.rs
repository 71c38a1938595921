//! `mend eval --otel`: one trace per attempt arrives at a receiver on 127.0.0.1, decoded with
//! the OpenTelemetry project's own types, each with its attempt's agent span and verdict.

use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{json, Value};

use crate::common::mend;
use crate::common::otlp::{attribute, Collector};
use crate::server::{SeededServer, MODEL};
use crate::{fixes, results, suite_folder, K};

#[test]
fn an_eval_sends_one_trace_per_attempt_with_its_verdict() {
    let attempts = 2 * K as usize;
    let collector = Collector::start(attempts);
    let server = SeededServer::start(fixes());
    let dir = suite_folder(&server.base);
    let suite = dir.path().join("suite.toml").display().to_string();
    let out = dir.path().join("out");
    let ran = mend(&[
        "eval",
        &suite,
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--otel",
        &collector.base,
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Each trace: its id, the model its agent span asked, and its verdict.
    let mut traces: Vec<Value> = collector
        .traces(attempts)
        .iter()
        .map(|spans| {
            let named = |name: &'static str| -> Vec<&Span> {
                spans
                    .iter()
                    .filter(|span| span.name.starts_with(name))
                    .collect()
            };
            let agents = named("invoke_agent");
            let verdicts = named("mend.verdict");
            let ids: std::collections::BTreeSet<&Vec<u8>> =
                spans.iter().map(|span| &span.trace_id).collect();
            json!({
                "one_trace": ids.len() == 1,
                "agents": agents.len(),
                "model": agents.first().map(|span| attribute(span, "gen_ai.request.model")),
                "passed": verdicts.first().map(|span| attribute(span, "mend.verdict.passed")),
            })
        })
        .collect();
    traces.sort_by_key(Value::to_string);
    let mut expected: Vec<Value> = results(&out)
        .iter()
        .map(|row| json!({"one_trace": true, "agents": 1, "model": MODEL, "passed": row["passed"]}))
        .collect();
    expected.sort_by_key(Value::to_string);
    assert_eq!((traces.len(), traces), (attempts, expected));
}
