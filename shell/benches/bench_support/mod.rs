//! The measurements of the harness benchmark, one module each.

use camino::{Utf8Path, Utf8PathBuf};

pub mod attempt_copies;
pub mod core_throughput;
pub mod driver_share;
pub mod eval_check;
pub mod image_attempts;
pub mod keep_alive;
pub mod latency;
pub mod memory;
pub mod otel_export;
pub mod replay_share;
pub mod request_building;
/// The tests' scripted servers; the benchmarks use part of them.
#[path = "../../tests/common/server.rs"]
#[allow(dead_code)]
pub mod server;
pub mod show_page;
pub mod side_by_side;
pub mod synthetic;
pub mod text_calls;
pub mod verify_per_line;
pub mod verify_share;
pub mod window_cost;
pub mod witness_cost;

/// One line of the BENCHMARKS.md table.
pub struct Row {
    pub figure: String,
    pub measured: String,
    pub target: String,
    pub command: String,
}

/// The Pythons with pytest to measure the witness with: mend's own (`MEND_PYTHON`, else
/// `.venv`), then each venv of the matrix `MEND_BENCH_VENVS` names (`make bench` gives its
/// lines), or, without it, every venv `make pytest-matrix` or `make compat` made.
pub fn pytest_pythons(root: &Utf8Path) -> Vec<Utf8PathBuf> {
    let own = std::env::var("MEND_PYTHON")
        .map(Utf8PathBuf::from)
        .unwrap_or_else(|_| root.join(".venv/bin/python"));
    let mut venvs: Vec<Utf8PathBuf> = match std::env::var("MEND_BENCH_VENVS") {
        Ok(named) => named.split_whitespace().map(Utf8PathBuf::from).collect(),
        Err(_) => std::fs::read_dir(root.join("target/pytest-venvs"))
            .map(|entries| {
                entries
                    .filter_map(|entry| Utf8PathBuf::from_path_buf(entry.ok()?.path()).ok())
                    .collect()
            })
            .unwrap_or_default(),
    };
    venvs.sort();
    let lines = venvs
        .into_iter()
        .map(|venv| venv.join("bin/python"))
        .filter(|python| python.exists());
    std::iter::once(own).chain(lines).collect()
}

pub fn command(name: &str) -> String {
    format!("cargo bench -p mend --bench harness -- {name}")
}

/// What a driver needs besides its model source, for streams that call no tool: the sample's
/// task, a runner that is never started, and an empty workspace (deleted on drop).
pub struct ToolFree {
    pub task: mend::task::Task,
    pub runner: mend::exec::runner::TestRunner,
    pub root: camino::Utf8PathBuf,
    _workspace: tempfile::TempDir,
}

impl ToolFree {
    pub fn new() -> ToolFree {
        let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../sample-repo");
        let workspace = tempfile::tempdir().unwrap();
        ToolFree {
            task: mend::task::Task::locate(camino::Utf8Path::new(sample), None).unwrap(),
            runner: mend::exec::runner::TestRunner::new(
                "python3".into(),
                mend::exec::sandbox::Sandbox::Unsandboxed,
            ),
            root: camino::Utf8PathBuf::from_path_buf(workspace.path().to_path_buf()).unwrap(),
            _workspace: workspace,
        }
    }
}
