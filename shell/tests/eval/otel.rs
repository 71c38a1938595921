//! `mend eval --otel`: one trace per attempt arrives at a receiver on 127.0.0.1, decoded with
//! the OpenTelemetry project's own types, each with its attempt's agent span and verdict.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{json, Value};

use crate::common::mend;
use crate::server::{SeededServer, MODEL};
use crate::{fixes, results, suite_folder, K};

/// A collector on 127.0.0.1 that answers each request with 200 and keeps its body, for at most
/// `most` requests and 300 s.
fn receiver(most: usize) -> (String, std::thread::JoinHandle<Vec<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let give_up = Instant::now() + Duration::from_secs(300);
    let bodies = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        while bodies.len() < most && Instant::now() < give_up {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap();
                    }
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut stream = stream;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            bodies.push(body);
        }
        bodies
    });
    (base, bodies)
}

fn attribute(span: &Span, key: &str) -> Value {
    span.attributes
        .iter()
        .find(|pair| pair.key == key)
        .and_then(|pair| pair.value.as_ref()?.value.clone())
        .map_or(Value::Null, |value| match value {
            Any::StringValue(text) => json!(text),
            Any::IntValue(number) => json!(number),
            Any::BoolValue(flag) => json!(flag),
            other => json!(format!("{other:?}")),
        })
}

#[test]
fn an_eval_sends_one_trace_per_attempt_with_its_verdict() {
    let attempts = 2 * K as usize;
    let (base, bodies) = receiver(attempts);
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
        &base,
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let bodies = bodies.join().unwrap();
    // Each trace: its id, the model its agent span asked, and its verdict.
    let mut traces: Vec<Value> = bodies
        .iter()
        .map(|body| {
            let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            let spans: Vec<Span> = request
                .resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans)
                .collect();
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
