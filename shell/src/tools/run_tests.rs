//! `run_tests`: the task's fixed test command in the workspace, with the tail of its output.

use serde_json::{json, Value};

use super::{failure, ToolContext, ToolError};
use crate::truncate::keep_tail;

/// The end of pytest's output is where the failures and the summary are.
pub(super) const TOOL_OUTPUT_TAIL_CHARS: usize = 4_000;

/// The test run's exit code and the end of its output; a run stopped at the task's limit is a
/// failed result that says so, with what ran before the limit (the last test named is the one
/// that hung).
pub(super) fn run_tests(context: &ToolContext) -> Result<Value, ToolError> {
    let test = &context.task.test;
    let finished = context.runner.run(test, context.root, context.watch)?;
    if let Some(cut) = finished.cut {
        return Err(ToolError::Cut(cut));
    }
    let output = keep_tail(&finished.output, TOOL_OUTPUT_TAIL_CHARS);
    match finished.status {
        Some(status) => Ok(json!({"exit_code": status.code(), "output": output})),
        None => Err(failure(format!(
            "the tests did not finish within {} s and were stopped; the end of their output:\n{output}",
            test.timeout.as_secs()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use camino::Utf8Path;
    use mend_core::ToolOutcome;
    use serde_json::Map;

    use crate::exec::runner::TestRunner;
    use crate::exec::sandbox::Sandbox;
    use crate::interrupt::Watch;
    use crate::task::Task;
    use crate::tools::{execute, ToolContext, ToolRun};

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
        assert_eq!(
            execute(&context, "run_tests", &Map::new()),
            Ok(ToolRun::Finished(ToolOutcome::Failure {
                message: "the tests did not finish within 1 s and were stopped; the end of their output:\ntest_import_is_slow\n".to_owned()
            }))
        );
    }
}
