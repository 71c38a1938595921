//! Streaming latency: a loopback server writes one line at a time; how long until the driver has
//! handed the text event to its observer. Both clocks are the same process's monotonic clock.

use std::time::{Duration, Instant};

use mend::attempt::driver::{drive, start, Observer};
use mend::provider::client::{Client, LiveSource};
use mend::provider::host::BaseUrl;
use mend::tools::ToolContext;
use mend_core::{Config, Event};

use super::server::{Ending, Reply, Script, Server};
use super::synthetic::{done_line, text_line, Rng};
use super::{command, Row, ToolFree};

const LINES: usize = 300;
/// Far apart enough that each line is read on its own, as a model's tokens are.
const PAUSE: Duration = Duration::from_millis(2);

struct Stamps(Vec<Instant>);

impl Observer for Stamps {
    fn event(&mut self, event: &Event) {
        if let Event::TextDelta { .. } = event {
            self.0.push(Instant::now());
        }
    }
}

pub fn measure() -> Vec<Row> {
    let mut rng = Rng::new(3);
    let mut writes: Vec<(Duration, Vec<u8>)> = (0..LINES)
        .map(|_| {
            let mut line = text_line(&mut rng);
            line.push(b'\n');
            (PAUSE, line)
        })
        .collect();
    writes.push((PAUSE, [done_line(), b"\n".to_vec()].concat()));
    let server = Server::start(Script {
        models: vec![("gemma4:e2b", "0")],
        chats: vec![Reply::Stream {
            writes,
            ending: Ending::Clean,
        }],
    });

    let client = Client::new(BaseUrl::parse(&server.base), Duration::from_secs(30), None);
    let mut source = LiveSource { client: &client };
    let parts = ToolFree::new();
    let mut stamps = Stamps(Vec::new());
    let bench = ToolContext::new(&parts.root, &parts.task, &parts.runner);
    let config = Config::new("gemma4:e2b", "system", "task", vec![]);
    drive(bench, &mut source, &mut stamps, start(config).unwrap()).unwrap();

    let written = server.write_times();
    assert_eq!(
        stamps.0.len(),
        LINES,
        "every text line reached the observer"
    );
    let mut latencies: Vec<Duration> = stamps
        .0
        .iter()
        .zip(&written)
        .map(|(seen, sent)| seen.saturating_duration_since(*sent))
        .collect();
    latencies.sort();
    let at = |fraction: f64| latencies[((latencies.len() - 1) as f64 * fraction) as usize];
    vec![Row {
        figure: format!("streaming latency, loopback write → text event ({LINES} lines)"),
        measured: format!(
            "median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
            at(0.5).as_secs_f64() * 1e3,
            at(0.9).as_secs_f64() * 1e3,
            at(1.0).as_secs_f64() * 1e3
        ),
        target: "median ≤ 1 ms".to_owned(),
        command: command("latency"),
    }]
}
