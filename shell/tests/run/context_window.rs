//! `mend run` against a loopback Ollama at the edge of its context window: one that drops the
//! front of an oversized prompt, reports the smaller count and answers off-task. A run must end
//! `context_exceeded` or fit by shortening older results, never go on unaware; every request of
//! a run carries the same `num_ctx`, learned from `/api/show` when nothing sets it.

use std::path::Path;

use crate::common;
use crate::common::server::{Edge, Script, Server, OFF_TASK};
use crate::common::turns::{call, say, DIGEST, MODEL};
use crate::common::{mend, python, tree_digest};
use serde_json::{json, Value};

/// A small Python project whose four modules are 4 kB each: a few reads fill a small window.
fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    for name in ["ledger", "invoice", "tax", "export"] {
        let mut text = format!("\"\"\"The {name} rules of the billing service.\"\"\"\n\n");
        for number in 0..48 {
            text.push_str(&format!(
                "def {name}_rule_{number}(amount):\n    return round(amount * {number} / 100, 2)\n\n"
            ));
        }
        std::fs::write(dir.join(format!("src/{name}.py")), text).unwrap();
    }
    std::fs::write(
        dir.join("tests/test_ledger.py"),
        "from src.ledger import ledger_rule_2\n\n\ndef test_rule():\n    assert ledger_rule_2(50) == 1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("mend.toml"),
        r#"[task]
prompt = "The ledger rounding is off by a cent for negative amounts; find the rule and fix it."

[paths]
readable = ["src/*.py", "tests/*.py"]
editable = ["src/*.py"]

[test]
command = ["python", "-m", "pytest", "-q"]
timeout_seconds = 30
files = ["tests/*.py"]

[tools]
enabled = ["read_file", "replace_text", "run_tests"]
"#,
    )
    .unwrap();
}

fn read(turn: u32, name: &str) -> common::server::Reply {
    call(
        &format!("call_{turn}"),
        "read_file",
        json!({"path": format!("src/{name}.py")}),
    )
}

struct Ran {
    events: Vec<Value>,
    code: i32,
    bodies: Vec<Value>,
    record: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn run(edge: Edge, chats: Vec<common::server::Reply>, extra: &[&str]) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("billing");
    project(&repo);
    let before = tree_digest(&repo);
    let server = Server::start_at_edge(
        Script {
            models: vec![(MODEL, DIGEST)],
            chats,
        },
        Some(edge),
    );
    let record = dir.path().join("run.json");
    let python = python();
    let mut args = vec![
        "run",
        "--repo",
        repo.to_str().unwrap(),
        "--python",
        python.to_str().unwrap(),
        "--sandbox",
        "none",
        "--json",
        "--host",
        &server.base,
        "--record",
        record.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let outcome = mend(&args);
    assert_eq!(tree_digest(&repo), before, "the original changed");
    let events = outcome.events();
    Ran {
        events,
        code: outcome.code,
        bodies: server.chat_bodies(),
        record,
        _dir: dir,
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

fn num_ctx(bodies: &[Value]) -> Vec<Value> {
    bodies
        .iter()
        .map(|body| body["options"]["num_ctx"].clone())
        .collect()
}

#[test]
fn a_server_that_drops_the_front_of_the_prompt_ends_the_run_context_exceeded() {
    // mend is told the window is 2048; the server really holds 1100 tokens and cuts to fit. A
    // count that low is read as a cut only when it is more than half the window mend assumed:
    // far below that it reads as a count of the new tokens alone (a prompt cache), a note.
    let ran = run(
        Edge {
            context_length: 131_072,
            window: 1100,
        },
        vec![read(1, "ledger"), read(2, "invoice"), say("done")],
        &["--num-ctx", "2048"],
    );
    let stopped = of_type(&ran.events, "stopped");
    assert_eq!(stopped.len(), 1, "{:?}", ran.events);
    let detail = stopped[0]["detail"]
        .as_str()
        .unwrap_or_else(|| panic!("{:?}", ran.events));
    assert_eq!(stopped[0]["reason"], "context_exceeded", "{detail}");
    assert!(
        detail.contains("dropped the front of the prompt")
            && detail.contains("mend assumed a window of 2048 tokens"),
        "{detail}"
    );
    // The off-task turn was seen and stopped on: its text streamed, nothing more was asked.
    let texts: Vec<&Value> = of_type(&ran.events, "text_delta")
        .into_iter()
        .map(|event| &event["text"])
        .collect();
    assert_eq!(texts, vec![&json!(OFF_TASK)]);
    // Requests run until one no longer fits the window the server really holds: that one is
    // the last (here the third, which carries both reads).
    assert_eq!(
        (
            of_type(&ran.events, "tool_start").len(),
            num_ctx(&ran.bodies)
        ),
        (2, vec![json!(2048), json!(2048), json!(2048)])
    );
    assert_eq!(
        ran.code, 5,
        "a window the server does not hold is the server's failure"
    );
    let replayed = mend(&["replay", ran.record.to_str().unwrap(), "--json"]);
    let verdict = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .unwrap();
    assert_eq!(
        (&verdict["replay_matched"], &verdict["stop_reason"]),
        (&json!(true), &json!("context_exceeded")),
        "{}",
        replayed.stderr
    );
}

#[test]
fn a_run_in_a_small_window_shortens_older_results_and_the_server_never_cuts() {
    // Nothing sets num_ctx: the model's own 4096 (from /api/show) is under mend's default.
    let ran = run(
        Edge {
            context_length: 4096,
            window: 4096,
        },
        vec![
            read(1, "ledger"),
            read(2, "invoice"),
            read(3, "tax"),
            read(4, "export"),
            say("The rules read fine; nothing to change."),
        ],
        &[],
    );
    // The first request's estimate, announced before it is sent, is the one its turn reports.
    let first = of_type(&ran.events, "turn_usage")[0]["usage"]["estimated_prompt_tokens"].clone();
    assert_eq!(
        of_type(&ran.events, "context_window"),
        vec![
            &json!({"type": "context_window", "tokens": 4096, "why": "the model's own length, under mend's default of 16384", "model_length": 4096, "first_request_tokens": first})
        ]
    );
    let stopped = of_type(&ran.events, "stopped");
    assert_eq!(
        stopped[0]["reason"], "assistant_finished",
        "{:?}",
        ran.events
    );
    assert!(of_type(&ran.events, "text_delta")
        .iter()
        .all(|event| event["text"] != OFF_TASK));
    assert_eq!(num_ctx(&ran.bodies), vec![json!(4096); 5]);
    // Each 4 kB result was capped on arrival to a quarter of the window; from the fourth
    // request on, the oldest were shortened further, never the last two turns.
    let trims: Vec<(Value, Value, Value)> = of_type(&ran.events, "context_trimmed")
        .into_iter()
        .map(|event| {
            (
                event["turn"].clone(),
                event["message"].clone(),
                event["reason"].clone(),
            )
        })
        .collect();
    assert_eq!(
        trims,
        vec![
            (json!(1), json!(3), json!("capped")),
            (json!(2), json!(5), json!("capped")),
            (json!(3), json!(7), json!("capped")),
            (json!(4), json!(3), json!("window")),
            (json!(4), json!(9), json!("capped")),
            (json!(5), json!(5), json!("window")),
        ]
    );
    let fourth = ran.bodies[3]["messages"][3]["content"].as_str().unwrap();
    assert!(
        fourth.contains("bytes cut here by mend to fit the context window"),
        "{fourth}"
    );
    // Every turn's accounting, next to the server's own count.
    let usage: Vec<(Value, bool)> = of_type(&ran.events, "turn_usage")
        .into_iter()
        .map(|event| {
            (
                event["turn"].clone(),
                event["usage"]["estimated_prompt_tokens"].as_u64().unwrap()
                    >= event["usage"]["prompt_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        usage,
        (1..=5).map(|turn| (json!(turn), true)).collect::<Vec<_>>()
    );
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&ran.record).unwrap()).unwrap();
    assert_eq!(
        (&record["window"], &record["model_length"]),
        (&json!({"tokens": 4096, "trim_percent": 75}), &json!(4096))
    );
    let replayed = mend(&["replay", ran.record.to_str().unwrap(), "--json"]);
    assert_eq!(replayed.code, 0, "{}{}", replayed.stdout, replayed.stderr);
}
