//! Calls written as text, end to end against the loopback server: each model family's raw text
//! (as such a model streams it when the server does not parse its template) repairs the sample,
//! is marked in the events and the record, and replays; `model.text_tool_calls = false` reads
//! the same text as the final answer. And the project's `AGENTS.md`, given after the system
//! prompt, recorded, shown by `mend task`, and replayed from the record.

use std::path::Path;

use crate::common::server::{Reply, Server};
use crate::common::turns::{say, script, MODEL, NEW, OLD};
use crate::common::{live_run, mend, sample_copy};
use crate::support::{ended, read, repaired_as_recorded, repaired_live, run, verdict};
use serde_json::{json, Value};

/// A turn streamed as a model streams text: a few characters per line, then `done`.
pub(crate) fn written(text: &str) -> Reply {
    let chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = chars
        .chunks(7)
        .map(|piece| {
            let piece: String = piece.iter().collect();
            json!({"model": MODEL, "message": {"role": "assistant", "content": piece}, "done": false})
                .to_string()
        })
        .collect();
    lines.push(
        json!({"model": MODEL, "message": {"role": "assistant", "content": ""}, "done": true,
               "done_reason": "stop", "prompt_eval_count": 900, "eval_count": 60})
        .to_string(),
    );
    Reply::lines(&lines)
}

/// A model that means replace_text but leaves its JSON unclosed (no reader accepts it), then
/// answers the repair under the tools' schema with the call, then says "Fixed.".
pub(crate) struct Repair {
    pub(crate) arguments: Value,
    /// The unclosed call, as the model wrote it.
    pub(crate) broken: String,
    /// The call as the repair's answer writes it.
    pub(crate) answer: String,
    pub(crate) server: Server,
}

impl Repair {
    pub(crate) fn scripted() -> Repair {
        let arguments = json!({"old": OLD, "new": NEW});
        let broken = format!(
            "I'll fix the path: {{\"name\": \"replace_text\", \"arguments\": {}",
            &arguments.to_string()[..20]
        );
        let answer = json!({"name": "replace_text", "arguments": arguments}).to_string();
        let server = Server::start(script(vec![
            written(&broken),
            written(&answer),
            say("Fixed."),
        ]));
        Repair {
            arguments,
            broken,
            answer,
            server,
        }
    }
}

/// Each family's text for the repair, and the part of it that is the call.
fn families() -> Vec<(&'static str, String, String)> {
    let object = json!({"name": "replace_text", "arguments": {"old": OLD, "new": NEW}});
    let hermes = format!("<tool_call>\n{object}\n</tool_call>");
    let qwen3 = format!(
        "<tool_call>\n<function=replace_text>\n<parameter=old>\n{OLD}\n</parameter>\n<parameter=new>\n{NEW}\n</parameter>\n</function>\n</tool_call>"
    );
    let fenced = format!(
        "```json\n{}\n```",
        serde_json::to_string_pretty(&object).unwrap()
    );
    let bare = json!({"name": "replace_text", "parameters": {"old": OLD, "new": NEW}}).to_string();
    vec![
        ("hermes", hermes.clone(), hermes),
        (
            "qwen3_coder",
            format!("I'll make the path handle backslashes.\n\n{qwen3}"),
            qwen3,
        ),
        (
            "fenced_json",
            format!("The fix replaces one line:\n\n{fenced}\n"),
            fenced,
        ),
        ("bare_json", bare.clone(), bare),
    ]
}

pub(crate) fn of_types(events: &[Value], types: &[&str]) -> Vec<Value> {
    events
        .iter()
        .filter(|event| types.contains(&event["type"].as_str().unwrap_or("")))
        .cloned()
        .collect()
}

#[test]
fn each_familys_written_call_repairs_the_sample_is_marked_and_replays() {
    for (format, text, call_text) in families() {
        let repo = sample_copy();
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("run.json");
        let server = Server::start(script(vec![written(&text), say("Fixed.")]));
        let outcome = run(&server.base, repo.path(), &record, &[]);
        assert_eq!(
            ended(&outcome),
            repaired_live(),
            "{format}: {}",
            outcome.stderr
        );
        let events = outcome.events();
        let arguments = json!({"old": OLD, "new": NEW});
        assert_eq!(
            of_types(
                &events,
                &["recovered_from_text", "tool_start", "tool_result"]
            ),
            vec![
                json!({"type": "recovered_from_text", "turn": 1, "calls": [
                    {"index": 0, "name": "replace_text", "format": format, "text": call_text}]}),
                json!({"type": "tool_start", "turn": 1, "index": 0, "call_id": "text_1_0",
                       "name": "replace_text", "arguments": arguments}),
                json!({"type": "tool_result", "turn": 1, "index": 0, "call_id": "text_1_0",
                       "name": "replace_text", "status": "ok",
                       "result": {"path": "path_rules.py", "replaced": 1}}),
            ],
            "{format}"
        );
        // The text stays as the model wrote it; the call goes back with its id and result.
        let second = &server.chat_bodies()[1]["messages"];
        assert_eq!(
            (&second[2], &second[3]["tool_call_id"]),
            (
                &json!({"role": "assistant", "content": text, "tool_calls": [
                    {"id": "text_1_0", "function": {"name": "replace_text", "arguments": arguments}}]}),
                &json!("text_1_0")
            ),
            "{format}"
        );
        let recorded = read(&record);
        assert_eq!(
            (
                &recorded["text_tool_calls"],
                &recorded["messages"][0]["tool_calls"][0]["recovered_from_text"]
            ),
            (&json!(true), &json!({"format": format, "text": call_text})),
            "{format}"
        );
        let replayed = mend(&["replay", "--json", record.to_str().unwrap()]);
        assert_eq!(
            ended(&replayed),
            repaired_as_recorded(),
            "{format}: {}",
            replayed.stderr
        );
        let page = dir.path().join("run.html");
        let shown = mend(&[
            "show",
            record.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ]);
        let html = std::fs::read_to_string(&page).unwrap();
        let mark = format!("<span class=\"dim\">written as text ({format})</span>");
        assert_eq!(
            (shown.code, html.matches(&mark).count()),
            (0, 1),
            "{format}: {}",
            shown.stderr
        );
    }
}

#[test]
fn human_output_says_a_call_was_read_from_text() {
    let (_, text, _) = families().remove(0);
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let server = Server::start(script(vec![written(&text), say("Fixed.")]));
    let outcome = live_run(&server.base, repo.path(), &record, &[]);
    let said: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| line.starts_with("(the model"))
        .collect();
    assert_eq!(
        (outcome.code, said),
        (
            0,
            vec!["(the model wrote 1 call(s) as text (hermes); mend reads them as calls)"]
        ),
        "{}",
        outcome.stderr
    );
}

fn set_in_task_file(repo: &Path, table: &str, line: &str) {
    let path = repo.join("mend.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let header = format!("[{table}]\n");
    assert!(text.contains(&header), "{table}");
    std::fs::write(
        &path,
        text.replacen(&header, &format!("{header}{line}\n"), 1),
    )
    .unwrap();
}

#[test]
fn with_text_calls_off_the_written_call_is_the_final_answer() {
    let (_, text, _) = families().remove(0);
    let repo = sample_copy();
    set_in_task_file(repo.path(), "model", "text_tool_calls = false");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let server = Server::start(script(vec![written(&text)]));
    let outcome = run(&server.base, repo.path(), &record, &[]);
    assert_eq!(
        (
            outcome.code,
            verdict(&outcome),
            of_types(
                &outcome.events(),
                &["recovered_from_text", "tool_start", "tool_result"]
            ),
            read(&record).get("text_tool_calls").cloned(),
        ),
        (
            1,
            Some((json!(false), Value::Null, json!("assistant_finished"))),
            vec![],
            None
        ),
        "{}",
        outcome.stderr
    );
}

#[test]
fn agents_md_goes_after_the_system_prompt_is_shown_recorded_and_replayed() {
    let repo = sample_copy();
    let rules = "Keep changes minimal.\nNever touch the tests.\n";
    std::fs::write(repo.path().join("AGENTS.md"), rules).unwrap();
    let message = "Instructions for this repository, from its AGENTS.md:\n\nKeep changes minimal.\nNever touch the tests.";
    let shown = mend(&["task", "--json", "--repo", repo.path().to_str().unwrap()]);
    let task: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(
        task["instructions"],
        json!({"file": "AGENTS.md", "text": rules})
    );

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let server = Server::start(script(vec![say("Nothing to do.")]));
    let outcome = run(&server.base, repo.path(), &record, &[]);
    assert_eq!(outcome.code, 1, "{}", outcome.stderr);
    let roles: Vec<(Value, Value)> = server.chat_bodies()[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].clone(), m["content"].clone()))
        .collect();
    assert_eq!(roles[1], (json!("system"), json!(message)));
    assert_eq!(
        (roles.len(), &roles[0].0, &roles[2].0),
        (3, &json!("system"), &json!("user"))
    );
    assert_eq!(read(&record)["instructions"], json!(message));

    // The record, not the repository, says what the model was told: replay sends the same.
    std::fs::write(repo.path().join("AGENTS.md"), "Something else.\n").unwrap();
    let replayed = mend(&["replay", "--json", record.to_str().unwrap()]);
    assert_eq!(
        (replayed.code, verdict(&replayed).map(|v| v.1)),
        (1, Some(json!(true))),
        "{}",
        replayed.stderr
    );

    // Off, or another file that is missing: none, or one clear error.
    set_in_task_file(repo.path(), "task", "instructions = false");
    let off: Value = serde_json::from_str(
        &mend(&["task", "--json", "--repo", repo.path().to_str().unwrap()]).stdout,
    )
    .unwrap();
    assert_eq!(off["instructions"], Value::Null);
    let path = repo.path().join("mend.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("instructions = false", "instructions = \"RULES.md\""),
    )
    .unwrap();
    let missing = mend(&["task", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(
        (missing.code, missing.stderr.trim_end()),
        (
            2,
            format!(
                "mend: error: task.instructions names RULES.md, which is not in {}: create it, or set `instructions = false` in [task]",
                repo.path().display()
            )
            .as_str()
        )
    );
}

#[test]
fn a_broken_call_is_repaired_under_the_tools_schema_recorded_and_replayed() {
    let Repair {
        arguments,
        broken,
        server,
        ..
    } = Repair::scripted();
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let outcome = run(&server.base, repo.path(), &record, &[]);
    assert_eq!(ended(&outcome), repaired_live(), "{}", outcome.stderr);
    assert_eq!(
        of_types(&outcome.events(), &["recovered_from_text", "tool_start"]),
        vec![
            json!({"type": "recovered_from_text", "turn": 2, "calls": [
                {"index": 0, "name": "replace_text", "format": "repaired_by_grammar", "text": broken}]}),
            json!({"type": "tool_start", "turn": 2, "index": 0, "call_id": "repair_1_0",
                   "name": "replace_text", "arguments": arguments}),
        ]
    );
    // The repair asked under the schema with thinking off; the next request carries the broken
    // text with the repaired call, and no schema.
    let bodies = server.chat_bodies();
    let names: Vec<Value> = bodies[1]["format"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|branch| branch["properties"]["name"]["enum"][0].clone())
        .collect();
    assert!(names.contains(&json!("replace_text")), "{names:?}");
    assert_eq!(
        (
            &bodies[1]["think"],
            &bodies[2]["messages"][2]["content"],
            &bodies[2]["messages"][2]["tool_calls"][0]["id"],
            bodies[2].get("format")
        ),
        (&json!(false), &json!(broken), &json!("repair_1_0"), None)
    );
    let recorded = read(&record);
    assert_eq!(
        &recorded["messages"][0]["tool_calls"][0]["recovered_from_text"],
        &json!({"format": "repaired_by_grammar", "text": broken})
    );
    let replayed = mend(&["replay", "--json", record.to_str().unwrap()]);
    assert_eq!(
        ended(&replayed),
        repaired_as_recorded(),
        "{}",
        replayed.stderr
    );
}
