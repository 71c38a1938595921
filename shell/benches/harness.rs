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
    let lines: Vec<String> = rows
        .iter()
        .map(|row| {
            format!(
                "| {} | {} | {} | `{}` |",
                row.figure, row.measured, row.target, row.command
            )
        })
        .collect();
    for line in &lines {
        println!("{line}");
    }
    if let Ok(path) = std::env::var("MEND_BENCH_WRITE") {
        write_into(&path, &lines);
    }
}

const START: &str = "<!-- bench:start -->";
const END: &str = "<!-- bench:end -->";
const HEADER: &str = "| figure | measured | target | reproduce |\n|---|---|---|---|\n";

/// Puts `measured` into the table between the markers of BENCHMARKS.md, noting the machine it
/// ran on: each measured bench's rows (those with its `reproduce` command) take the place of the
/// rows it wrote last time, and the rows of benches not run this time are kept, so a bench run
/// alone (`cargo bench … -- eval_check`) updates its own rows only.
fn write_into(path: &str, measured: &[String]) {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text
        .split_once(START)
        .expect("BENCHMARKS.md has a start marker");
    let (old, tail) = rest
        .split_once(END)
        .expect("BENCHMARKS.md has an end marker");
    let command_of = |line: &str| {
        line.trim_end()
            .rsplit('|')
            .nth(1)
            .map(str::trim)
            .map(str::to_owned)
    };
    let run: Vec<Option<String>> = measured.iter().map(|line| command_of(line)).collect();
    let mut table: Vec<String> = Vec::new();
    let mut placed = false;
    for line in old
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| figure"))
    {
        if run.contains(&command_of(line)) {
            if !placed {
                table.extend(measured.iter().cloned());
                placed = true;
            }
        } else {
            table.push(line.to_owned());
        }
    }
    if !placed {
        table.extend(measured.iter().cloned());
    }
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let machine = format!("Measured by `make bench` on a machine with {cores} cores; each figure comes from one run of its bench.\n\n");
    let rows: String = table.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(
        path,
        format!("{head}{START}\n{machine}{HEADER}{rows}{END}{tail}"),
    )
    .unwrap();
}
