//! `mend show` on the command line: the terminal summary, its exit codes, and the timing a live
//! run now records for the page's timeline.

use std::time::Duration;

use crate::common::server::{Ending, Reply, Server};
use crate::common::turns::{say, script, MODEL};
use crate::common::{live_run, mend, repo_root, sample_copy};
use serde_json::{json, Value};

#[test]
fn the_summary_of_the_sample_record_names_turns_calls_stop_verdict_and_time() {
    let outcome = mend(&["show", "fixtures/repair.json"]);
    assert_eq!(
        (
            outcome.code,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (
            0,
            r#"mend run of gemma4:e2b (ollama, digest 5f1a0b7c9d2e) on sample-repo — fixtures/repair.json
Tests before: 1 failed · 3 passed (268 ms)
5 turn(s), 4 call(s): 4 ok, 0 failed, 0 refused
  turn 1: model 579 ms, first byte after 180 ms
    prompt 980 tokens · output 74 · load 35 ms · reading 2390 tokens/s · writing 38.9 tokens/s
    read_file {"path":"path_rules.py"} — ok, 0 ms
  turn 2: model 369 ms, first byte after 180 ms
    prompt 1210 tokens · output 38 · load 35 ms · reading 2951 tokens/s · writing 20.0 tokens/s
    read_file {"path":"tests/test_path_rules.py"} — ok, 0 ms
  turn 3: model 642 ms, first byte after 180 ms
    prompt 1480 tokens · output 96 · load 35 ms · reading 3610 tokens/s · writing 50.5 tokens/s
    replace_text {"old":"        path = PurePosixPath(name)","new":"        path = PurePosixPath(name.replace('\\\\', '/'))"} — ok, 0 ms
  turn 4: model 306 ms, first byte after 180 ms
    prompt 1560 tokens · output 22 · load 35 ms · reading 3805 tokens/s · writing 11.6 tokens/s
    run_tests {} — ok, 260 ms
  turn 5: model 873 ms, first byte after 180 ms
    prompt 1890 tokens · output 52 · load 35 ms · reading 4610 tokens/s · writing 27.4 tokens/s
Stop: assistant_finished
Tests after: 4 passed (227 ms)
Verdict: PASS (the final tests pass, with the tests the run started with)
Time: model 2.8 s · tools 260 ms (run_tests 260 ms) · tests 495 ms · total 3.5 s
"#,
            ""
        )
    );
}

#[test]
fn a_refused_call_is_counted_and_marked() {
    let outcome = mend(&["show", "fixtures/unknown-tool.json"]);
    let marked: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| line.contains("refused") || line.contains("REFUSED"))
        .collect();
    assert_eq!(
        (outcome.code, marked),
        (
            0,
            vec![
                "2 turn(s), 1 call(s): 0 ok, 0 failed, 1 refused",
                "    shell {} — REFUSED, 0 ms"
            ]
        )
    );
}

#[test]
fn what_show_cannot_read_or_write_ends_with_the_reason_and_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"format\": ").unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let unwritable = blocker.join("page.html");
    let record = repo_root().join("fixtures/repair.json");
    let before = std::fs::read(&record).unwrap();
    let cases = [
        (
            vec!["show", "/nonexistent/run.json"],
            "cannot read the record /nonexistent/run.json",
        ),
        (
            vec!["show", garbage.to_str().unwrap()],
            "is not a mend record",
        ),
        (
            vec![
                "show",
                "fixtures/repair.json",
                "--html",
                unwritable.to_str().unwrap(),
            ],
            "cannot write the page",
        ),
    ];
    let seen: Vec<(i32, bool)> = cases
        .iter()
        .map(|(args, message)| {
            let outcome = mend(args);
            (outcome.code, outcome.stderr.contains(message))
        })
        .collect();
    assert_eq!(seen, vec![(4, true), (4, true), (6, true)]);
    assert_eq!(
        std::fs::read(&record).unwrap(),
        before,
        "the record is untouched"
    );
}

#[test]
fn a_live_run_records_when_each_turn_and_call_happened() {
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let line = |message: Value, done: bool| {
        let mut chunk = json!({"model": MODEL, "message": message, "done": done});
        if done {
            chunk["done_reason"] = json!("stop");
        }
        format!("{chunk}\n").into_bytes()
    };
    // Turn 1 thinks for 150 ms before its call; turn 2 answers at once.
    let server = Server::start(script(vec![
        Reply::Stream {
            writes: vec![
                (
                    Duration::ZERO,
                    line(json!({"role": "assistant", "content": "Reading."}), false),
                ),
                (
                    Duration::from_millis(150),
                    line(
                        json!({"role": "assistant", "content": "", "tool_calls": [
                            {"id": "c1", "function": {"name": "run_tests", "arguments": {}}}
                        ]}),
                        true,
                    ),
                ),
            ],
            ending: Ending::Clean,
        },
        say("Done."),
    ]));
    let outcome = live_run(&server.base, repo.path(), &record_path, &[]);
    assert_eq!(outcome.code, 1, "{}{}", outcome.stdout, outcome.stderr);
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    let ms = |value: &Value| {
        value
            .as_u64()
            .unwrap_or_else(|| panic!("no time in {record}"))
    };
    let (one, two, call) = (
        &record["messages"][0]["turns"][0],
        &record["messages"][0]["turns"][1],
        &record["messages"][0]["tool_calls"][0],
    );
    let last_line = ms(&one["lines"][1]["at_ms"]);
    let order = [
        (
            "turn 1 lasts until its last line at least",
            ms(&one["duration_ms"]) >= last_line,
        ),
        (
            "the last line came after the pause (give or take the two clocks)",
            last_line >= 100,
        ),
        (
            "the call starts after turn 1 ended",
            ms(&call["started_ms"]) >= ms(&one["started_ms"]) + ms(&one["duration_ms"]),
        ),
        (
            "turn 2 starts after the call ended",
            ms(&two["started_ms"]) >= ms(&call["started_ms"]) + ms(&call["duration_ms"]),
        ),
        ("turn 2 has a duration", two["duration_ms"].is_u64()),
        (
            "the model's total holds turn 1",
            ms(&record["metrics"]["model_ms"]) >= last_line,
        ),
    ];
    assert_eq!(
        order
            .iter()
            .filter(|(_, holds)| !holds)
            .map(|(what, _)| *what)
            .collect::<Vec<_>>(),
        Vec::<&str>::new(),
        "{record}"
    );
    let shown = mend(&["show", record_path.to_str().unwrap()]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown.stdout.contains("    run_tests {} — ok"),
        "{}",
        shown.stdout
    );
    // A live record names the sandbox its verdict rests on.
    assert_eq!(
        shown.stdout.lines().find(|line| line.starts_with("Verdict:")),
        Some("Verdict: FAIL (for the reasons below; sandbox none: the tests could write outside the copy)"),
    );
    // What the run spent outside the tests and the model, in the record and shown; the figures
    // vary, each a whole number of milliseconds.
    let whole_ms = |line: &str| -> String {
        line.split(' ')
            .map(|word| match word.parse::<u64>() {
                Ok(_) => "N",
                Err(_) => word,
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        (
            ["copy_ms", "sandbox_start_ms", "cleanup_ms"]
                .map(|figure| record["metrics"][figure].is_u64()),
            shown
                .stdout
                .lines()
                .find(|line| line.starts_with("Outside the tests:"))
                .map(whole_ms),
        ),
        (
            [true; 3],
            Some("Outside the tests: copy N ms, sandbox start N ms, cleanup N ms".to_owned())
        )
    );
}
