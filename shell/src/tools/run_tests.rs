//! `run_tests`: the task's fixed test command in the workspace, with the tail of its output.

use mend_core::ToolOutcome;
use serde_json::json;

use super::{ToolContext, ToolRun};
use crate::error::MendError;
use crate::truncate::keep_tail;

/// SPEC §3: the end of pytest's output is where the failures and the summary are.
pub const TOOL_OUTPUT_TAIL_CHARS: usize = 4_000;

pub fn run_tests(context: &ToolContext) -> Result<ToolRun, MendError> {
    let test = &context.task.test;
    let finished = context.runner.run(test, context.root, context.watch)?;
    if let Some(cut) = finished.cut {
        return Ok(ToolRun::Cut(cut));
    }
    let value = match finished.status {
        Some(status) => json!({
            "exit_code": status.code(),
            "output": keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS),
        }),
        None => json!({
            "exit_code": null,
            "error": format!(
                "the tests did not finish within {} s and were stopped",
                test.timeout.as_secs()
            ),
            // What ran before the limit: the last test named is the one that hung.
            "output": keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS),
        }),
    };
    Ok(ToolRun::Finished(ToolOutcome::Success { value }))
}

#[cfg(test)]
mod tests {
    use camino::Utf8Path;
    use mend_core::ToolOutcome;
    use serde_json::json;

    use super::run_tests;
    use crate::interrupt::Watch;
    use crate::runner::TestRunner;
    use crate::sandbox::Sandbox;
    use crate::task::Task;
    use crate::tools::{ToolContext, ToolRun};

    #[test]
    fn a_run_stopped_at_the_limit_tells_the_model_the_limit_and_what_ran() {
        let task = Task::parse(
            Utf8Path::new("mend.toml"),
            r#"
[paths]
readable = ["*.py"]
editable = ["*.py"]
[test]
command = ["/bin/sh", "-c", "echo test_import_is_slow; sleep 30"]
timeout_seconds = 1
[tools]
enabled = ["run_tests"]
"#,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let runner = TestRunner::new("/bin/false".into(), Sandbox::Unsandboxed);
        let context = ToolContext {
            root: Utf8Path::from_path(dir.path()).unwrap(),
            task: &task,
            runner: &runner,
            watch: Watch::NONE,
        };
        let Ok(ToolRun::Finished(ToolOutcome::Success { value })) = run_tests(&context) else {
            panic!("run_tests finished with a result")
        };
        assert_eq!(
            value,
            json!({
                "exit_code": null,
                "error": "the tests did not finish within 1 s and were stopped",
                "output": "test_import_is_slow\n",
            })
        );
    }
}
