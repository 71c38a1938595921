//! The driver's path per streamed line (reader thread and channel, spill, recorder, core)
//! against the core's own `Session::handle`, on the same lines of one text turn.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mend::session::driver::{Driver, ModelSource, Observer, StreamItem};
use mend_core::{ChatRequest, Codec, Event, Input, Millis, Session};

use super::synthetic::{config, turn, Rng};
use super::{command, Row, ToolFree};

const LINES: usize = 200_000;
const ROUNDS: usize = 3;

struct Lines(Vec<Vec<u8>>);

impl ModelSource for Lines {
    fn open(
        &mut self,
        _turn: u32,
        _body: &ChatRequest,
        _codec: Codec,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        let lines = std::mem::take(&mut self.0);
        Box::new(lines.into_iter().map(StreamItem::Line))
    }
}

struct Discard;

impl Observer for Discard {
    fn event(&mut self, _event: &Event) {}
}

pub fn measure() -> Vec<Row> {
    let lines = turn(&mut Rng::new(11), 0, LINES, false);
    let mut core = Duration::MAX;
    let mut driver = Duration::MAX;
    // Alternate the two and keep each one's best run: the machine is shared and noisy.
    for _ in 0..ROUNDS {
        core = core.min(core_alone(lines.clone()));
        driver = driver.min(through_driver(lines.clone()));
    }
    let per_line = |time: Duration| time.as_secs_f64() * 1e6 / LINES as f64;
    vec![Row {
        figure: format!("driver ÷ core per streamed line, one text turn of {LINES} lines"),
        measured: format!(
            "{:.2}× ({:.2} µs vs {:.2} µs)",
            driver.as_secs_f64() / core.as_secs_f64(),
            per_line(driver),
            per_line(core)
        ),
        target: "≤ 2×".to_owned(),
        command: command("driver"),
    }]
}

fn core_alone(lines: Vec<Vec<u8>>) -> Duration {
    let started = Instant::now();
    let (mut session, _) = Session::new(config(1)).unwrap();
    for line in lines {
        black_box(session.handle(Millis(0), Input::StreamLine { line }));
    }
    let elapsed = started.elapsed();
    assert!(
        session.stopped().is_some(),
        "the text turn ends the session"
    );
    elapsed
}

fn through_driver(lines: Vec<Vec<u8>>) -> Duration {
    let free = ToolFree::new();
    let mut source = Lines(lines);
    let mut observer = Discard;
    let mut driver = Driver {
        source: &mut source,
        root: &free.root,
        task: &free.task,
        runner: &free.runner,
        observer: &mut observer,
    };
    let started = Instant::now();
    let transcript = driver.run(config(1)).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(transcript.turns.len(), 1, "one turn streamed");
    elapsed
}
