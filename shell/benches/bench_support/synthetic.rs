//! Synthetic Ollama streams shaped like real ones: 1–8 token text and thinking deltas with the
//! full per-chunk envelope, whole tool calls, and done chunks with metrics.

use mend_core::{Config, JsonType, ToolSpec};
use serde_json::json;

/// A small deterministic generator (xorshift): the same stream on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: [&str; 12] = [
    " the", " path", " test", "s", " back", "slash", " é", " fix", "(", ")", "\n", " run",
];

fn tokens(rng: &mut Rng) -> String {
    let count = 1 + rng.below(8);
    (0..count)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect()
}

fn envelope(message: serde_json::Value, done: bool) -> serde_json::Value {
    json!({"model": "gemma4:e2b", "created_at": "2026-11-30T09:00:00.123456789Z", "message": message, "done": done})
}

pub fn text_line(rng: &mut Rng) -> Vec<u8> {
    envelope(json!({"role": "assistant", "content": tokens(rng)}), false)
        .to_string()
        .into_bytes()
}

pub fn thinking_line(rng: &mut Rng) -> Vec<u8> {
    envelope(
        json!({"role": "assistant", "content": "", "thinking": tokens(rng)}),
        false,
    )
    .to_string()
    .into_bytes()
}

/// A whole `run_tests` call. Its argument alternates from turn to turn: the core's repetition
/// guard refuses a third identical call in a row, and a benchmark must stay in the loop.
pub fn tool_call_line(turn: u64) -> Vec<u8> {
    let arguments = json!({"verbose": turn % 2 == 0});
    let call = json!({"id": format!("call_{turn:08}"), "function": {"index": 0, "name": "run_tests", "arguments": arguments}});
    envelope(
        json!({"role": "assistant", "content": "", "tool_calls": [call]}),
        false,
    )
    .to_string()
    .into_bytes()
}

pub fn done_line() -> Vec<u8> {
    let mut done = envelope(json!({"role": "assistant", "content": ""}), true);
    done["done_reason"] = json!("stop");
    done["total_duration"] = json!(2_400_000_000u64);
    done["prompt_eval_count"] = json!(900);
    done["eval_count"] = json!(60);
    done.to_string().into_bytes()
}

/// One turn: thinking, then text, then (unless it is the last) a tool call, then done.
pub fn turn(rng: &mut Rng, turn: u64, lines: usize, with_call: bool) -> Vec<Vec<u8>> {
    let thinking = lines / 4;
    let text = lines - thinking - 1 - usize::from(with_call);
    let mut out: Vec<Vec<u8>> = (0..thinking).map(|_| thinking_line(rng)).collect();
    out.extend((0..text).map(|_| text_line(rng)));
    if with_call {
        out.push(tool_call_line(turn));
    }
    out.push(done_line());
    out
}

/// A session config offering the one tool the synthetic calls use.
pub fn config(max_turns: u32) -> Config {
    let tools = vec![ToolSpec::function(
        "run_tests",
        "Run the tests",
        &[("verbose", JsonType::Boolean, "more output")],
        &[],
    )];
    Config {
        max_turns,
        ..Config::new("gemma4:e2b", "system", "task", tools)
    }
}

/// A session config offering mend's own seven tools (their names and keys), as a run does: what
/// the repair decision looks for in a turn's text.
pub fn config_with_mend_tools(max_turns: u32) -> Config {
    let tool = |name: &str, keys: &[&str]| {
        let keys: Vec<(&str, JsonType, &str)> = keys
            .iter()
            .map(|key| (*key, JsonType::String, "a key"))
            .collect();
        ToolSpec::function(name, "a tool", &keys, &[])
    };
    let tools = vec![
        tool("list_files", &["pattern"]),
        tool("grep", &["pattern", "path"]),
        tool("read_file", &["path"]),
        tool("write_file", &["path", "text"]),
        tool("replace_text", &["path", "old", "new"]),
        tool("run_tests", &[]),
        tool("shell", &["command"]),
    ];
    Config {
        max_turns,
        ..Config::new("gemma4:e2b", "system", "task", tools)
    }
}

/// `handle` and the actions it queued, taken at once: what the benches count and time.
pub trait Step {
    fn step(&mut self, now: mend_core::Millis, input: mend_core::Input) -> Vec<mend_core::Action>;
}

impl Step for mend_core::Session {
    fn step(&mut self, now: mend_core::Millis, input: mend_core::Input) -> Vec<mend_core::Action> {
        self.handle(now, input);
        self.drain_actions().collect()
    }
}

/// A generated line as the reader hands it to the session (arrived at 0).
pub fn arrived(line: Vec<u8>) -> mend_core::Input {
    mend_core::Input::StreamLine(mend_core::StreamLine::new(line, mend_core::Millis(0)))
}

/// A new session and its first actions, taken.
pub fn opened(config: mend_core::Config) -> (mend_core::Session, Vec<mend_core::Action>) {
    let mut session = mend_core::Session::new(config).unwrap();
    let first = session.drain_actions().collect();
    (session, first)
}

/// The core alone through one text turn of `lines` under `config`: the time from opening the
/// session to its stop (the lines are owned before the clock starts).
pub fn time_text_turn(config: mend_core::Config, lines: Vec<Vec<u8>>) -> std::time::Duration {
    let started = std::time::Instant::now();
    let (mut session, _) = opened(config);
    for line in lines {
        std::hint::black_box(session.step(mend_core::Millis(0), arrived(line)));
    }
    let elapsed = started.elapsed();
    assert!(
        session.stopped().is_some(),
        "the text turn ends the session"
    );
    elapsed
}
