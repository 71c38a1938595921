//! The model kept loaded between turns: a 10-turn run through the driver against a loopback
//! Ollama that charges what a real one does — a load after every unload (`keep_alive: 0`), and
//! prompt evaluation of every byte its cache does not hold (the cache goes with the model). The
//! per-turn time of the cold setting ÷ the default's.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mend::attempt::driver::{drive, start, Observer};
use mend::provider::client::{Client, LiveSource};
use mend::provider::host::BaseUrl;
use mend::tools::ToolContext;
use mend_core::{Config, Event};
use serde_json::{json, Value};

use super::server::{Loopback, Request};
use super::synthetic::done_line;
use super::{command, Row, ToolFree};

const TURNS: usize = 10;
/// Loading the model's weights: a 1–4 B model from the page cache takes 0.5–3 s; scaled down
/// with the evaluation below, so that the ratio, not the wall time, is what matters.
const LOAD: Duration = Duration::from_millis(40);
/// Evaluating the prompt, a byte: ~4 bytes a token at ~1 ms a token on a laptop CPU, scaled as
/// the load is.
const PER_BYTE: Duration = Duration::from_micros(4);

/// What the server holds between requests: the model, and the prompt its cache has.
#[derive(Default)]
struct Held {
    loaded: bool,
    cached: Vec<u8>,
}

struct Quiet;

impl Observer for Quiet {
    fn event(&mut self, _: &Event) {}
}

pub fn measure() -> Vec<Row> {
    let cold = per_turn(0);
    let warm = per_turn(mend_core::DEFAULT_KEEP_ALIVE_SECONDS);
    vec![Row {
        figure: format!(
            "per-turn time over a {TURNS}-turn run, keep_alive 0 ÷ the default ({} s), against a server that loads after an unload and evaluates what its cache lacks",
            mend_core::DEFAULT_KEEP_ALIVE_SECONDS
        ),
        measured: format!(
            "{:.1}× ({:.1} ms vs {:.1} ms a turn)",
            cold.as_secs_f64() / warm.as_secs_f64(),
            cold.as_secs_f64() * 1e3,
            warm.as_secs_f64() * 1e3
        ),
        target: "> 1× (the default never reloads)".to_owned(),
        command: command("keep_alive"),
    }]
}

/// The mean time of a turn of a `TURNS`-turn run sent with `keep_alive`.
fn per_turn(keep_alive: u64) -> Duration {
    let held = Arc::new(Mutex::new(Held::default()));
    let server = Loopback::start(|| true, move |request| answer(&request, &held));
    let client = Client::new(BaseUrl::parse(&server.base), Duration::from_secs(30), None);
    let mut source = LiveSource { client: &client };
    let parts = ToolFree::new();
    let tools = ToolContext::new(&parts.root, &parts.task, &parts.runner);
    let config = Config {
        keep_alive,
        max_turns: TURNS as u32,
        ..Config::new(
            "gemma4:e2b",
            &"You repair code. ".repeat(200),
            "Fix it.",
            vec![],
        )
    };
    let started = Instant::now();
    drive(tools, &mut source, &mut Quiet, start(config).unwrap()).unwrap();
    started.elapsed() / TURNS as u32
}

/// Charges the request its load and evaluation, then answers turn `n` with a call (an unknown
/// tool, so that nothing runs; a new path each turn, so that no guard stops it) or, last, text.
fn answer(request: &Request, held: &Mutex<Held>) -> (&'static str, String) {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let prompt = body["messages"].to_string().into_bytes();
    let mut held = held.lock().unwrap();
    let mut cost = Duration::ZERO;
    if !held.loaded {
        cost += LOAD;
    }
    let reused = held
        .cached
        .iter()
        .zip(&prompt)
        .take_while(|(a, b)| a == b)
        .count();
    cost += PER_BYTE * (prompt.len() - reused) as u32;
    std::thread::sleep(cost);
    let keep = body["keep_alive"].as_u64().unwrap_or(300) > 0;
    *held = Held {
        loaded: keep,
        cached: if keep { prompt } else { Vec::new() },
    };
    let turn = body["messages"].as_array().map_or(0, |messages| {
        messages.iter().filter(|m| m["role"] == "assistant").count()
    }) + 1;
    let message = if turn < TURNS {
        json!({"role": "assistant", "content": "",
               "tool_calls": [{"function": {"name": "look", "arguments": {"path": format!("f{turn}.py")}}}]})
    } else {
        json!({"role": "assistant", "content": "Done."})
    };
    let line = json!({"model": "gemma4:e2b", "created_at": "2026-12-05T12:00:00Z", "message": message, "done": false});
    let done = String::from_utf8(done_line()).unwrap_or_default();
    ("application/x-ndjson", format!("{line}\n{done}\n"))
}
