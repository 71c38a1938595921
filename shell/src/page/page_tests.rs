//! The page's parts on small records built here: where the timeline puts things, what the
//! conversation decodes, what folds, and that record text never becomes markup.

use serde_json::{json, Value};

use super::conversation::decode;
use super::facts::verdict;
use super::html::Html;
use super::timeline::{Lane, Span, Split, Subject, Timeline};
use super::view::Shown;
use crate::record::Record;

fn line(at_ms: u64, message: Value, done: bool) -> Value {
    let mut chunk = json!({"model": "m", "message": message, "done": done});
    if done {
        chunk["done_reason"] = json!("stop");
    }
    json!({"at_ms": at_ms, "text": chunk.to_string()})
}

fn turn(number: u32, timing: Option<(u64, u64)>, lines: Vec<Value>) -> Value {
    let mut turn = json!({"turn": number, "lines": lines, "end": {"kind": "session_ended"}});
    if let Some((started, duration)) = timing {
        turn["started_ms"] = json!(started);
        turn["duration_ms"] = json!(duration);
    }
    turn
}

fn call(turn: u32, name: &str, status: &str, duration_ms: u64, started_ms: Option<u64>) -> Value {
    let mut call = json!({"turn": turn, "index": 0, "call_id": format!("c{turn}"), "name": name,
        "arguments": {}, "status": status, "result": {"ok": true}, "duration_ms": duration_ms});
    if let Some(started) = started_ms {
        call["started_ms"] = json!(started);
    }
    call
}

fn record(turns: Vec<Value>, calls: Vec<Value>, diff: &str) -> Record {
    let test_run = |ms: u64| json!({"exit_code": 0, "summary": {"passed": 1, "failed": 0, "errors": 0, "skipped": 0}, "duration_ms": ms});
    // A run in the first run format: older records show as they always did.
    Record::parse(
        &json!({
            "format": "mend-record/1", "provider": "ollama", "model": "m", "max_turns": 8,
            "think": true, "keep_alive": 0,
            "options": {"temperature": 0.0, "seed": 7, "num_ctx": 8192, "num_predict": 2048},
            "system_prompt": "s", "task": "t", "turns": turns, "tool_calls": calls,
            "stop": {"reason": "assistant_finished"},
            "tests_before": test_run(100), "tests_after": test_run(50),
            "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
            "source_sha256_before": "bb", "source_sha256_after": "cc", "diff": diff
        })
        .to_string(),
    )
    .expect("a valid record")
}

fn said(at_ms: u64, text: &str, done: bool) -> Value {
    line(at_ms, json!({"role": "assistant", "content": text}), done)
}

fn placed(timeline: &Timeline) -> Vec<(Lane, Subject, u64, u64, Option<u64>)> {
    timeline
        .spans
        .iter()
        .map(|span: &Span| {
            (
                span.lane,
                span.subject.clone(),
                span.start_ms,
                span.duration_ms,
                span.first_byte_ms,
            )
        })
        .collect()
}

/// A record of two turns, the first saying "a" and calling `call`, the second "done"; with each
/// turn's (start, duration) from `timings` where a newer record has them.
fn two_turns(timings: [Option<(u64, u64)>; 2], call: Value) -> Record {
    record(
        vec![
            turn(
                1,
                timings[0],
                vec![said(30, "a", false), said(80, "", true)],
            ),
            turn(2, timings[1], vec![said(20, "done", true)]),
        ],
        vec![call],
        "",
    )
}

/// Turn `turn` of the record's only session.
fn model_turn(turn: u32) -> Subject {
    Subject::Turn { session: 1, turn }
}

/// The first tool call of turn `turn` of the record's only session.
fn first_call(turn: u32) -> Subject {
    Subject::Call {
        session: 1,
        turn,
        index: 0,
    }
}

#[test]
fn an_old_record_is_laid_end_to_end_each_turn_lasting_until_its_last_line() {
    let record = two_turns([None, None], call(1, "run_tests", "ok", 40, None));
    let timeline = Timeline::of(&Shown::of(&record));
    assert_eq!(
        placed(&timeline),
        vec![
            (Lane::Tests, Subject::TestsBefore, 0, 100, None),
            (Lane::Model, model_turn(1), 100, 80, Some(30)),
            (Lane::Tools, first_call(1), 180, 40, None),
            (Lane::Model, model_turn(2), 220, 20, Some(20)),
            (Lane::Tests, Subject::TestsAfter, 240, 50, None),
        ]
    );
    assert_eq!(timeline.total_ms, 290);
    // The model's run_tests is a tool call, named within the tools' share; the tests' share is
    // the independent check's.
    let split = timeline.split();
    assert_eq!(
        (split, split.describe()),
        (
            Split {
                model_ms: 100,
                tools_ms: 40,
                run_tests_ms: 40,
                tests_ms: 150,
            },
            "model 100 ms · tools 40 ms (run_tests 40 ms) · tests 150 ms".to_owned()
        )
    );
}

#[test]
fn a_timed_record_puts_each_turn_and_call_where_it_happened() {
    let record = two_turns(
        [Some((5, 90)), Some((200, 25))],
        call(1, "read_file", "ok", 60, Some(110)),
    );
    let timeline = Timeline::of(&Shown::of(&record));
    assert_eq!(
        placed(&timeline),
        vec![
            (Lane::Tests, Subject::TestsBefore, 0, 100, None),
            (Lane::Model, model_turn(1), 105, 90, Some(30)),
            (Lane::Tools, first_call(1), 210, 60, None),
            (Lane::Model, model_turn(2), 300, 25, Some(20)),
            (Lane::Tests, Subject::TestsAfter, 325, 50, None),
        ]
    );
    let split = timeline.split();
    assert_eq!(
        (
            split.model_ms,
            split.tools_ms,
            split.tests_ms,
            timeline.total_ms
        ),
        (115, 60, 150, 375)
    );
}

#[test]
fn a_turn_decodes_to_its_thinking_text_and_calls() {
    let record = record(
        vec![turn(
            1,
            None,
            vec![
                line(
                    1,
                    json!({"role": "assistant", "content": "", "thinking": "hm"}),
                    false,
                ),
                said(2, "Reading.", false),
                line(
                    3,
                    json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]}),
                    true,
                ),
            ],
        )],
        vec![],
        "",
    );
    let content = decode(
        mend_core::Protocol::OllamaNdjson,
        &record.messages[0].turns[0],
    );
    assert_eq!(
        (
            content.thinking.as_str(),
            content.text.as_str(),
            content.calls.len(),
            content.done_reason.as_deref(),
            content.problem
        ),
        ("hm", "Reading.", 1, Some("stop"), None)
    );
}

const PAYLOADS: [&str; 5] = [
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "]]><!-- x -->",
    "\" onmouseover=\"alert(3)",
    "' autofocus onfocus='alert(4)",
];

#[test]
fn record_text_never_becomes_markup_anywhere_on_the_page() {
    let hostile = PAYLOADS.join(" ");
    let mut record = record(
        vec![turn(
            1,
            None,
            vec![
                line(
                    1,
                    json!({"role": "assistant", "content": "", "thinking": hostile}),
                    false,
                ),
                line(
                    2,
                    json!({"role": "assistant", "content": hostile, "tool_calls": [{"function": {"name": hostile, "arguments": {hostile.clone(): hostile}}}]}),
                    true,
                ),
            ],
        )],
        vec![
            json!({"turn": 1, "index": 0, "call_id": hostile, "name": hostile, "arguments": {},
            "status": "refused", "result": {"error": hostile}, "duration_ms": 0}),
        ],
        &format!("--- a/{hostile}\n+++ b/{hostile}\n@@ -1 +1 @@\n-{hostile}\n+{hostile}\n"),
    );
    record.settings.model = hostile.clone();
    record.settings.model_digest = Some(hostile.clone());
    record.settings.sandbox = Some(hostile.clone());
    record.description = Some(hostile.clone());
    record.messages[0].text = Some(hostile.clone());
    let page = super::record_page(&Shown::of(&record), &hostile);
    for payload in PAYLOADS {
        assert!(
            !page.contains(payload),
            "{payload} reached the page unescaped"
        );
    }
    let tags: std::collections::BTreeSet<&str> = page
        .split('<')
        .skip(1)
        .map(|tag| {
            tag.split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .find(|name| !name.is_empty())
                .unwrap_or("")
        })
        .collect();
    assert!(
        !tags.contains("script") && !tags.contains("img"),
        "{tags:?}"
    );
    let shown_as_text = page.matches(&super::html::escape(PAYLOADS[1])).count();
    assert!(
        shown_as_text >= 10,
        "the payload is shown as text everywhere ({shown_as_text} times)"
    );
}

#[test]
fn a_long_run_starts_folded_and_a_short_one_open() {
    let turns = |count: u32| -> Vec<Value> {
        (1..=count)
            .map(|number| turn(number, None, vec![said(1, "x", true)]))
            .collect()
    };
    let open_turns = |count| {
        super::record_page(&Shown::of(&record(turns(count), vec![], "")), "r")
            .matches("<details class=\"turn\" open>")
            .count()
    };
    assert_eq!((open_turns(3), open_turns(1000)), (3, 0));
}

#[test]
fn turn_numbers_too_close_to_read_apart_are_drawn_once_and_every_turn_keeps_its_line() {
    let drawn = |timings| {
        let record = two_turns(timings, call(1, "read_file", "ok", 0, Some(6)));
        let mut page = super::html::Html::new();
        super::timeline::draw(&Timeline::of(&Shown::of(&record)), &mut page);
        let svg = page.finish();
        let numbers: Vec<String> = svg
            .split("class=\"turn-number\"")
            .skip(1)
            .filter_map(|rest| rest.split('>').nth(1))
            .map(|text| text.trim_end_matches("</text").to_owned())
            .collect();
        (svg.matches("class=\"turn-start\"").count(), numbers)
    };
    assert_eq!(
        [
            drawn([Some((5, 90)), Some((200, 25))]),
            drawn([Some((5, 1)), Some((6, 1))])
        ],
        [
            (2, vec!["1".to_owned(), "2".to_owned()]),
            (2, vec!["1".to_owned()])
        ]
    );
}

/// `record` resumed once: its one message, then a second that went on from it and, as every
/// message does, numbered its turns from 1 again.
fn resumed(mut record: Record) -> Record {
    let mut went_on = record.messages[0].clone();
    went_on.text = None;
    record.messages.push(went_on);
    record
}

/// The texts of the elements that follow each `opening` in `markup`.
fn texts_after(markup: &str, opening: &str) -> Vec<String> {
    markup
        .split(opening)
        .skip(1)
        .filter_map(|rest| rest.split_once('>'))
        .filter_map(|(_, inside)| inside.split_once('<'))
        .map(|(text, _)| text.to_owned())
        .collect()
}

#[test]
fn a_resumed_record_names_each_turn_by_its_message_in_the_timeline_and_the_conversation() {
    let record = resumed(two_turns(
        [Some((5, 90)), Some((200, 25))],
        call(1, "read_file", "ok", 10, Some(100)),
    ));
    let shown = Shown::of(&record);
    let timeline = Timeline::of(&shown);
    let page = super::record_page(&shown, "r");
    let mut svg = super::html::Html::new();
    super::timeline::draw(&timeline, &mut svg);
    let named: Vec<(Option<String>, String)> = timeline
        .spans
        .iter()
        .map(|span| (span.mark.clone(), span.label.clone()))
        .collect();
    let mark = |name: &str| Some(name.to_owned());
    assert_eq!(
        (
            named,
            texts_after(&svg.finish(), "class=\"turn-number\" "),
            texts_after(&page, "<span class=\"turn-title\""),
        ),
        (
            vec![
                (None, "tests before: 1 passed · 100 ms".to_owned()),
                (
                    mark("1.1"),
                    "turn 1.1: model 90 ms, first byte after 30 ms".to_owned()
                ),
                (None, "turn 1.1, call 0: read_file (ok) 10 ms".to_owned()),
                (
                    mark("1.2"),
                    "turn 1.2: model 25 ms, first byte after 20 ms".to_owned()
                ),
                (
                    mark("2.1"),
                    "turn 2.1: model 90 ms, first byte after 30 ms".to_owned()
                ),
                (None, "turn 2.1, call 0: read_file (ok) 10 ms".to_owned()),
                (
                    mark("2.2"),
                    "turn 2.2: model 25 ms, first byte after 20 ms".to_owned()
                ),
                (
                    None,
                    "tests after (the verdict): 1 passed · 50 ms".to_owned()
                ),
            ],
            ["1.1", "1.2", "2.1", "2.2"].map(str::to_owned).to_vec(),
            ["Turn 1.1", "Turn 1.2", "Turn 2.1", "Turn 2.2"]
                .map(str::to_owned)
                .to_vec(),
        )
    );
}

#[test]
fn a_failing_verdict_names_the_stop_that_left_the_work_undone() {
    let headline = |stop: Value, passed: u32| {
        let mut run = json!({
            "format": "mend-record/1", "provider": "ollama", "model": "m", "max_turns": 8,
            "think": true, "keep_alive": 0,
            "options": {"temperature": 0.0, "seed": 7, "num_ctx": 8192, "num_predict": 2048},
            "system_prompt": "s", "task": "t", "turns": [], "tool_calls": [], "stop": stop,
            "tests_before": {"exit_code": 1, "summary": {"passed": 0, "failed": 1, "errors": 0, "skipped": 0}, "duration_ms": 5},
            "tests_after": {"exit_code": 0, "summary": {"passed": 1, "failed": 0, "errors": 0, "skipped": 0}, "duration_ms": 5},
            "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
            "source_sha256_before": "bb", "source_sha256_after": "bb", "diff": ""
        });
        if passed == 0 {
            run["tests_after"] = run["tests_before"].clone();
        }
        let record = Record::parse(&run.to_string()).expect("a valid record");
        let mut page = Html::new();
        verdict(&Shown::of(&record), &mut page);
        page.finish()
    };
    let cut = json!({"reason": "incomplete_model_turn",
        "detail": "the model's output was cut off by the token limit (done_reason: length)",
        "cause": "token_limit"});
    let finished = json!({"reason": "assistant_finished"});
    let bounded = json!({"reason": "max_turns", "detail": "8 requests sent"});
    assert_eq!(
        [
            headline(cut.clone(), 0),
            headline(finished.clone(), 0),
            headline(bounded, 0),
            headline(cut, 1),
        ],
        [
            "<p class=\"verdict fail\">FAIL — the independent final tests: 1 failed. The run stopped with incomplete_model_turn: the model ran out of tokens: the model&#39;s output was cut off by the token limit (done_reason: length) — the answer exceeded num_predict</p>",
            "<p class=\"verdict fail\">FAIL — the independent final tests: 1 failed</p>",
            "<p class=\"verdict fail\">FAIL — the independent final tests: 1 failed. The run stopped with max_turns: 8 requests sent</p>",
            "<p class=\"verdict pass\">PASS — the independent final tests pass, and they are the tests the run started with</p>",
        ]
        .map(str::to_owned)
    );
}
