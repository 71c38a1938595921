//! `mend verify`: the repository's tests once, on a fresh copy, judged as a run's are: the
//! counts, the failing tests, the end of the output.

use crate::cli::args::{CommonArgs, Recorded, Resolved};
use crate::error::{exit, MendError};
use crate::session::render::{renderer, RunEvent};
use crate::verdict::verify::independent_check;
use crate::workspace::Workspace;

pub fn command(args: &CommonArgs) -> Result<u8, MendError> {
    let Resolved {
        repo, task, runner, ..
    } = args.setup.resolve(Recorded::default())?;
    crate::workspace::survey::warn(&repo, &task)?;
    let workspace = Workspace::copy_of(&repo, &task.exclude)?;
    let mut render = renderer(args.json, false);
    render.run_event(&RunEvent::sandbox(&runner.sandbox));
    let run = independent_check(&runner, &task.test, workspace.root())?;
    render.run_event(&RunEvent::TestsOnly { run: run.clone() });
    if args.setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    Ok(if run.passed() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}
