//! Running `mend run` and `mend resume` against the loopback server, and reading what they
//! recorded and what they said.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::server::{Reply, Server};
use crate::common::turns::{call, script};
use crate::common::{live_run, mend, sample_copy, Outcome};

pub fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the record is written")).unwrap()
}

/// `mend run --json` against `base` (see `live_run`).
pub fn run(base: &str, repo: &Path, record: &Path, extra: &[&str]) -> Outcome {
    live_run(base, repo, record, &[&["--json"], extra].concat())
}

/// `mend resume` of `record` against `base`, writing `out`; the repository is the record's.
pub fn resume(base: &str, record: &Path, out: &Path, extra: &[&str]) -> Outcome {
    let mut args = vec![
        "resume",
        record.to_str().unwrap(),
        "--json",
        "--host",
        base,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    mend(&args)
}

/// A copy of the sample project, a temporary folder, and in it the paths of a run's record
/// (`first.json`) and of its resumption (`second.json`), neither written yet.
pub fn records() -> (tempfile::TempDir, tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (
        dir.path().join("first.json"),
        dir.path().join("second.json"),
    );
    (sample_copy(), dir, first, second)
}

/// The one turn of a run cut by its turn budget: a call `c1` reading `path_rules.py`.
pub fn read_rules() -> Reply {
    call("c1", "read_file", json!({"path": "path_rules.py"}))
}

/// `mend run` of `repo` into `record` against a server whose one turn is [`read_rules`], cut
/// by `--max-turns 1`: the server (for what it was sent) and the outcome.
pub fn cut_by_max_turns(repo: &Path, record: &Path) -> (Server, Outcome) {
    let server = Server::start(script(vec![read_rules()]));
    let cut = run(&server.base, repo, record, &["--max-turns", "1"]);
    (server, cut)
}

/// `mend replay --json` of `record` ends at 0 with nothing on stderr: it matched.
pub fn replays_cleanly(record: &Path) {
    let replayed = mend(&["replay", "--json", record.to_str().unwrap()]);
    assert_eq!(
        (replayed.code, replayed.stderr.as_str()),
        (0, ""),
        "{}",
        replayed.stdout
    );
}

/// How a run, replay or resume ended: its exit code and its verdict's `tests_pass`,
/// `replay_matched` and `stop_reason` (`None` without a verdict).
pub type Ended = (i32, Option<(Value, Value, Value)>);

pub fn ended(outcome: &Outcome) -> Ended {
    (outcome.code, verdict(outcome))
}

/// The end of a replay (or of a resume, which replays first) that matched its record and whose
/// model repaired the sample.
pub fn repaired_as_recorded() -> Ended {
    (
        0,
        Some((json!(true), json!(true), json!("assistant_finished"))),
    )
}

/// The end of a live run (no record to match) whose model repaired the sample.
pub fn repaired_live() -> Ended {
    (
        0,
        Some((json!(true), Value::Null, json!("assistant_finished"))),
    )
}

pub fn verdict(outcome: &Outcome) -> Option<(Value, Value, Value)> {
    outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .map(|event| {
            (
                event["tests_pass"].clone(),
                event["replay_matched"].clone(),
                event["stop_reason"].clone(),
            )
        })
}

/// A message as the test can know it in advance: what was said, its budget, each turn's lines
/// and end, each call's name, arguments and status, and the stop (timings left out).
pub fn shape(message: &Value) -> Value {
    let turns: Vec<Value> = message["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| {
            let lines: Vec<Value> = turn["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|line| line["text"].clone())
                .collect();
            json!({"turn": turn["turn"], "lines": lines, "end": turn["end"]})
        })
        .collect();
    let calls: Vec<Value> = message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            json!({"turn": call["turn"], "name": call["name"], "arguments": call["arguments"],
                   "status": call["status"]})
        })
        .collect();
    json!({"text": message["text"], "max_turns": message["max_turns"], "turns": turns,
           "tool_calls": calls, "stop": message["stop"]["reason"]})
}

/// The one line of a scripted reply, as the record keeps it.
pub fn line_of(reply: &Reply) -> Value {
    match reply {
        Reply::Stream { writes, .. } => {
            json!(String::from_utf8(writes[0].1.clone()).unwrap().trim_end())
        }
        Reply::Status { .. } => Value::Null,
    }
}

/// (role, tool_name, tool_call_id) of each message of a request body.
pub fn rows(body: &Value) -> Vec<(String, Value, Value)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["tool_name"].clone(),
                m["tool_call_id"].clone(),
            )
        })
        .collect()
}

pub fn row(role: &str, tool: Option<(&str, &str)>) -> (String, Value, Value) {
    match tool {
        Some((name, id)) => (role.to_owned(), json!(name), json!(id)),
        None => (role.to_owned(), Value::Null, Value::Null),
    }
}
