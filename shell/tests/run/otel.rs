//! `mend run --otel`: the run's trace arrives at a receiver on 127.0.0.1 as one OTLP/HTTP
//! protobuf request, decoded with the OpenTelemetry project's own types: the GenAI spans and
//! their attributes, content only when the task file asks; and a collector that is down costs
//! one warning, not the run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{json, Value};

use crate::common::server::{closed_port_base, Server};
use crate::common::turns::{call, fix, say, script, MODEL};
use crate::common::{mend, sample_copy};

/// A collector on 127.0.0.1 that takes one request (within 60 s), answers 200 and hands over
/// the request's path and body.
fn receiver() -> (String, mpsc::Receiver<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
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
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .unwrap();
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_owned();
        let _ = tx.send((path, body));
    });
    (base, rx)
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
            Any::ArrayValue(list) => json!(list.values.len()),
            other => json!(format!("{other:?}")),
        })
}

/// A run of the sample (read, fix, done) with `extra` task-file lines and flags.
fn traced_run(task_lines: &str, flags: &[&str]) -> (crate::common::Outcome, Duration) {
    let repo = sample_copy();
    let task = std::fs::read_to_string(repo.path().join("mend.toml")).unwrap();
    std::fs::write(
        repo.path().join("mend.toml"),
        format!("{task}\n{task_lines}"),
    )
    .unwrap();
    let server = Server::start(script(vec![
        call("c1", "read_file", json!({"path": "path_rules.py"})),
        fix("c2"),
        say("done"),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let mut args = vec![
        "run",
        "--sandbox",
        "none",
        "--host",
        &server.base,
        "--repo",
        repo.path().to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    let started = Instant::now();
    let outcome = mend(&args);
    (outcome, started.elapsed())
}

fn spans(rx: &mpsc::Receiver<(String, Vec<u8>)>) -> (String, Vec<Span>) {
    let (path, body) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a trace arrived");
    let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
    let spans = request
        .resource_spans
        .into_iter()
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect();
    (path, spans)
}

#[test]
fn a_run_sends_one_trace_of_genai_spans_without_content_unless_asked() {
    let (base, rx) = receiver();
    let (outcome, _) = traced_run("", &["--otel", &base]);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (path, spans) = spans(&rx);
    let shown: Vec<Value> = spans
        .iter()
        .map(|span| {
            json!([
                span.name,
                attribute(span, "gen_ai.operation.name"),
                attribute(span, "gen_ai.request.model"),
                attribute(span, "gen_ai.tool.name"),
                attribute(span, "gen_ai.output.messages"),
                attribute(span, "gen_ai.tool.call.arguments")
            ])
        })
        .collect();
    let chat = json!([format!("chat {MODEL}"), "chat", MODEL, null, null, null]);
    assert_eq!(path, "/v1/traces");
    assert_eq!(
        shown,
        vec![
            json!(["invoke_agent mend", "invoke_agent", MODEL, null, null, null]),
            chat.clone(),
            chat.clone(),
            chat,
            json!([
                "execute_tool read_file",
                "execute_tool",
                null,
                "read_file",
                null,
                null
            ]),
            json!([
                "execute_tool replace_text",
                "execute_tool",
                null,
                "replace_text",
                null,
                null
            ]),
            json!(["mend.verdict", null, null, null, null, null]),
        ]
    );
    let verdict = spans.last().unwrap();
    assert_eq!(
        [
            "mend.verdict.passed",
            "mend.tests.fail_to_pass",
            "mend.tests.fail_to_pass.fixed",
            "mend.tests.pass_to_pass",
            "mend.tests.pass_to_pass.kept"
        ]
        .map(|key| attribute(verdict, key)),
        [json!(true), json!(1), json!(1), json!(3), json!(3)]
    );
    // One trace: every span shares the root's trace id, and every other span's parent is it.
    let root = &spans[0];
    assert!(spans
        .iter()
        .all(|span| span.trace_id == root.trace_id && span.trace_id.len() == 16));
    assert!(spans[1..]
        .iter()
        .all(|span| span.parent_span_id == root.span_id));
    assert!(spans
        .iter()
        .all(|span| span.start_time_unix_nano <= span.end_time_unix_nano
            && span.start_time_unix_nano >= root.start_time_unix_nano));
}

#[test]
fn the_task_files_endpoint_with_include_content_puts_the_conversation_in_the_spans() {
    let (base, rx) = receiver();
    let (outcome, _) = traced_run(
        &format!("[telemetry]\notlp_endpoint = \"{base}\"\ninclude_content = true\n"),
        &[],
    );
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (_, spans) = spans(&rx);
    let tool = spans
        .iter()
        .find(|span| span.name == "execute_tool read_file")
        .unwrap();
    let last_chat = spans
        .iter()
        .rfind(|span| span.name.starts_with("chat"))
        .unwrap();
    assert_eq!(
        (
            attribute(tool, "gen_ai.tool.call.arguments"),
            attribute(last_chat, "gen_ai.output.messages")
        ),
        (
            json!(json!({"path": "path_rules.py"}).to_string()),
            json!(
                json!([{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}])
                    .to_string()
            )
        )
    );
}

/// A collector that takes connections and never answers (held for 60 s at most).
fn silent_collector() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let held = listener.accept();
        std::thread::sleep(Duration::from_secs(60));
        drop(held);
    });
    base
}

#[test]
fn a_collector_that_is_down_or_silent_costs_one_warning_and_not_the_run() {
    let (baseline, _) = traced_run("", &[]);
    assert_eq!(baseline.code, 0, "{}", baseline.stderr);
    let (down, _) = traced_run("", &["--otel", &closed_port_base()]);
    let warnings: Vec<&str> = down
        .stderr
        .lines()
        .filter(|line| line.contains("trace"))
        .collect();
    assert_eq!((down.code, warnings.len()), (0, 1), "{}", down.stderr);
    assert!(
        warnings[0].starts_with("mend: warning: cannot send the run's trace to "),
        "{}",
        warnings[0]
    );
    // A collector that never answers: the run still ends as it would have. How long its end
    // waits is `telemetry::sender`'s unit test: whole runs' wall times vary too much here.
    let (silent, _) = traced_run("", &["--otel", &silent_collector()]);
    assert_eq!((silent.code, baseline.code), (0, 0), "{}", silent.stderr);
}

#[test]
fn a_resumed_run_sends_one_trace_of_the_whole_new_record() {
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    // The first run only reads, and stops: no trace, it was not asked for.
    let server = Server::start(script(vec![
        call("c1", "read_file", json!({"path": "path_rules.py"})),
        say("read it"),
    ]));
    let ran = crate::support::run(&server.base, repo.path(), &first, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let (base, rx) = receiver();
    let server = Server::start(script(vec![fix("c2"), say("done")]));
    let resumed = dir.path().join("resumed.json");
    let outcome = crate::support::resume(
        &server.base,
        &first,
        &resumed,
        &["--message", "Now fix it.", "--otel", &base],
    );
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (_, spans) = spans(&rx);
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
    let chat = format!("chat {MODEL}");
    assert_eq!(
        (
            names,
            attribute(spans.last().unwrap(), "mend.verdict.passed")
        ),
        (
            vec![
                "invoke_agent mend",
                &chat,
                &chat,
                "execute_tool read_file",
                &chat,
                &chat,
                "execute_tool replace_text",
                "mend.verdict"
            ],
            json!(true)
        )
    );
}

#[test]
fn a_chat_sends_one_trace_at_its_end() {
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let (base, rx) = receiver();
    let server = Server::start(script(vec![fix("c1"), say("done")]));
    let mut child = crate::common::mend_command(&crate::common::repo_root())
        .args(crate::common::live_args(
            "chat",
            &server.base,
            repo.path(),
            &record,
        ))
        .args(["--otel", &base])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Fix the Windows paths.\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (_, spans) = spans(&rx);
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
    let chat = format!("chat {MODEL}");
    assert_eq!(
        (
            names,
            attribute(spans.last().unwrap(), "mend.verdict.passed")
        ),
        (
            vec![
                "invoke_agent mend",
                &chat,
                &chat,
                "execute_tool replace_text",
                "mend.verdict"
            ],
            json!(true)
        )
    );
}
