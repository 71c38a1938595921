//! `mend run --otel`: the run's trace arrives at a receiver on 127.0.0.1 as one OTLP/HTTP
//! protobuf request, decoded with the OpenTelemetry project's own types: the GenAI spans and
//! their attributes, content only when the task file asks; and a collector that is down costs
//! one warning, not the run.

use std::net::TcpListener;
use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{json, Value};

use crate::common::otlp::{attribute, Collector};
use crate::common::server::{closed_port_base, Server};
use crate::common::turns::{call, fix, say, script, MODEL};
use crate::common::{live_args, live_run, sample_copy, typed_into, Outcome};

/// A run of the sample (read, fix, done) with `extra` task-file lines and flags.
fn traced_run(task_lines: &str, flags: &[&str]) -> Outcome {
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
    live_run(&server.base, repo.path(), &record, flags)
}

/// The names of the spans of a trace (`chat` for a chat with the model), and its verdict's
/// `mend.verdict.passed`.
fn names_and_passed(spans: &[Span]) -> Value {
    let chat = format!("chat {MODEL}");
    let names: Vec<&str> = spans
        .iter()
        .map(|span| match span.name.as_str() {
            name if name == chat => "chat",
            name => name,
        })
        .collect();
    json!({"spans": names, "passed": attribute(spans.last().unwrap(), "mend.verdict.passed")})
}

#[test]
fn a_run_sends_one_trace_of_genai_spans_without_content_unless_asked() {
    let collector = Collector::start(1);
    let outcome = traced_run("", &["--otel", &collector.base]);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (path, spans) = collector.trace();
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
    let collector = Collector::start(1);
    let outcome = traced_run(
        &format!(
            "[telemetry]\notlp_endpoint = \"{}\"\ninclude_content = true\n",
            collector.base
        ),
        &[],
    );
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (_, spans) = collector.trace();
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
    let baseline = traced_run("", &[]);
    assert_eq!(baseline.code, 0, "{}", baseline.stderr);
    let down = traced_run("", &["--otel", &closed_port_base()]);
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
    let silent = traced_run("", &["--otel", &silent_collector()]);
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
    let collector = Collector::start(1);
    let server = Server::start(script(vec![fix("c2"), say("done")]));
    let resumed = dir.path().join("resumed.json");
    let outcome = crate::support::resume(
        &server.base,
        &first,
        &resumed,
        &["--message", "Now fix it.", "--otel", &collector.base],
    );
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let (_, spans) = collector.trace();
    assert_eq!(
        names_and_passed(&spans),
        json!({"spans": ["invoke_agent mend", "chat", "chat", "execute_tool read_file",
                         "chat", "chat", "execute_tool replace_text", "mend.verdict"],
               "passed": true})
    );
}

#[test]
fn a_chat_sends_one_trace_at_its_end() {
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("chat.json");
    let collector = Collector::start(1);
    let server = Server::start(script(vec![fix("c1"), say("done")]));
    let chat = [
        live_args("chat", &server.base, repo.path(), &record).as_slice(),
        &["--otel", &collector.base],
    ]
    .concat();
    let output = typed_into(&chat, "Fix the Windows paths.\n");
    assert_eq!(output.code, 0, "{}", output.stderr);
    let (_, spans) = collector.trace();
    assert_eq!(
        names_and_passed(&spans),
        json!({"spans": ["invoke_agent mend", "chat", "chat", "execute_tool replace_text",
                         "mend.verdict"],
               "passed": true})
    );
}
