//! What sending a run's OpenTelemetry trace costs, against the replay of the recorded repair:
//! the trace built from the record, encoded, handed to the sender thread and delivered to a
//! collector on 127.0.0.1 that answers at once — all of which `mend run --otel` adds. With
//! telemetry off none of it runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Instant, SystemTime};

use camino::Utf8PathBuf;
use mend::record::Record;
use mend::telemetry::sender::Sender;
use mend::telemetry::trace::{export_request, Timing};

use super::{command, replay_share, Row};

const REPEATS: usize = 9;

/// A collector that answers every request with 200, for as long as the bench runs.
fn collector() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(REPEATS * 2) {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        }
    });
    url
}

pub fn measure() -> Vec<Row> {
    let root = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let record = Record::read(&root.join("fixtures/repair.json")).unwrap();
    let replay_ms = replay_share::replay_wall_ms();
    let url = collector();
    let mut costs: Vec<f64> = (0..REPEATS)
        .map(|_| {
            let started = Instant::now();
            let now = SystemTime::now();
            let timing = Timing {
                run_start: now,
                loop_start: now,
                run_end: now,
            };
            let request = export_request(&record, &timing, true);
            let mut sender = Sender::start(&url);
            sender.send(prost::Message::encode_to_vec(&request));
            sender.finish();
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    costs.sort_by(f64::total_cmp);
    let cost_ms = costs[REPEATS / 2];
    vec![Row {
        figure: format!("OpenTelemetry export of the recorded repair's trace (content included, delivered to a loopback collector) against its replay, median of {REPEATS}"),
        measured: format!("{:.2} % ({cost_ms:.2} ms of {replay_ms:.0} ms)", cost_ms / replay_ms * 100.0),
        target: "< 1 %".to_owned(),
        command: command("otel"),
    }]
}
