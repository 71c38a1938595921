//! Replay of the recorded repair: wall time split into the harness's share and pytest's (the
//! `run_tests` calls and the two independent checks).

use std::time::Instant;

use camino::Utf8PathBuf;
use mend::attempt::driver::Observer;
use mend::attempt::render::Render;
use mend::attempt::run_event::RunEvent;
use mend::commands::replay::{replay, ReplayOptions};
use mend::exec::runner::TestRunner;
use mend::exec::sandbox::{Sandbox, SandboxChoice};
use mend::record::metrics::RunMetrics;
use mend::setup::Setup;
use mend_core::Event;

use super::{command, Row};

const REPEATS: usize = 5;

/// Keeps the verdict's metrics, shows nothing.
#[derive(Default)]
struct Quiet(Option<RunMetrics>);

impl Observer for Quiet {
    fn event(&mut self, _event: &Event) {}
}

impl Render for Quiet {
    fn run_event(&mut self, event: &RunEvent) {
        if let RunEvent::Verdict { metrics, .. } = event {
            self.0 = Some(metrics.clone());
        }
    }
}

/// The median wall time of replaying the recorded repair, in ms.
pub fn replay_wall_ms() -> f64 {
    let mut walls: Vec<f64> = replays().into_iter().map(|(_, wall)| wall).collect();
    walls.sort_by(f64::total_cmp);
    walls[REPEATS / 2]
}

/// Each replay's harness share and wall time.
fn replays() -> Vec<(f64, f64)> {
    let root = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let python = std::env::var("MEND_PYTHON")
        .map(Utf8PathBuf::from)
        .unwrap_or_else(|_| root.join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python with pytest at {python} — run `make venv` or use `make bench`"
    );
    let sandbox = Sandbox::resolve(SandboxChoice::Auto).unwrap();
    let repo = root.join("sample-repo");
    let task = mend::task::Task::locate(&repo, None).unwrap();
    let runner = TestRunner::for_task(python, sandbox, &task, &repo, None).unwrap();
    let record = root.join("fixtures/repair.json");
    (0..REPEATS)
        .map(|_| {
            let mut quiet = Quiet::default();
            let started = Instant::now();
            // Reading the record is part of a replay's own cost.
            let options = ReplayOptions {
                record_path: &record,
                record: mend::record::Record::read(&record).unwrap(),
                setup: Setup {
                    repo: &repo,
                    task: &task,
                    runner: &runner,
                    held_out: &[],
                    keep_workspace: false,
                    spares: &mend::setup::spares::Spares::default(),
                },
                bless: false,
            };
            let code = replay(&options, &mut quiet).unwrap();
            let wall_ms = started.elapsed().as_secs_f64() * 1e3;
            assert_eq!(code, 0, "the recorded repair replays and passes");
            let metrics = quiet.0.unwrap();
            let pytest_ms = (metrics.run_tests_ms + metrics.verify_ms) as f64;
            ((wall_ms - pytest_ms) / wall_ms, wall_ms)
        })
        .collect()
}

pub fn measure() -> Vec<Row> {
    let sandbox_name = Sandbox::resolve(SandboxChoice::Auto).unwrap().name();
    let mut shares = replays();
    shares.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (share, wall_ms) = shares[REPEATS / 2];
    vec![Row {
        figure: format!("replay of the recorded repair (sandbox {sandbox_name}): harness share of wall time, median of {REPEATS}"),
        measured: format!("{:.2} % of {:.0} ms (the rest is pytest)", share * 100.0, wall_ms),
        target: "≤ 2 %".to_owned(),
        command: command("replay"),
    }]
}
