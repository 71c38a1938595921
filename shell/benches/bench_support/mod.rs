//! The measurements of the harness benchmark, one module each.

pub mod core_throughput;
pub mod latency;
pub mod memory;
pub mod replay_share;
pub mod request_building;
pub mod synthetic;

/// One line of the BENCHMARKS.md table.
pub struct Row {
    pub figure: String,
    pub measured: String,
    pub target: String,
    pub command: String,
}

pub fn command(name: &str) -> String {
    format!("cargo bench -p mend --bench harness -- {name}")
}
