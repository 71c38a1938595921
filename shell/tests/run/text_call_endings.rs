//! Bad input around calls written as text, end to end: a template that does not parse, a family
//! the template names whose reader matches nothing in the model's text, a repair answer that
//! breaks the tools' schema anyway. Each run ends once, with one clear stop and its record whole
//! (it replays), and a broken turn gets one repair at most: never a repair of a repair.

use std::path::PathBuf;

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common::server::Server;
use crate::common::turns::{say, script, NEW, OLD};
use crate::common::{mend, sample_copy, Outcome};
use crate::support::{ended, read, repaired_as_recorded, repaired_live, run};
use crate::text_calls::{of_types, written};

/// A Go template cut off inside an action, with no family's marker: it does not parse.
const UNPARSED_TEMPLATE: &str = "{{- if .Tools }}{{ range .Tools }}{{ .Function.Name";

/// The part of Gemma 4's template that renders past calls: it names the gemma4 family.
const GEMMA4_TEMPLATE: &str = "{{- range .ToolCalls }}<|tool_call>call:{{ .Function.Name }}{{ range $k, $v := .Function.Arguments }}{{ $k }}:<|\"|>{{ $v }}<|\"|>{{ end }}<tool_call|>{{ end }}";

/// A run of a copy of the sample: what it said, and its record, which the copy and the record's
/// folder outlive (a replay runs on the copy).
struct Ran {
    outcome: Outcome,
    record: PathBuf,
    _repo: TempDir,
    _folder: TempDir,
}

impl Ran {
    fn replayed(&self) -> Outcome {
        mend(&["replay", "--json", self.record.to_str().unwrap()])
    }
}

fn run_sample(server: &Server) -> Ran {
    let repo = sample_copy();
    let folder = tempfile::tempdir().unwrap();
    let record = folder.path().join("run.json");
    let outcome = run(&server.base, repo.path(), &record, &[]);
    Ran {
        outcome,
        record,
        _repo: repo,
        _folder: folder,
    }
}

/// What the run's first line (its `run_start` event's source) says about reading text calls.
fn text_calls_line(outcome: &Outcome) -> Option<String> {
    let events = outcome.events();
    let source = events.first()?.get("source")?.as_str()?;
    source.split_once("; ").map(|(_, said)| said.to_owned())
}

/// The lines [`written`] streams `text` in: seven characters each, then `done`.
fn lines_of(text: &str) -> usize {
    text.chars().count().div_ceil(7) + 1
}

/// The repair's events, in order.
fn repairs(outcome: &Outcome) -> Vec<Value> {
    of_types(&outcome.events(), &["repair_requested", "repair_unusable"])
}

#[test]
fn a_template_that_does_not_parse_leaves_every_family_reading() {
    let hermes = format!(
        "<tool_call>\n{}\n</tool_call>",
        json!({"name": "replace_text", "arguments": {"old": OLD, "new": NEW}})
    );
    let server = Server::start_showing(
        script(vec![written(&hermes), say("Fixed.")]),
        json!({"template": UNPARSED_TEMPLATE}),
    );
    let ran = run_sample(&server);
    let (outcome, record) = (&ran.outcome, &ran.record);
    assert_eq!(ended(outcome), repaired_live(), "{}", outcome.stderr);
    let formats: Vec<Value> = of_types(&outcome.events(), &["recovered_from_text"])
        .iter()
        .map(|event| event["calls"][0]["format"].clone())
        .collect();
    assert_eq!(
        (
            text_calls_line(outcome).as_deref(),
            formats,
            read(record).get("text_call_family").cloned()
        ),
        (
            Some("text calls: every family (the server named no template's)"),
            vec![json!("hermes")],
            None
        )
    );
    let replayed = ran.replayed();
    assert_eq!(
        ended(&replayed),
        repaired_as_recorded(),
        "{}",
        replayed.stderr
    );
}

#[test]
fn a_named_family_whose_reader_matches_nothing_leaves_the_others_reading() {
    // The template names Gemma 4; the model writes Qwen3-Coder's form, which Gemma 4's reader
    // does not match.
    let qwen3 = format!(
        "<function=replace_text>\n<parameter=old>\n{OLD}\n</parameter>\n<parameter=new>\n{NEW}\n</parameter>\n</function>"
    );
    let server = Server::start_showing(
        script(vec![written(&qwen3), say("Fixed.")]),
        json!({"template": GEMMA4_TEMPLATE}),
    );
    let ran = run_sample(&server);
    let (outcome, record) = (&ran.outcome, &ran.record);
    assert_eq!(ended(outcome), repaired_live(), "{}", outcome.stderr);
    let formats: Vec<Value> = of_types(&outcome.events(), &["recovered_from_text"])
        .iter()
        .map(|event| event["calls"][0]["format"].clone())
        .collect();
    assert_eq!(
        (
            text_calls_line(outcome).as_deref(),
            formats,
            repairs(outcome),
            read(record).get("text_call_family").cloned()
        ),
        (
            Some("text calls read as gemma4, from the model's template"),
            vec![json!("qwen3_coder")],
            vec![],
            Some(json!("gemma4"))
        )
    );
    let replayed = ran.replayed();
    assert_eq!(
        ended(&replayed),
        repaired_as_recorded(),
        "{}",
        replayed.stderr
    );
}

/// Gemma 4's call with its closing token missing: no reader accepts it, so it is repaired.
fn broken_gemma4() -> String {
    format!("<|tool_call>call:replace_text{{old:<|\"|>{OLD}<|\"|>,new:<|\"|>{NEW}")
}

/// A run whose stop is the model's own and whose tests still fail (nothing was fixed): live,
/// then replayed against its record.
fn unfixed(replay_matched: Value) -> (i32, Option<(Value, Value, Value)>) {
    (
        1,
        Some((json!(false), replay_matched, json!("assistant_finished"))),
    )
}

#[test]
fn a_repair_answer_that_breaks_the_schema_anyway_ends_the_run_once() {
    // A server that does not keep to the schema: the repair's answer is the broken call again,
    // and then prose. A third reply is scripted for a second repair that must not be asked.
    for answer in [broken_gemma4(), "I cannot write that call.".to_owned()] {
        let server = Server::start_showing(
            script(vec![
                written(&broken_gemma4()),
                written(&answer),
                say("never asked"),
            ]),
            json!({"template": GEMMA4_TEMPLATE}),
        );
        let ran = run_sample(&server);
        let (outcome, record) = (&ran.outcome, &ran.record);
        let bodies = server.chat_bodies();
        let formats: Vec<bool> = bodies
            .iter()
            .map(|body| body.get("format").is_some())
            .collect();
        assert_eq!(
            (ended(outcome), formats, repairs(outcome)),
            (
                unfixed(Value::Null),
                vec![false, true],
                vec![
                    json!({"type": "repair_requested", "turn": 2, "broken_turn": 1}),
                    json!({"type": "repair_unusable", "turn": 2, "broken_turn": 1}),
                ]
            ),
            "{answer}: {}",
            outcome.stderr
        );
        // The record is whole: both turns with every line, the second marked as the first's
        // repair, no call, the stop; and it replays.
        let message = &read(record)["messages"][0];
        let turns: Vec<Value> = message["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|turn| {
                json!([
                    turn["turn"],
                    turn["repair_of"],
                    turn["lines"].as_array().unwrap().len()
                ])
            })
            .collect();
        assert_eq!(
            (turns, &message["tool_calls"], &message["stop"]["reason"]),
            (
                vec![
                    json!([1, null, lines_of(&broken_gemma4())]),
                    json!([2, 1, lines_of(&answer)])
                ],
                &json!([]),
                &json!("assistant_finished")
            ),
            "{answer}"
        );
        let replayed = ran.replayed();
        assert_eq!(
            ended(&replayed),
            unfixed(json!(true)),
            "{}",
            replayed.stderr
        );
    }
}

#[test]
fn a_repaired_call_whose_arguments_break_the_schema_is_refused_not_repaired_again() {
    // The answer is a call of an offered tool, but without a required argument and with a
    // number for a string: validation refuses it and tells the model, as for any call.
    let answer = json!({"name": "replace_text", "arguments": {"old": 7}}).to_string();
    let server = Server::start_showing(
        script(vec![
            written(&broken_gemma4()),
            written(&answer),
            say("I give up."),
            say("never asked"),
        ]),
        json!({"template": GEMMA4_TEMPLATE}),
    );
    let ran = run_sample(&server);
    let (outcome, record) = (&ran.outcome, &ran.record);
    let bodies = server.chat_bodies();
    let formats: Vec<bool> = bodies
        .iter()
        .map(|body| body.get("format").is_some())
        .collect();
    let statuses: Vec<Value> = of_types(&outcome.events(), &["tool_result"])
        .iter()
        .map(|event| json!([event["call_id"], event["status"]]))
        .collect();
    assert_eq!(
        (ended(outcome), formats, repairs(outcome), statuses),
        (
            unfixed(Value::Null),
            vec![false, true, false],
            vec![json!({"type": "repair_requested", "turn": 2, "broken_turn": 1})],
            vec![json!(["repair_1_0", "refused"])]
        ),
        "{}",
        outcome.stderr
    );
    // The record is whole: three turns, the second the first's repair, the refused call.
    let message = &read(record)["messages"][0];
    let turns: Vec<Value> = message["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| json!([turn["turn"], turn["repair_of"]]))
        .collect();
    let calls: Vec<Value> = message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| json!([call["turn"], call["name"], call["status"]]))
        .collect();
    assert_eq!(
        (turns, calls, &message["stop"]["reason"]),
        (
            vec![json!([1, null]), json!([2, 1]), json!([3, null])],
            vec![json!([2, "replace_text", "refused"])],
            &json!("assistant_finished")
        )
    );
    let replayed = ran.replayed();
    assert_eq!(
        ended(&replayed),
        unfixed(json!(true)),
        "{}",
        replayed.stderr
    );
}
