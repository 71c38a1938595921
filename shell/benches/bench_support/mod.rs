//! The measurements of the harness benchmark, one module each.

pub mod attempt_copies;
pub mod core_throughput;
pub mod driver_share;
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
pub mod synthetic;
pub mod text_calls;
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
