//! mend's own costs, each measured as a ratio within one run (`make bench` writes the table into
//! BENCHMARKS.md). Usage: `cargo bench -p mend --bench harness [-- NAME...]` where NAME is one of
//! core, requests, latency, memory, replay.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark may panic on broken invariants

mod bench_support;

use bench_support::{core_throughput, latency, memory, replay_share, request_building, Row};

fn main() {
    // A re-executed copy of this binary measures memory in a fresh process.
    if let Some(result) = memory::child_mode() {
        println!("{result}");
        return;
    }
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    let mut rows: Vec<Row> = Vec::new();
    if run("core") {
        rows.extend(core_throughput::measure());
    }
    if run("requests") {
        rows.extend(request_building::measure());
    }
    if run("latency") {
        rows.extend(latency::measure());
    }
    if run("memory") {
        rows.extend(memory::measure());
    }
    if run("replay") {
        rows.extend(replay_share::measure());
    }
    println!("| figure | measured | target | reproduce |");
    println!("|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {} | {} | `{}` |",
            row.figure, row.measured, row.target, row.command
        );
    }
}
