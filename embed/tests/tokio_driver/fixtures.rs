//! What the tests feed both drivers: the sample's files as an in-memory tool table, a scripted
//! repair stream, and the blocking shell's driver run on a temporary copy of the sample.

use std::collections::BTreeMap;
use std::time::Duration;

use mend_core::{Config, Event, Session, ToolOutcome};
use serde_json::{json, Map, Value};

use crate::driver::{ToolTable, Transcript};
use crate::server::{self, Reply, Script};

/// The sample's `read_file` and `replace_text` over a map of files, with the results the shell's
/// real tools give.
pub struct Files(pub BTreeMap<String, String>);

impl ToolTable for Files {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> ToolOutcome {
        let text = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        match name {
            "read_file" => match self.0.get(text("path")) {
                Some(content) => ToolOutcome::Success {
                    value: json!({"path": text("path"), "text": content}),
                },
                None => ToolOutcome::Failure {
                    message: format!("no file {}", text("path")),
                },
            },
            "replace_text" => {
                let file = self.0.get_mut("path_rules.py").unwrap();
                *file = file.replacen(text("old"), text("new"), 1);
                ToolOutcome::Success {
                    value: json!({"path": "path_rules.py", "replaced": 1}),
                }
            }
            other => ToolOutcome::Failure {
                message: format!("{other} is not in the table"),
            },
        }
    }
}

pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn chunk(message: Value, done: bool) -> String {
    json!({"model": "gemma4:e2b", "created_at": "2026-12-02T12:00:00Z", "message": message, "done": done}).to_string()
}

pub fn done(extra: Value) -> String {
    let mut line: Value =
        serde_json::from_str(&chunk(json!({"role": "assistant", "content": ""}), true)).unwrap();
    line.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    line.to_string()
}

pub fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "function": {"name": name, "arguments": arguments}})
}

/// Three turns: both files read, the repair (with a call to a tool nobody offered), a summary.
pub fn repair_stream() -> Vec<Vec<String>> {
    let old = "        path = PurePosixPath(name)";
    let new = "        path = PurePosixPath(name.replace('\\\\', '/'))";
    vec![
        vec![
            chunk(
                json!({"role": "assistant", "content": "", "thinking": "Read first."}),
                false,
            ),
            chunk(
                json!({"role": "assistant", "content": "Let me read "}),
                false,
            ),
            chunk(
                json!({"role": "assistant", "content": "both files."}),
                false,
            ),
            chunk(
                json!({"role": "assistant", "content": "", "tool_calls": [
                    call("call_1", "read_file", json!({"path": "path_rules.py"})),
                    call("call_2", "read_file", json!({"path": "tests/test_path_rules.py"})),
                ]}),
                false,
            ),
            done(json!({"done_reason": "stop", "prompt_eval_count": 900, "eval_count": 40})),
        ],
        vec![
            chunk(
                json!({"role": "assistant", "content": "Backslashes are not separators.", "tool_calls": [
                    call("call_3", "replace_text", json!({"old": old, "new": new})),
                    call("call_4", "delete_tests", json!({})),
                ]}),
                false,
            ),
            done(json!({"done_reason": "stop", "eval_count": 30})),
        ],
        vec![
            chunk(
                json!({"role": "assistant", "content": "Fixed: backslashes become slashes."}),
                false,
            ),
            done(json!({"done_reason": "stop"})),
        ],
    ]
}

pub fn server_for(turns: &[Vec<String>]) -> server::Server {
    server::Server::start(Script {
        models: vec![],
        chats: turns.iter().map(|lines| Reply::lines(lines)).collect(),
    })
}

pub fn sample_files() -> Files {
    let sample = repo_root().join("sample-repo");
    let read = |path: &str| std::fs::read_to_string(sample.join(path)).unwrap();
    Files(BTreeMap::from([
        ("path_rules.py".to_owned(), read("path_rules.py")),
        (
            "tests/test_path_rules.py".to_owned(),
            read("tests/test_path_rules.py"),
        ),
    ]))
}

pub fn sample_config(task: &mend::task::Task) -> Config {
    Config::new(
        "gemma4:e2b",
        "You repair code.",
        "Fix the failing test.",
        mend::tools::table::offered_tools(task, false),
    )
}

struct Collect(Vec<Event>);

impl mend::attempt::driver::Observer for Collect {
    fn event(&mut self, event: &Event) {
        self.0.push(event.clone());
    }
}

/// The blocking shell's driver with its real tools on a temporary copy of the sample.
pub fn blocking_transcript(base: &str) -> (Transcript, String) {
    let sample = camino::Utf8PathBuf::from_path_buf(repo_root().join("sample-repo")).unwrap();
    let task = mend::task::Task::locate(&sample, None).unwrap();
    let workspace =
        mend::workspace::Workspace::copy_of(&sample, &task.exclude, &task.history).unwrap();
    let runner = mend::exec::runner::TestRunner::new(
        "python3".into(),
        mend::exec::sandbox::Sandbox::Unsandboxed,
    );
    let client = mend::provider::client::Client::new(
        mend::provider::host::BaseUrl::parse(base),
        Duration::from_secs(30),
        None,
    );
    let mut source = mend::provider::client::LiveSource { client: &client };
    let mut observer = Collect(Vec::new());
    let bench = mend::tools::ToolContext::new(workspace.root(), &task, &runner);
    let session = mend::attempt::driver::start(sample_config(&task)).unwrap();
    let (transcript, _) =
        mend::attempt::driver::drive(bench, &mut source, &mut observer, session).unwrap();
    let stop = transcript.stop;
    let repaired = std::fs::read_to_string(workspace.root().join("path_rules.py")).unwrap();
    (
        Transcript {
            events: observer.0,
            stop,
        },
        repaired,
    )
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

pub fn started(config: Config) -> Session {
    Session::new(config).unwrap()
}
