//! The two tools of `mend mcp`: `verify` and `task`. A failure the caller can fix (no such
//! repository, a patch that does not apply) is the tool's error result, named with the fix, as
//! MCP asks: the conversation goes on.

use camino::Utf8PathBuf;
use serde_json::{json, Map, Value};

use crate::attempt::driver::Observer;
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::commands::verify::{verify, Verified};
use crate::error::MendError;
use crate::exec::sandbox::SandboxChoice;
use crate::setup::RepoChoice;
use crate::task::Task;

pub(crate) fn list() -> Value {
    let repo = json!({"type": "string", "description": "The repository's folder (absolute, or relative to where the server runs); its mend.toml says how its tests run."});
    let task_file =
        json!({"type": "string", "description": "The task file, if not REPO/mend.toml."});
    json!([
        {
            "name": "verify",
            "title": "Verify a change with the repository's own tests",
            "description": "Runs the repository's tests once on a throwaway copy — with `patch` (a unified diff, as `git diff` prints) applied, or the repository as it is — inside mend's sandbox, and returns mend's verdict: its counts, the failing tests, the end of the output (each test's outcome by id with `detail: \"tests\"`), why a run cannot be trusted, and warnings; a task's held-out tests (`test.held_out`, `test.patch`) are put back after the change and its given tests graded (`given`), as in a run's final tests; on such a task it answers only whether the change resolves it and how many tests passed (`withheld` says why: no held-out id, source or output). The repository is never written. The same run as `mend verify`.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "repo": repo,
                    "patch": {"type": "string", "description": "A unified diff with `--- a/FILE` / `+++ b/FILE` headers, applied to the copy; omit it to verify the current change."},
                    "task_file": task_file,
                    "python": {"type": "string", "description": "The interpreter with pytest, if not the repository's venv."},
                    "sandbox": {"type": "string", "enum": ["auto", "bwrap", "none"], "description": "Where the tests run (default auto)."},
                    "detail": {"type": "string", "enum": ["summary", "tests"], "description": "summary (the default): counts, the failing tests (the first 50) and the end of the output; tests: also each test's outcome by id (the first 5000)."}
                },
                "required": ["repo"]
            }
        },
        {
            "name": "task",
            "title": "What a repository's task allows",
            "description": "The repository's mend task: the files a change may read and edit, the test files the verdict rests on, the test command, the tools and prompts.",
            "inputSchema": {
                "type": "object",
                "properties": {"repo": repo, "task_file": task_file},
                "required": ["repo"]
            }
        }
    ])
}

/// The result of calling tool `name`; `None` when mend has no such tool.
pub(crate) fn call(name: &str, arguments: &Map<String, Value>) -> Option<Value> {
    let outcome = match name {
        "verify" => call_verify(arguments),
        "task" => call_task(arguments),
        _ => return None,
    };
    Some(match outcome {
        Ok(structured) => json!({
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured,
            "isError": false,
        }),
        Err(error) => json!({
            "content": [{"type": "text", "text": error.to_string()}],
            "isError": true,
        }),
    })
}

/// Why a tool call gave no result: its arguments (the client's to fix), or the command it ran,
/// whose error is said in MCP's words.
#[derive(Debug)]
enum CallError {
    /// An argument missing, of the wrong type, or with a value the tool does not take.
    Arguments(String),
    /// The command failed as it would on the command line.
    Failed(MendError),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Arguments(why) => f.write_str(why),
            CallError::Failed(error) => f.write_str(&failed(error)),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Failed(error) => Some(error),
            CallError::Arguments(_) => None,
        }
    }
}

impl From<MendError> for CallError {
    fn from(error: MendError) -> CallError {
        CallError::Failed(error)
    }
}

fn text(arguments: &Map<String, Value>, key: &str) -> Result<Option<String>, CallError> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(CallError::Arguments(format!("`{key}` must be a string"))),
    }
}

fn repo_args(arguments: &Map<String, Value>) -> Result<RepoChoice, CallError> {
    let repo = text(arguments, "repo")?.ok_or_else(|| {
        CallError::Arguments("`repo` is required: the repository's folder".to_owned())
    })?;
    let sandbox = match text(arguments, "sandbox")?.as_deref() {
        None | Some("auto") => None,
        Some("bwrap") => Some(SandboxChoice::Bwrap),
        Some("none") => Some(SandboxChoice::None),
        Some(other) => {
            return Err(CallError::Arguments(format!(
                "`sandbox` is `{other}`; it must be auto, bwrap or none"
            )))
        }
    };
    Ok(RepoChoice {
        repo: Some(Utf8PathBuf::from(repo)),
        task_file: text(arguments, "task_file")?.map(Utf8PathBuf::from),
        python: text(arguments, "python")?.map(Utf8PathBuf::from),
        sandbox,
        image_cache: None,
        on_host: false,
        default_environment: None,
    })
}

/// A command's failure in MCP's words: the flags it names are this tool's arguments.
fn failed(error: &MendError) -> String {
    let mut message = format!("mend: {}", error.message);
    for (flag, argument) in [
        ("--task-file", "task_file"),
        ("--repo", "repo"),
        ("--python", "python"),
        ("--patch", "patch"),
        ("--sandbox", "sandbox"),
    ] {
        message = message.replace(flag, &format!("the `{argument}` argument"));
    }
    message
}

fn call_verify(arguments: &Map<String, Value>) -> Result<Value, CallError> {
    let setup = repo_args(arguments)?;
    let patch = text(arguments, "patch")?;
    let detail = match text(arguments, "detail")?.as_deref() {
        None | Some("summary") => Detail::Summary,
        Some("tests") => Detail::Tests,
        Some(other) => {
            return Err(CallError::Arguments(format!(
                "`detail` is `{other}`; it must be summary or tests"
            )))
        }
    };
    let verified = verify(&setup, false, patch.as_deref(), &mut Silent)?;
    Ok(verify_answer(verified, patch.is_some(), detail))
}

/// How much of a verify's run the answer carries.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Detail {
    /// Counts, the failing tests (the first [`FAILING_SHOWN`]) and a short tail of the output:
    /// small enough for any client's output cap, whatever the suite's size.
    Summary,
    /// Also each test's outcome by id, the first [`TESTS_SHOWN`].
    Tests,
}

/// Failing ids an answer lists; the rest are counted in `failing_count`.
pub(crate) const FAILING_SHOWN: usize = 50;
/// Test outcomes `detail: "tests"` lists; the rest are counted in `tests_omitted`.
pub(crate) const TESTS_SHOWN: usize = 5_000;
/// Characters of the output's end an answer keeps.
pub(crate) const TAIL_CHARS: usize = 1_500;

/// The answer to `verify`: the verdict, bounded (see [`Detail`]).
pub(crate) fn verify_answer(verified: Verified, patch_applied: bool, detail: Detail) -> Value {
    let passed = verified.passed();
    let Verified {
        mut run,
        held,
        warnings,
        sandbox,
    } = verified;
    // A task with held-out tests gets resolved-or-not and counts: the caller may be the model
    // under test, and any more would make verify an oracle of the hidden tests.
    if !held.held_out.is_empty() {
        let mut answer = super::withheld::answer(passed, &run, &held);
        if let Value::Object(fields) = &mut answer {
            fields.insert("warnings".to_owned(), json!(warnings));
            fields.insert("sandbox".to_owned(), json!(sandbox));
            fields.insert("patch_applied".to_owned(), json!(patch_applied));
        }
        return answer;
    }
    let failing_count = run.failing.len();
    run.failing.truncate(FAILING_SHOWN);
    run.output_tail = run
        .output_tail
        .as_deref()
        .map(|tail| crate::truncate::keep_tail(tail, TAIL_CHARS));
    let mut verdict = json!({
        "passed": passed,
        "failing_count": failing_count,
        "warnings": warnings,
        "sandbox": sandbox,
        "patch_applied": patch_applied,
    });
    if detail == Detail::Tests {
        let tests: Map<String, Value> = run
            .cases
            .iter()
            .take(TESTS_SHOWN)
            .map(|(id, outcome)| (id.clone(), json!(outcome)))
            .collect();
        verdict["tests"] = Value::Object(tests);
        verdict["tests_omitted"] = json!(run.cases.len().saturating_sub(TESTS_SHOWN));
    }
    for details in [serde_json::to_value(&run), serde_json::to_value(&held)] {
        if let (Value::Object(verdict), Ok(Value::Object(details))) = (&mut verdict, details) {
            verdict.extend(details);
        }
    }
    verdict
}

fn call_task(arguments: &Map<String, Value>) -> Result<Value, CallError> {
    let setup = repo_args(arguments)?;
    let repo = crate::setup::repository::repository(setup.repo.as_deref(), None)?;
    let task = Task::locate(&repo, setup.task_file.as_deref())?;
    Ok(crate::commands::task::task_json(&task, &repo)?)
}

/// The server's stdout carries the protocol alone: a verify run reports nothing of its own.
struct Silent;

impl Observer for Silent {
    fn event(&mut self, _event: &mend_core::Event) {}
}

impl Render for Silent {
    fn run_event(&mut self, _event: &RunEvent) {}
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map, Value};

    use super::call;

    fn refused(text: &str) -> Option<Value> {
        Some(json!({"content": [{"type": "text", "text": text}], "isError": true}))
    }

    #[test]
    fn bad_arguments_are_an_error_result_that_names_the_argument() {
        let arguments =
            |value: Value| -> Map<String, Value> { value.as_object().cloned().unwrap_or_default() };
        assert_eq!(
            [
                call("task", &arguments(json!({}))),
                call("task", &arguments(json!({"repo": 7}))),
                call(
                    "verify",
                    &arguments(json!({"repo": ".", "sandbox": "docker"}))
                ),
                call("verify", &arguments(json!({"repo": ".", "detail": "all"}))),
                call("nothing", &arguments(json!({}))),
            ],
            [
                refused("`repo` is required: the repository's folder"),
                refused("`repo` must be a string"),
                refused("`sandbox` is `docker`; it must be auto, bwrap or none"),
                refused("`detail` is `all`; it must be summary or tests"),
                None,
            ]
        );
    }
}
