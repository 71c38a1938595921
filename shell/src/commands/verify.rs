//! `mend verify`: the repository's tests once, on a fresh copy, judged as a run's are: the
//! counts, the failing tests, the end of the output.

use std::time::{Duration, Instant};

use crate::attempt::render::renderer;
use crate::attempt::run_event::RunEvent;
use crate::cli::args::CommonArgs;
use crate::error::{exit, MendError};
use crate::setup::{Recorded, Resolved};
use crate::verdict::verify::independent_check;
use crate::workspace::Workspace;

pub fn command(args: &CommonArgs) -> Result<u8, MendError> {
    let started = Instant::now();
    let Resolved {
        repo, task, runner, ..
    } = args.setup.resolve(Recorded::default())?;
    crate::workspace::survey::warn(&repo, &task)?;
    // The sandbox's probe is its own figure.
    let setup = started.elapsed().saturating_sub(runner.sandbox_start);
    let workspace = Workspace::copy_of(&repo, &task.exclude)?;
    let mut render = renderer(args.json, false);
    render.run_event(&RunEvent::sandbox(&runner.sandbox));
    let started = Instant::now();
    let run = independent_check(&runner, &task.test, workspace.root())?;
    let tests = started.elapsed();
    render.run_event(&RunEvent::TestsOnly { run: run.clone() });
    let copy = workspace.copy_time();
    let cleanup = if args.setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
        None
    } else {
        let root = workspace.root().to_owned();
        Some(workspace.remove().map_err(|err| {
            MendError::harness(format!("cannot delete the temporary copy {root}: {err}"))
        })?)
    };
    let ms = |time: Duration| u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    render.run_event(&RunEvent::Costs {
        setup_ms: ms(setup),
        copy_ms: ms(copy),
        sandbox_start_ms: ms(runner.sandbox_start),
        tests_ms: ms(tests),
        cleanup_ms: cleanup.map(ms),
    });
    Ok(if run.passed() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}
