//! Peak memory while a long stream goes through the driver, the core and the recorder: a fresh
//! process per size (this benchmark re-executed), reading its own peak RSS (VmHWM).

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mend::attempt::driver::{drive, start, Observer};
use mend::clock::SessionClock;
use mend::provider::source::{ModelSource, StreamItem};
use mend::tools::ToolContext;
use mend_core::{ChatRequest, Config, Event, StreamLine};

use super::synthetic::{done_line, text_line, Rng};
use super::{command, Row, ToolFree};

const CHILD_ENV: &str = "MEND_BENCH_MEMORY_MB";
const SIZES_MB: [u64; 2] = [10, 100];

/// Streams `bytes` of text chunks, generated as they are read (nothing is held), then `done`.
struct Generated {
    rng: Rng,
    left: u64,
    finished: bool,
    /// Bytes of text the session will have assembled: memory it must keep for the next request.
    text: Arc<AtomicU64>,
    clock: SessionClock,
}

impl Iterator for Generated {
    type Item = StreamItem;

    fn next(&mut self) -> Option<StreamItem> {
        if self.finished {
            return None;
        }
        if self.left == 0 {
            self.finished = true;
            return Some(StreamItem::Line(StreamLine::new(
                done_line(),
                self.clock.now(),
            )));
        }
        let line = text_line(&mut self.rng);
        let chunk: serde_json::Value = serde_json::from_slice(&line).unwrap();
        let text = chunk["message"]["content"].as_str().map_or(0, str::len);
        self.text.fetch_add(text as u64, Ordering::Relaxed);
        self.left = self.left.saturating_sub(line.len() as u64 + 1);
        Some(StreamItem::Line(StreamLine::new(line, self.clock.now())))
    }
}

struct Source {
    bytes: u64,
    text: Arc<AtomicU64>,
}

impl ModelSource for Source {
    fn open(
        &mut self,
        _turn: u32,
        _body: &ChatRequest,
        _protocol: mend_core::Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        let text = Arc::clone(&self.text);
        Box::new(Generated {
            rng: Rng::new(5),
            left: self.bytes,
            finished: false,
            text,
            clock,
        })
    }
}

struct Discard;

impl Observer for Discard {
    fn event(&mut self, _event: &Event) {}
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// In the re-executed child: stream the given size through the driver, report the peak.
pub fn child_mode() -> Option<String> {
    let megabytes: u64 = std::env::var(CHILD_ENV).ok()?.parse().ok()?;
    let parts = ToolFree::new();
    let mut source = Source {
        bytes: megabytes << 20,
        text: Arc::new(AtomicU64::new(0)),
    };
    let bench = ToolContext::new(&parts.root, &parts.task, &parts.runner);
    let config = Config::new("gemma4:e2b", "system", "task", vec![]);
    let (transcript, _) = drive(bench, &mut source, &mut Discard, start(config).unwrap()).unwrap();
    let streamed = transcript.metrics.streamed_bytes;
    // The record is part of the job: it must be written without holding the stream in memory.
    let file = std::fs::File::create(parts.root.join("turns.json")).unwrap();
    serde_json::to_writer(std::io::BufWriter::new(file), &transcript.turns).unwrap();
    Some(format!(
        "{streamed} {} {}",
        peak_rss_kb(),
        source.text.load(Ordering::Relaxed)
    ))
}

struct Peak {
    streamed: u64,
    rss_kb: u64,
    text: u64,
}

impl Peak {
    fn rss_mb(&self) -> f64 {
        self.rss_kb as f64 / 1024.0
    }

    fn text_mb(&self) -> f64 {
        self.text as f64 / (1u64 << 20) as f64
    }

    /// What the harness itself holds: the peak minus the text the conversation must keep.
    fn overhead_mb(&self) -> f64 {
        self.rss_mb() - self.text_mb()
    }
}

fn measure_size(megabytes: u64) -> Peak {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, megabytes.to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    let numbers: Vec<u64> = text
        .split_whitespace()
        .map(|word| word.parse().unwrap())
        .collect();
    Peak {
        streamed: numbers[0],
        rss_kb: numbers[1],
        text: numbers[2],
    }
}

pub fn measure() -> Vec<Row> {
    let results: Vec<Peak> = SIZES_MB.iter().map(|mb| measure_size(*mb)).collect();
    let mut rows: Vec<Row> = results
        .iter()
        .map(|peak| Row {
            figure: format!(
                "peak RSS streaming {:.0} MB through driver, core and recorder",
                peak.streamed as f64 / 1e6
            ),
            measured: format!(
                "{:.1} MB, of which {:.1} MB is the assembled text the next request must carry",
                peak.rss_mb(),
                peak.text_mb()
            ),
            target: "≤ 32 MB".to_owned(),
            command: command("memory"),
        })
        .collect();
    rows.push(Row {
        figure: "peak RSS beyond the assembled text, 100 MB stream ÷ 10 MB stream".to_owned(),
        measured: format!(
            "{:.1} MB ÷ {:.1} MB = {:.2}×",
            results[1].overhead_mb(),
            results[0].overhead_mb(),
            results[1].overhead_mb() / results[0].overhead_mb()
        ),
        target: "flat (≈ 1×)".to_owned(),
        command: command("memory"),
    });
    rows
}
