//! The driver's path per streamed line (reader thread and channel, spill, recorder, core)
//! against the core's own `Session::handle`, on the same lines of one text turn.

use std::time::{Duration, Instant};

use mend::attempt::driver::{drive, start, Observer};
use mend::clock::SessionClock;
use mend::provider::source::{ModelSource, StreamItem};
use mend::tools::ToolContext;
use mend_core::{ChatRequest, Event, Protocol, StreamLine};

use super::synthetic::{config, time_text_turn, turn, Rng};
use super::{command, Row, ToolFree};

const LINES: usize = 500_000;
const ROUNDS: usize = 3;

struct Lines(Vec<Vec<u8>>);

impl ModelSource for Lines {
    fn open(
        &mut self,
        _turn: u32,
        _body: &ChatRequest,
        _protocol: Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        let lines = std::mem::take(&mut self.0);
        Box::new(
            lines
                .into_iter()
                .map(move |line| StreamItem::Line(StreamLine::new(line, clock.now()))),
        )
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
    let mut core_cpu = Duration::MAX;
    let mut driver_cpu = Duration::MAX;
    // Alternate the two and keep each one's best run: the machine is shared and noisy.
    for _ in 0..ROUNDS {
        let copy = lines.clone();
        let cpu_before = process_cpu();
        core = core.min(core_alone(copy));
        core_cpu = core_cpu.min(process_cpu().saturating_sub(cpu_before));
        let copy = lines.clone();
        let cpu_before = process_cpu();
        driver = driver.min(through_driver(copy));
        driver_cpu = driver_cpu.min(process_cpu().saturating_sub(cpu_before));
    }
    let per_line = |time: Duration| time.as_secs_f64() * 1e6 / LINES as f64;
    vec![Row {
        figure: format!("driver ÷ core per streamed line, one text turn of {LINES} lines"),
        // The reading thread encodes each line for the spill file while the loop handles the
        // one before, so the CPU both threads spent is shown beside the time the run took.
        measured: format!(
            "{:.2}× ({:.2} µs vs {:.2} µs); CPU of both threads {:.2}× ({:.2} µs vs {:.2} µs)",
            driver.as_secs_f64() / core.as_secs_f64(),
            per_line(driver),
            per_line(core),
            driver_cpu.as_secs_f64() / core_cpu.as_secs_f64(),
            per_line(driver_cpu),
            per_line(core_cpu),
        ),
        target: "≤ 2×".to_owned(),
        command: command("driver"),
    }]
}

/// User plus system CPU time of this process, every thread, from `/proc/self/stat` (in the
/// kernel's fixed USER_HZ of 100 ticks a second).
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The command name, in parentheses, may hold spaces: count fields after its closing one.
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

fn core_alone(lines: Vec<Vec<u8>>) -> Duration {
    time_text_turn(config(1), lines)
}

fn through_driver(lines: Vec<Vec<u8>>) -> Duration {
    let free = ToolFree::new();
    let mut source = Lines(lines);
    let mut observer = Discard;
    let bench = ToolContext::new(&free.root, &free.task, &free.runner);
    let started = Instant::now();
    let (transcript, _) =
        drive(bench, &mut source, &mut observer, start(config(1)).unwrap()).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(transcript.turns.len(), 1, "one turn streamed");
    elapsed
}
