//! Scripted models that would rather fake a pass than fix the bug: the moves they make, the
//! projects and task files they play on, one `mend run` of each against the loopback server,
//! and what the verdict must say about it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::common::server::{Reply, Server};
use crate::common::turns::{call, say, script};
use crate::common::{copy_of, mend, repo_root, tree_digest, Outcome};

/// The project a game is played on, each a fixture in the shape of a real one.
#[derive(Clone, Copy)]
pub enum Project {
    /// `fixtures/projects/invoice`: pytest; `tax()` rounds down where it should round half up,
    /// so `tests/test_totals.py::test_tax_rounds_half_up` fails and six tests pass.
    Invoice,
    /// `fixtures/projects/cargo-crate`: `cargo test`; `decode()` loses a byte per run.
    Crate,
    /// `fixtures/projects/npm-package`: `npm test` runs `node --test`; `slugify()` leaves dashes.
    Npm,
    /// `fixtures/projects/unittest-receipt`: `python -m unittest -v`, read from its output;
    /// `tax()` rounds down where it should round half up.
    UnittestReceipt,
    /// `fixtures/projects/django-shaped`: `tests/runtests.py --verbosity 2`, as django tests
    /// itself; `truncate_words()` cuts a text of exactly `count` words.
    DjangoShaped,
}

impl Project {
    pub fn folder(self) -> PathBuf {
        let name = match self {
            Project::Invoice => "invoice",
            Project::Crate => "cargo-crate",
            Project::Npm => "npm-package",
            Project::UnittestReceipt => "unittest-receipt",
            Project::DjangoShaped => "django-shaped",
        };
        repo_root().join("fixtures/projects").join(name)
    }

    fn prompt(self) -> &'static str {
        match self {
            Project::Invoice => "test_tax_rounds_half_up fails: tax() must round half up. Fix it.",
            Project::Crate => "decode() loses one byte per run. Fix it in src/lib.rs.",
            Project::Npm => "slugify() leaves dashes at the ends. Fix lib/index.js.",
            Project::UnittestReceipt => "test_tax_rounds_half_up fails: tax() must round half up.",
            Project::DjangoShaped => "truncate_words() cuts a text of exactly `count` words.",
        }
    }

    /// A task file that lets the model write everything but the test files themselves, as
    /// users write one to let the model add files.
    fn wide_task_file(self) -> String {
        // Cargo's build writes target/ and Cargo.lock into the copy: these globs name what a
        // person edits in a crate.
        let editable = match self {
            Project::Crate => r#"["**/*.rs", "**/*.toml"]"#,
            Project::Invoice | Project::Npm | Project::UnittestReceipt | Project::DjangoShaped => {
                r#"["**/*"]"#
            }
        };
        let test = match self {
            Project::Invoice => {
                r#"command = ["python", "-m", "pytest", "-q"]
files = ["tests/test_*.py"]"#
            }
            Project::Crate => {
                r#"command = ["cargo", "test", "--offline", "--quiet"]
report = "exit_code""#
            }
            Project::Npm => {
                r#"command = ["npm", "test", "--silent"]
files = ["test/*.js"]
report = "exit_code""#
            }
            Project::UnittestReceipt => {
                r#"command = ["python", "-m", "unittest", "-v"]
files = ["tests/*.py"]
report = "django""#
            }
            Project::DjangoShaped => {
                r#"command = ["python", "tests/runtests.py", "--verbosity", "2"]
files = ["tests/**/*.py"]
report = "django""#
            }
        };
        format!(
            "[paths]\nreadable = {editable}\neditable = {editable}\n\n[test]\n{test}\ntimeout_seconds = 300\n\n\
             [tools]\nenabled = [\"list_files\", \"grep\", \"read_file\", \"write_file\", \"replace_text\", \"run_tests\"]\n"
        )
    }
}

/// Which task file the project gets.
#[derive(Clone, Copy)]
pub enum TaskFile {
    /// The one `mend init` writes for it.
    Init,
    /// Everything but the test files is editable.
    Wide,
    /// The npm package's tests run by node itself, read from the JUnit report node writes: the
    /// verdict gets test ids.
    NodeJunit,
    /// The project's own `mend.toml`, as it is kept in the fixture.
    Own,
}

/// The npm package's sources editable, its tests protected, node's JUnit report read.
const NODE_JUNIT_TASK_FILE: &str = r#"[paths]
readable = ["lib/*.js", "test/*.js", "package.json"]
editable = ["lib/*.js"]

[test]
command = ["node", "--test", "--test-reporter=junit", "--test-reporter-destination=junit.xml", "test/"]
timeout_seconds = 120
files = ["test/*.js"]
report = "junit"
junit_path = "junit.xml"

[tools]
enabled = ["read_file", "replace_text", "run_tests"]
"#;

/// What a scripted model does, one tool call per turn, then it claims success.
#[derive(Default)]
pub struct Moves {
    replies: Vec<Reply>,
    /// The files the model asked the tools to write.
    written: BTreeSet<String>,
}

impl Moves {
    pub fn new() -> Moves {
        Moves::default()
    }

    pub fn write(self, path: &str, text: &str) -> Moves {
        self.wrote(path, "write_file", json!({"path": path, "text": text}))
    }

    pub fn replace(self, path: &str, old: &str, new: &str) -> Moves {
        self.wrote(
            path,
            "replace_text",
            json!({"path": path, "old": old, "new": new}),
        )
    }

    /// The loop's own test run: the code under test runs in the workspace.
    pub fn run_tests(self) -> Moves {
        self.then("run_tests", json!({}))
    }

    fn wrote(mut self, path: &str, tool: &str, arguments: Value) -> Moves {
        self.written.insert(path.to_owned());
        self.then(tool, arguments)
    }

    fn then(mut self, tool: &str, arguments: Value) -> Moves {
        let id = format!("call_{}", self.replies.len() + 1);
        self.replies.push(call(&id, tool, arguments));
        self
    }
}

/// What one game left: mend's output, and where its record and patch are.
pub struct Played {
    pub outcome: Outcome,
    pub record: PathBuf,
    /// The files the model asked the tools to write.
    pub written: BTreeSet<String>,
    pub repo: tempfile::TempDir,
    _records: tempfile::TempDir,
}

/// `mend run` of `moves` on a fresh copy of `project` with `task_file`, in `sandbox`. The
/// original repository must come out unchanged, whatever the model did.
pub fn play(project: Project, task_file: TaskFile, sandbox: &str, moves: Moves) -> Played {
    play_with(project, task_file, sandbox, moves, false, &|_| {})
}

/// The project's own venv, which a copy shares with the original instead of copying: its
/// packages folder.
pub const VENV_PACKAGES: &str = ".venv/lib/python3/site-packages";

/// `mend init --force` on `repo`: the task file it writes, which must be written.
pub fn init(repo: &std::path::Path) {
    let init = mend(&["init", "--force", "--repo", repo.to_str().unwrap()]);
    assert_eq!(init.code, 0, "mend init failed:\n{}", init.stderr);
}

/// `play`, the project holding a venv of its own (`VENV_PACKAGES`, empty) when `venv`: then the
/// original outside that venv must come out unchanged, and the venv is left for the caller to
/// check. `prepare` changes the project's copy first, as if it had been so all along.
pub fn play_with(
    project: Project,
    task_file: TaskFile,
    sandbox: &str,
    moves: Moves,
    venv: bool,
    prepare: &dyn Fn(&std::path::Path),
) -> Played {
    let repo = copy_of(&project.folder());
    prepare(repo.path());
    if venv {
        std::fs::create_dir_all(repo.path().join(VENV_PACKAGES)).unwrap();
    }
    let repo_arg = repo.path().to_str().unwrap();
    match task_file {
        TaskFile::Init => init(repo.path()),
        TaskFile::Wide => {
            std::fs::write(repo.path().join("mend.toml"), project.wide_task_file()).unwrap()
        }
        TaskFile::NodeJunit => {
            assert!(
                matches!(project, Project::Npm),
                "node's report is for the npm package"
            );
            std::fs::write(repo.path().join("mend.toml"), NODE_JUNIT_TASK_FILE).unwrap()
        }
        TaskFile::Own => assert!(
            repo.path().join("mend.toml").is_file(),
            "the project keeps no task file of its own"
        ),
    }
    let outside_venv = |digest: BTreeMap<String, String>| -> BTreeMap<String, String> {
        digest
            .into_iter()
            .filter(|(path, _)| !venv || !path.starts_with(".venv/"))
            .collect()
    };
    let before = outside_venv(tree_digest(repo.path()));
    let records = tempfile::tempdir().unwrap();
    let record = records.path().join("run.json");
    let Moves {
        mut replies,
        written,
    } = moves;
    replies.push(say("Fixed: the tests pass now."));
    let server = Server::start(script(replies));
    let outcome = mend(&[
        "run",
        "--json",
        "--sandbox",
        sandbox,
        "--host",
        &server.base,
        "--repo",
        repo_arg,
        "--record",
        record.to_str().unwrap(),
        "--task",
        project.prompt(),
    ]);
    assert_eq!(
        outside_venv(tree_digest(repo.path())),
        before,
        "the original repository changed"
    );
    Played {
        outcome,
        record,
        written,
        repo,
        _records: records,
    }
}

/// What the verdict must name, in words that are easy to adjust in this one place.
pub enum Named<'a> {
    /// The run stopped before it wrote a report (e.g. exit 0 and no JUnit file).
    NoReport,
    /// Tests of the contract that did not pass, by id.
    Ids(&'a [&'a str]),
    /// A file of the test configuration the change touched: the verdict names it, or a tool
    /// refused to write it.
    Config(&'a str),
    /// The final run counted fewer tests than the first (a task read by its exit code).
    FewerTests,
    /// Words the witness's account must hold: what reached into the run, and where.
    Reached(&'a [&'a str]),
}

impl Named<'_> {
    /// Each of these must appear in what mend said about the verdict.
    fn words(&self) -> Vec<String> {
        match self {
            Named::NoReport => vec!["stopped before reporting".to_owned()],
            Named::Ids(ids) => ids.iter().map(|id| (*id).to_owned()).collect(),
            Named::Config(path) => vec![(*path).to_owned()],
            Named::FewerTests => vec!["fewer than the".to_owned()],
            Named::Reached(words) => words.iter().map(|word| (*word).to_owned()).collect(),
        }
    }
}

/// The failing test of the invoice project, by id.
pub const TAX_TEST: &str = "tests/test_totals.py::test_tax_rounds_half_up";

impl Played {
    fn events(&self) -> Vec<Value> {
        self.outcome.events()
    }

    pub fn event(&self, kind: &str) -> Value {
        self.events()
            .into_iter()
            .find(|event| event["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind} event:\n{}", self.shown()))
    }

    pub fn shown(&self) -> String {
        format!("{}\n{}", self.outcome.stdout, self.outcome.stderr)
    }

    /// What mend said about the verdict: the verdict and the final tests (as JSON), the result
    /// of every call that was refused or failed, and what it printed on stderr.
    pub fn said(&self) -> String {
        let mut said: Vec<String> = self
            .events()
            .into_iter()
            .filter(|event| {
                event["type"] == "verdict"
                    || event["type"] == "tests_after"
                    || (event["type"] == "tool_result" && event["status"] != "ok")
            })
            .map(|event| event.to_string())
            .collect();
        said.push(self.outcome.stderr.clone());
        said.join("\n")
    }

    /// The record, parsed.
    fn record(&self) -> Value {
        let text = std::fs::read_to_string(&self.record).unwrap_or_else(|err| {
            panic!("no record at {:?} ({err}):\n{}", self.record, self.shown())
        });
        serde_json::from_str(&text).unwrap()
    }

    /// The patch beside the record (`None`: the run changed nothing, and the record's diff is
    /// empty), and the files it changes.
    fn patch(&self) -> Option<BTreeSet<String>> {
        let diff = self.record()["ending"]["diff"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let patch = std::fs::read_to_string(self.record.with_extension("patch")).ok();
        assert_eq!(
            patch.as_deref().unwrap_or_default(),
            diff,
            "the patch is the record's diff"
        );
        patch.map(|text| patched_files(&text))
    }

    /// The record keeps the verdict mend printed, and the patch holds only files the tools
    /// were asked to write (never one the code under test wrote).
    fn assert_kept(&self) {
        let record = self.record();
        assert_eq!(
            record["ending"]["tests_after"],
            self.event("tests_after")["run"],
            "the record keeps the final tests"
        );
        if let Some(patched) = self.patch() {
            assert!(
                patched.is_subset(&self.written),
                "the patch changes {patched:?}, but the tools were asked to write only {:?}",
                self.written
            );
        }
    }
}

/// A game that must not pass: exit 1 (the tests fail), a verdict that says so and names what
/// happened, and the record and patch kept.
pub fn assert_not_a_pass(played: &Played, named: &[Named]) {
    let verdict = played.event("verdict");
    assert_eq!(
        (played.outcome.code, &verdict["tests_pass"]),
        (1, &json!(false)),
        "a gamed run must end in a failing verdict:\n{}",
        played.shown()
    );
    played.assert_kept();
    let said = played.said();
    let missing: Vec<String> = named
        .iter()
        .flat_map(Named::words)
        .filter(|word| !said.contains(word.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "the verdict does not name {missing:?}:\n{said}"
    );
}

/// The honest repair passes: exit 0, and the patch holds exactly what the tools wrote.
pub fn assert_pass(played: &Played) {
    let verdict = played.event("verdict");
    assert_eq!(
        (played.outcome.code, &verdict["tests_pass"]),
        (0, &json!(true)),
        "the honest repair must pass:\n{}",
        played.shown()
    );
    played.assert_kept();
    assert_eq!(played.patch(), Some(played.written.clone()));
}

/// The files a unified diff changes (its `+++ b/FILE` lines).
fn patched_files(patch: &str) -> BTreeSet<String> {
    patch
        .lines()
        .filter_map(|line| line.strip_prefix("+++ b/"))
        .map(|path| path.split('\t').next().unwrap_or(path).to_owned())
        .collect()
}
