//! `mend show --html` of a long run: a synthetic record of 1,000 turns (thinking, text, a
//! `run_tests` call with pytest-sized output per turn), read, rendered and written; the median of
//! five, as mend's own time (no browser involved).

use std::time::{Duration, Instant};

use camino::Utf8PathBuf;
use mend::page::{record_page, view::Shown};
use mend::record::Record;
use serde_json::{json, Value};

use super::synthetic::{turn, Rng};
use super::{command, Row};

const TURNS: u64 = 1000;
const LINES_PER_TURN: usize = 40;
const REPEATS: usize = 5;

/// A record in the shape `mend run` writes, timing included.
fn long_record() -> Value {
    let mut rng = Rng::new(11);
    let mut turns = Vec::new();
    let mut calls = Vec::new();
    let mut clock = 0;
    for number in 1..=TURNS {
        let with_call = number < TURNS;
        let lines: Vec<Value> = turn(&mut rng, number, LINES_PER_TURN, with_call)
            .into_iter()
            .enumerate()
            .map(|(at, line)| json!({"at_ms": 200 + 20 * at as u64, "text": String::from_utf8(line).unwrap()}))
            .collect();
        let duration = 200 + 20 * LINES_PER_TURN as u64;
        turns.push(json!({"turn": number, "started_ms": clock, "duration_ms": duration, "lines": lines, "end": {"kind": "session_ended"}}));
        clock += duration;
        if with_call {
            let output = format!(
                "{}\n1 failed, 3 passed in 0.08s\n",
                "E   assert [] == ['src/api/routes.py']\n".repeat(40)
            );
            calls.push(json!({"turn": number, "index": 0, "call_id": format!("call_{number:08}"), "name": "run_tests",
                "arguments": {"verbose": number % 2 == 0}, "status": "ok",
                "result": {"exit_code": 1, "output": output}, "duration_ms": 300, "started_ms": clock}));
            clock += 300;
        }
    }
    let test_run = json!({"exit_code": 1, "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0}, "duration_ms": 300});
    json!({
        "format": "mend-record/1", "provider": "ollama", "model": "gemma4:e2b", "max_turns": TURNS,
        "think": true, "keep_alive": 0,
        "options": {"temperature": 0.0, "seed": 7, "num_ctx": 8192, "num_predict": 2048},
        "system_prompt": "system", "task": "task", "turns": turns, "tool_calls": calls,
        "stop": {"reason": "assistant_finished"},
        "tests_before": test_run, "tests_after": test_run,
        "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
        "source_sha256_before": "bb", "source_sha256_after": "bb", "diff": ""
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

pub fn measure() -> Vec<Row> {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    let record_path = root.join("long.json");
    let page_path = root.join("long.html");
    std::fs::write(&record_path, long_record().to_string()).unwrap();
    let record_bytes = std::fs::metadata(&record_path).unwrap().len();

    let (mut reads, mut renders, mut writes, mut page_bytes) =
        (Vec::new(), Vec::new(), Vec::new(), 0);
    for _ in 0..REPEATS {
        let started = Instant::now();
        let record = Record::read(&record_path).unwrap();
        let read = Instant::now();
        let page = record_page(&Shown::of(&record), record_path.as_str());
        let rendered = Instant::now();
        mend::atomic::write_file(&page_path, |out| out.write_all(page.as_bytes())).unwrap();
        let written = Instant::now();
        reads.push(read - started);
        renders.push(rendered - read);
        writes.push(written - rendered);
        page_bytes = page.len();
        assert!(
            !page.contains("<details class=\"turn\" open>"),
            "a long run starts folded"
        );
    }
    let (read, render, write) = (median(reads), median(renders), median(writes));
    vec![Row {
        figure: format!(
            "`mend show --html` of a {TURNS}-turn record ({:.1} MB → {:.1} MB page, turns folded), median of {REPEATS}",
            record_bytes as f64 / 1e6,
            page_bytes as f64 / 1e6
        ),
        measured: format!(
            "read {:.0} ms + render {:.0} ms + write {:.0} ms = {:.0} ms",
            ms(read),
            ms(render),
            ms(write),
            ms(read + render + write)
        ),
        target: "≤ 1 s".to_owned(),
        command: command("show"),
    }]
}
