//! The tools the model may call, one file each. A tool's own failure (bad path, ambiguous edit,
//! failing tests) is a [`ToolOutcome::Failure`] that goes back to the model; only a failure of
//! the harness itself (Python cannot start) is an `Err` that ends the run.

mod read_file;
mod replace_text;
mod run_tests;

use camino::Utf8Path;
use mend_core::ToolOutcome;
use serde_json::{Map, Value};

use crate::error::MendError;
use crate::interrupt::{Cut, Watch};
use crate::pytest::TestRunner;

/// What the tools may use: the workspace copy, the test runner, and when to give up.
pub struct ToolContext<'a> {
    pub root: &'a Utf8Path,
    pub runner: &'a TestRunner,
    pub watch: Watch,
}

/// How a tool execution ended: with an outcome for the model, or cut short by Ctrl-C or the
/// deadline (then the session hears about the cut, not about the tool).
#[derive(Debug, PartialEq)]
pub enum ToolRun {
    Finished(ToolOutcome),
    Cut(Cut),
}

/// Runs one call the core has already validated against the tool schemas.
pub fn execute(
    context: &ToolContext,
    name: &str,
    arguments: &Map<String, Value>,
) -> Result<ToolRun, MendError> {
    let finished = |outcome| Ok(ToolRun::Finished(outcome));
    match name {
        "read_file" => finished(read_file::read_file(context.root, arguments)),
        "replace_text" => finished(replace_text::replace_text(context.root, arguments)),
        "run_tests" => run_tests::run_tests(context),
        other => finished(failure(format!("unknown tool `{other}`"))),
    }
}

fn failure(message: String) -> ToolOutcome {
    ToolOutcome::Failure { message }
}

/// A string argument; validation has checked the type, this only guards the invariant.
fn text_argument<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolOutcome> {
    arguments
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| failure(format!("the argument `{key}` must be a string")))
}

#[cfg(test)]
mod tests {
    use camino::Utf8PathBuf;
    use serde_json::json;

    use super::*;

    fn workspace() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        std::fs::create_dir(root.join("tests")).unwrap();
        std::fs::write(root.join("path_rules.py"), "a = 1\nb = 1\nc = 2\n").unwrap();
        std::fs::write(root.join("tests/test_path_rules.py"), "def test(): pass\n").unwrap();
        (dir, root)
    }

    fn call(root: &Utf8Path, name: &str, arguments: Value) -> ToolOutcome {
        let runner = TestRunner {
            python: "/bin/false".into(),
            sandbox: crate::sandbox::Sandbox::Unsandboxed,
        };
        let context = ToolContext {
            root,
            runner: &runner,
            watch: Watch::NONE,
        };
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        match execute(&context, name, &arguments).unwrap() {
            ToolRun::Finished(outcome) => outcome,
            ToolRun::Cut(cut) => panic!("the tool was cut: {cut:?}"),
        }
    }

    fn refused(message: &str) -> ToolOutcome {
        ToolOutcome::Failure {
            message: message.to_owned(),
        }
    }

    #[test]
    fn read_file_returns_allowlisted_text() {
        let (_dir, root) = workspace();
        assert_eq!(
            call(
                &root,
                "read_file",
                json!({"path": "./tests/test_path_rules.py"})
            ),
            ToolOutcome::Success {
                value: json!({"path": "tests/test_path_rules.py", "text": "def test(): pass\n"})
            }
        );
    }

    #[test]
    fn read_file_refuses_paths_outside_the_allowlist() {
        let (_dir, root) = workspace();
        let options = "use one of: path_rules.py, tests/test_path_rules.py";
        let cases = [
            ("../etc/passwd", format!("`../etc/passwd` leaves the repository; {options}")),
            ("/etc/passwd", "`/etc/passwd` is absolute; use a relative path, one of: path_rules.py, tests/test_path_rules.py".to_owned()),
            ("setup.cfg", format!("`setup.cfg` is not allowed; {options}")),
        ];
        for (path, message) in cases {
            assert_eq!(
                call(&root, "read_file", json!({"path": path})),
                refused(&message),
                "{path}"
            );
        }
    }

    #[test]
    fn read_file_refuses_a_symlink_that_leads_out() {
        let (_dir, root) = workspace();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        std::fs::write(&secret, "API_KEY=hunter2").unwrap();
        std::fs::remove_file(root.join("path_rules.py")).unwrap();
        std::os::unix::fs::symlink(&secret, root.join("path_rules.py")).unwrap();
        assert_eq!(
            call(&root, "read_file", json!({"path": "path_rules.py"})),
            refused(
                "`path_rules.py` is a link that leads out of the repository; it cannot be opened"
            )
        );
    }

    #[test]
    fn read_file_refuses_files_over_the_cap() {
        let (_dir, root) = workspace();
        std::fs::write(root.join("path_rules.py"), "#".repeat(300 * 1024)).unwrap();
        assert_eq!(
            call(&root, "read_file", json!({"path": "path_rules.py"})),
            refused("`path_rules.py` is 307200 bytes, over the 262144-byte limit of read_file")
        );
    }

    #[test]
    fn replace_text_edits_exactly_one_occurrence() {
        let (_dir, root) = workspace();
        assert_eq!(
            call(
                &root,
                "replace_text",
                json!({"old": "c = 2", "new": "c = 3"})
            ),
            ToolOutcome::Success {
                value: json!({"path": "path_rules.py", "replaced": 1})
            }
        );
        assert_eq!(
            std::fs::read_to_string(root.join("path_rules.py")).unwrap(),
            "a = 1\nb = 1\nc = 3\n"
        );
    }

    #[test]
    fn replace_text_refuses_ambiguous_missing_and_empty_text() {
        let (_dir, root) = workspace();
        let cases = [
            ("= 1", "`old` occurs 2 times in path_rules.py, it must occur exactly once; read the file again with read_file and copy the exact text, with enough surrounding lines to be unique"),
            ("d = 4", "`old` occurs 0 times in path_rules.py, it must occur exactly once; read the file again with read_file and copy the exact text"),
            ("", "`old` is empty; copy the exact text to replace from path_rules.py (read it again with read_file)"),
        ];
        for (old, message) in cases {
            assert_eq!(
                call(&root, "replace_text", json!({"old": old, "new": "x"})),
                refused(message),
                "{old:?}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(root.join("path_rules.py")).unwrap(),
            "a = 1\nb = 1\nc = 2\n"
        );
    }
}
