//! `mend show --html` pages in a real browser (Debian's chromium, headless): a page loads
//! nothing and runs nothing, a hostile record's payloads appear as text, and the timeline's bars
//! are as wide as their durations say. Without chromium these tests fail, naming the package.

use std::path::Path;

use crate::common::browser::{assert_inert, load, names, screenshot, Loaded};
use crate::common::{mend, repo_root};
use serde_json::{json, Value};

/// Everything the tests read from a loaded page, as one JSON string.
const INSPECT: &str = r#"JSON.stringify({
  title: document.title,
  text: document.body.textContent,
  elements: [...new Set([...document.querySelectorAll('*')].map(e => e.localName))],
  attributes: [...new Set([...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name)))],
  chart: document.querySelector('svg.timeline') && document.querySelector('svg.timeline').getBoundingClientRect().x,
  bars: [...document.querySelectorAll('rect.bar')].map(r => ({
    subject: r.dataset.subject, turn: r.dataset.turn, index: r.dataset.index,
    x: r.getBoundingClientRect().x, width: r.getBoundingClientRect().width })),
})"#;

/// The chart's width for the whole run and its left margin, in CSS pixels (page::timeline).
const CHART_WIDTH: f64 = 960.0;
const LABEL_WIDTH: f64 = 64.0;

/// The markup of a record's page beyond what every page of mend's holds.
const ELEMENTS: [&str; 6] = ["path", "details", "summary", "code", "span", "pre"];
const ATTRIBUTES: [&str; 7] = [
    "d",
    "open",
    "data-subject",
    "data-session",
    "data-turn",
    "data-index",
    "data-ms-per-px",
];

fn page_of(record: &Path, dir: &Path) -> std::path::PathBuf {
    let page = dir.join("page.html");
    let outcome = mend(&[
        "show",
        record.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(outcome.code, 0, "{}{}", outcome.stdout, outcome.stderr);
    page
}

/// What a bar stands for: `(subject, turn, index)`.
type Subject = (String, Option<u32>, Option<u32>);
/// A bar, its width and its left edge in the chart.
type Bar = (Subject, f64, f64);

fn bars(loaded: &Loaded) -> Vec<Bar> {
    let chart = loaded.inspected["chart"].as_f64().unwrap();
    let number = |value: &Value| value.as_str().map(|text| text.parse().unwrap());
    loaded.inspected["bars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bar| {
            (
                (
                    bar["subject"].as_str().unwrap().to_owned(),
                    number(&bar["turn"]),
                    number(&bar["index"]),
                ),
                bar["width"].as_f64().unwrap(),
                bar["x"].as_f64().unwrap() - chart - LABEL_WIDTH,
            )
        })
        .collect()
}

/// Widths and positions rounded to 0.01 px, to compare whole lists.
fn rounded(bars: Vec<Bar>) -> Vec<(Subject, i64, i64)> {
    bars.into_iter()
        .map(|(subject, width, x)| {
            (
                subject,
                (width * 100.0).round() as i64,
                (x * 100.0).round() as i64,
            )
        })
        .collect()
}

#[test]
fn the_checks_catch_a_page_that_loads_or_runs_something() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        r#"<!doctype html><title>bad</title><img src="http://127.0.0.1:9/x.png"><script>console.error("ran")</script>"#,
    )
    .unwrap();
    let loaded = load(&page, INSPECT);
    assert_eq!(
        loaded.requests,
        vec![
            format!("file://{}", page.display()),
            "http://127.0.0.1:9/x.png".to_owned()
        ]
    );
    assert!(
        loaded
            .problems
            .iter()
            .any(|problem| problem.contains("ran")),
        "{:?}",
        loaded.problems
    );
    assert!(names(&loaded, "elements").contains("script"));
}

#[test]
fn the_sample_page_loads_nothing_and_its_bars_are_as_long_as_the_record_says() {
    let dir = tempfile::tempdir().unwrap();
    let record_path = repo_root().join("fixtures/repair.json");
    let page = page_of(&record_path, dir.path());
    let loaded = load(&page, INSPECT);
    assert_inert(&loaded, &page, &ELEMENTS, &ATTRIBUTES);

    // An authored record has no start times: everything is laid end to end, a turn lasting
    // until its last line.
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    let mut expected = Vec::new();
    let mut at = 0.0;
    let mut push = |subject: Subject, ms: f64| {
        expected.push((subject, ms, at));
        at += ms;
    };
    let ms = |value: &Value| value.as_f64().unwrap();
    push(
        ("tests-before".to_owned(), None, None),
        ms(&record["tests_before"]["duration_ms"]),
    );
    for turn in record["turns"].as_array().unwrap() {
        let number = turn["turn"].as_u64().unwrap() as u32;
        push(
            ("turn".to_owned(), Some(number), None),
            ms(&turn["lines"].as_array().unwrap().last().unwrap()["at_ms"]),
        );
        for call in record["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|call| call["turn"] == turn["turn"])
        {
            push(
                (
                    "call".to_owned(),
                    Some(number),
                    Some(call["index"].as_u64().unwrap() as u32),
                ),
                ms(&call["duration_ms"]),
            );
        }
    }
    push(
        ("tests-after".to_owned(), None, None),
        ms(&record["tests_after"]["duration_ms"]),
    );
    let scale = CHART_WIDTH / at;
    let expected: Vec<Bar> = expected
        .into_iter()
        .map(|(subject, ms, start)| (subject, ms * scale, start * scale))
        .collect();
    assert_eq!(rounded(bars(&loaded)), rounded(expected));
}

/// Everything a model, a tool or a repository can put into a record, at once.
const PAYLOADS: [&str; 6] = [
    "</script><script>console.error('pwned-1')</script>",
    "<img src=x onerror=\"console.error('pwned-2')\">",
    "]]><!-- <svg onload=console.error('pwned-3')> -->",
    "\" onmouseover=\"console.error('pwned-4')\" x=\"",
    "' autofocus onfocus='console.error(`pwned-5`)' '",
    "<style>*{background:url(http://127.0.0.1:9/css)}</style>",
];

fn hostile_record() -> Value {
    let hostile = PAYLOADS.join(" | ");
    let chunk = |message: Value, done: bool| {
        let mut chunk = json!({"model": hostile, "message": message, "done": done});
        if done {
            chunk["done_reason"] = json!("stop");
        }
        chunk.to_string()
    };
    let turn_one = vec![
        json!({"at_ms": 40, "text": chunk(json!({"role": "assistant", "content": "", "thinking": hostile}), false)}),
        json!({"at_ms": 90, "text": chunk(json!({"role": "assistant", "content": hostile}), false)}),
        json!({"at_ms": 280, "text": chunk(json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "function": {"name": hostile, "arguments": {hostile.clone(): hostile}}},
            {"id": "c2", "function": {"name": "read_file", "arguments": {"path": hostile}}}
        ]}), true)}),
    ];
    let turn_two = vec![
        json!({"at_ms": 120, "text": chunk(json!({"role": "assistant", "content": hostile}), true)}),
    ];
    let test_run = |ms: u64, passed: u32| json!({"exit_code": 0, "summary": {"passed": passed, "failed": 0, "errors": 0, "skipped": 0}, "duration_ms": ms});
    json!({
        "format": "mend-record/1", "description": hostile, "provider": "ollama", "model": hostile,
        "model_digest": hostile, "server_version": hostile, "sandbox": hostile, "repo": hostile,
        "max_turns": 8, "think": true, "keep_alive": 0,
        "options": {"temperature": 0.0, "seed": 7, "num_ctx": 8192, "num_predict": 2048},
        "system_prompt": hostile, "task": hostile,
        "turns": [
            {"turn": 1, "started_ms": 10, "duration_ms": 300, "lines": turn_one, "end": {"kind": "session_ended"}},
            {"turn": 2, "started_ms": 450, "duration_ms": 150, "lines": turn_two, "end": {"kind": "session_ended"}}
        ],
        "tool_calls": [
            {"turn": 1, "index": 0, "call_id": "c1", "name": hostile, "arguments": {}, "status": "refused",
             "result": {"error": hostile}, "duration_ms": 0},
            {"turn": 1, "index": 1, "call_id": "c2", "name": "read_file", "arguments": {"path": hostile},
             "status": "ok", "result": {"path": hostile, "text": hostile}, "duration_ms": 100, "started_ms": 320}
        ],
        "stop": {"reason": "assistant_finished", "detail": hostile},
        "tests_before": {"exit_code": 1, "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0},
            "duration_ms": 200, "failing": [hostile], "output_tail": hostile}, "tests_after": test_run(250, 4),
        "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
        "source_sha256_before": "bb", "source_sha256_after": "cc",
        "diff": format!("--- a/{hostile}\n+++ b/{hostile}\n@@ -1 +1 @@\n-{hostile}\n+{hostile}\n"),
    })
}

#[test]
fn a_hostile_records_payloads_are_shown_as_text_and_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("hostile.json");
    std::fs::write(&record_path, hostile_record().to_string()).unwrap();
    let page = page_of(&record_path, dir.path());
    let loaded = load(&page, INSPECT);
    assert_inert(&loaded, &page, &ELEMENTS, &ATTRIBUTES);
    let hostile = PAYLOADS.join(" | ");
    assert_eq!(
        loaded.inspected["title"],
        json!(format!("mend run: {hostile} — {}", record_path.display()))
    );
    let text = loaded.inspected["text"].as_str().unwrap();
    for payload in PAYLOADS {
        assert!(
            text.matches(payload).count() >= 10,
            "{payload} is not shown as text everywhere"
        );
    }

    // A timed record: each bar starts where it happened. Tests before 200 ms, the loop 600 ms
    // (turn 1 from 10 ms for 300, a refused call, read_file from 320 ms for 100, turn 2 from
    // 450 ms for 150), tests after 250 ms: 1,050 ms in all.
    let scale = CHART_WIDTH / 1050.0;
    let bar = |subject: &str, turn: Option<u32>, index: Option<u32>, start: f64, ms: f64| -> Bar {
        ((subject.to_owned(), turn, index), ms * scale, start * scale)
    };
    assert_eq!(
        rounded(bars(&loaded)),
        rounded(vec![
            bar("tests-before", None, None, 0.0, 200.0),
            bar("turn", Some(1), None, 210.0, 300.0),
            bar("call", Some(1), Some(1), 520.0, 100.0),
            bar("turn", Some(2), None, 650.0, 150.0),
            bar("tests-after", None, None, 800.0, 250.0),
        ])
    );
}

/// The README's picture: the sample's recorded repair. `MEND_SHOW_SCREENSHOT=docs/show.png`
/// (`make screenshot`) keeps it.
#[test]
fn the_sample_page_renders_to_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let page = page_of(&repo_root().join("fixtures/repair.json"), dir.path());
    let png = dir.path().join("page.png");
    screenshot(&page, &png, 1200, 1800);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (width, height) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert_eq!((width, height), (1200, 1800));
    if let Ok(keep) = std::env::var("MEND_SHOW_SCREENSHOT") {
        std::fs::write(repo_root().join(keep), bytes).unwrap();
    }
}
