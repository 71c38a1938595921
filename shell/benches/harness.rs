//! mend's own costs, each measured as a ratio within one run (`make bench` writes the table into
//! BENCHMARKS.md). Usage: `cargo bench -p mend --bench harness [-- NAME...]` where NAME is one of
//! core, driver, requests, window, latency, memory, replay, otel, show, text_calls, verify, copies,
//! eval_check, witness, verify_per_line, keep_alive, images.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark may panic on broken invariants

mod bench_support;

use bench_support::{
    attempt_copies, core_throughput, driver_share, eval_check, image_attempts, keep_alive, latency,
    memory, otel_export, replay_share, request_building, show_page, text_calls, verify_per_line,
    verify_share, window_cost, witness_cost, Row,
};

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
    if run("driver") {
        rows.extend(driver_share::measure());
    }
    if run("requests") {
        rows.extend(request_building::measure());
    }
    if run("window") {
        rows.extend(window_cost::measure());
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
    if run("otel") {
        rows.extend(otel_export::measure());
    }
    if run("show") {
        rows.extend(show_page::measure());
    }
    if run("text_calls") {
        rows.extend(text_calls::measure());
    }
    if run("verify") {
        rows.extend(verify_share::measure());
    }
    if run("copies") {
        rows.extend(attempt_copies::measure());
    }
    if run("eval_check") {
        rows.extend(eval_check::measure());
        rows.push(eval_check::import_row());
    }
    if run("witness") {
        rows.extend(witness_cost::measure());
    }
    if run("verify_per_line") {
        rows.extend(verify_per_line::measure());
    }
    if run("keep_alive") {
        rows.extend(keep_alive::measure());
    }
    if run("images") {
        rows.extend(image_attempts::measure());
    }
    let mut table = String::from("| figure | measured | target | reproduce |\n|---|---|---|---|\n");
    for row in rows {
        table.push_str(&format!(
            "| {} | {} | {} | `{}` |\n",
            row.figure, row.measured, row.target, row.command
        ));
    }
    print!("{table}");
    if let Ok(path) = std::env::var("MEND_BENCH_WRITE") {
        write_into(&path, &table);
    }
}

const START: &str = "<!-- bench:start -->";
const END: &str = "<!-- bench:end -->";

/// Replaces the table between the markers of BENCHMARKS.md, noting the machine it ran on.
fn write_into(path: &str, table: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text
        .split_once(START)
        .expect("BENCHMARKS.md has a start marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("BENCHMARKS.md has an end marker");
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let machine = format!("Measured by `make bench` on a machine with {cores} cores; every figure comes from one run.\n\n");
    std::fs::write(path, format!("{head}{START}\n{machine}{table}{END}{tail}")).unwrap();
}
