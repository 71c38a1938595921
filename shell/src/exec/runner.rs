//! The one way mend runs a command of the repository — the task's test command, the `shell`
//! tool — in a scrubbed environment inside the sandbox, with the toolchain it names found on the
//! user's PATH and shown read-only, the copy's import roots first, and the original hidden.

use std::process::Command;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::exec::bytecode;
use crate::exec::image::root::image_program;
use crate::exec::image::ImageRun;
use crate::exec::process::{run_bounded, Finished};
use crate::exec::sandbox::{Sandbox, View};
use crate::exec::set_up::SetUp;
use crate::exec::toolchain::{self, Host, Toolchain};
use crate::interrupt::Watch;
use crate::task::shared;
use crate::task::{EnvEntry, PythonPath, ReadOnly, Task, TestCommand, PYTHON_WORD};
use crate::truncate::keep_tail;

/// The variable pytest adds to its command line, in any process that runs it.
pub(crate) const PYTEST_ADDOPTS: &str = "PYTEST_ADDOPTS";
/// mend's own `PYTEST_ADDOPTS`: no cache written into the copy.
pub(crate) const NO_CACHE: &str = "-p no:cacheprovider";

/// How much output a "cannot start" message quotes.
/// Where Python (and pytest's assertion rewriter) looks for bytecode instead of `__pycache__`:
/// a path under a file, which no process can create, so a test run reads no `.pyc` at all. A
/// `.pyc` beside a source is checked against the source's size and time (or its hash) only, not
/// against what it does: one planted for a test file (by the code under test while the run
/// imports it, or kept in the repository) would run in the test file's place.
pub(crate) const NO_BYTECODE: &str = "/dev/null/mend-reads-no-bytecode";

const CANNOT_START_TAIL_CHARS: usize = 600;

/// Exit codes of a shell whose command was not found (127) or not executable (126).
const NOT_FOUND_EXIT: i32 = 127;
const NOT_EXECUTABLE_EXIT: i32 = 126;

/// What one run needs beyond the task's command. A report is written outside the copy, where
/// the code under test does not list it: its folder is writable, and pytest is told of it
/// through `PYTEST_ADDOPTS`, which reaches pytest through any wrapper (`make`, `sh -c`, a
/// script) that keeps the environment, while the command line stays the task's.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra<'a> {
    /// Folders outside the copy the command may write.
    pub writable: &'a [Utf8PathBuf],
    /// A pytest plugin of mend's (its module's name), on `import_path` with the metadata of an
    /// installed plugin: loaded the way that costs a run least and still before any plugin of
    /// the project's (`environment::plugin_loading`).
    pub pytest_plugin: Option<&'a str>,
    /// A path entry put last on the import path (where mend's pytest plugin is).
    pub import_path: Option<&'a Utf8Path>,
    /// A folder put first on the import path, whose `sitecustomize.py` Python runs at start-up,
    /// before any of the project's code (mend's unittest watcher).
    pub startup_path: Option<&'a Utf8Path>,
    /// Variables of mend's own, set after the task's.
    pub env: &'a [(&'a str, &'a str)],
}

impl Extra<'_> {
    /// Nothing beyond the task's own settings.
    pub const NONE: Extra<'static> = Extra {
        writable: &[],
        pytest_plugin: None,
        import_path: None,
        startup_path: None,
        env: &[],
    };
}

/// How the repository's commands are run: which interpreter, inside which sandbox, seeing what.
pub struct TestRunner {
    /// The interpreter a first word `python` of a command means.
    pub python: Utf8PathBuf,
    /// What isolates the commands from this machine.
    pub sandbox: Sandbox,
    /// How long choosing the sandbox took: starting it on `true` to see that it works here.
    pub sandbox_start: Duration,
    /// The PATH and homes mend was started with: programs are found there.
    pub host: Host,
    /// The repository the copy was made from; bubblewrap hides it.
    pub original: Option<Utf8PathBuf>,
    /// `sandbox.read_only`, resolved.
    pub read_only: Vec<Utf8PathBuf>,
    /// The original's folders the copy links to instead of copying them (`copy.share`):
    /// bubblewrap shows them read-only inside the hidden original.
    pub shared: Vec<Utf8PathBuf>,
    /// `test.env`, with the values passed through.
    pub env: Vec<(String, String)>,
    /// The task's `test.pythonpath`: what the commands' `PYTHONPATH` holds.
    pub pythonpath: PythonPath,
    /// The task's `test.plugins`: whether pytest may load the plugins installed with it.
    pub plugins: bool,
    /// The task's image: its commands run inside it instead of on this machine's files.
    pub image: Option<ImageRun>,
    /// `environment.setup`: run in each copy before its first command.
    pub set_up: Option<SetUp>,
    /// The original's folders an editable install in the interpreter's environment imports
    /// (relative): the copy's are put on the import path after the task's roots.
    pub editable_folders: Vec<String>,
}

impl TestRunner {
    /// A runner that sees only what the interpreter needs, for the system's PATH.
    pub fn new(python: Utf8PathBuf, sandbox: Sandbox) -> TestRunner {
        TestRunner {
            python,
            sandbox,
            sandbox_start: Duration::ZERO,
            host: Host::default(),
            original: None,
            read_only: Vec::new(),
            shared: Vec::new(),
            env: Vec::new(),
            pythonpath: PythonPath::Guessed,
            plugins: false,
            image: None,
            set_up: None,
            editable_folders: Vec::new(),
        }
    }

    /// The runner for `task` on a copy of `original`, with mend's own environment, inside
    /// `image` when the task has one. The test command's program must be found now, before any
    /// copy or model is started.
    pub fn for_task(
        python: Utf8PathBuf,
        sandbox: Sandbox,
        task: &Task,
        original: &Utf8Path,
        image: Option<ImageRun>,
    ) -> Result<TestRunner, MendError> {
        if image.is_some() && sandbox != Sandbox::Bwrap {
            return Err(MendError::usage(format!(
                "{} runs in an image, which mend runs only under bubblewrap — install it (`apt-get install bubblewrap`) and pass --sandbox auto or bwrap",
                task.origin
            )));
        }
        let host = Host::current();
        let mut read_only = Vec::new();
        for folder in &task.read_only {
            let path = match (folder, &host.home) {
                (ReadOnly::Absolute(path), _) => Utf8PathBuf::from(path),
                (ReadOnly::InHome(rest), Some(home)) => home.join(rest),
                (ReadOnly::InHome(_), None) => {
                    return Err(MendError::usage(format!(
                        "{}: sandbox.read_only names `{folder}`, but HOME is not set",
                        task.origin
                    )))
                }
            };
            if !path.exists() {
                return Err(MendError::usage(format!(
                    "{}: sandbox.read_only names {path}, which does not exist here: create it or remove it from the list",
                    task.origin
                )));
            }
            read_only.push(path);
        }
        let env = task
            .test
            .env
            .iter()
            .filter_map(|entry| match entry {
                EnvEntry::Set(name, value) => Some((name.clone(), value.clone())),
                EnvEntry::Pass(name) => std::env::var(name).ok().map(|value| (name.clone(), value)),
            })
            .collect();
        let canonical = original
            .canonicalize_utf8()
            .unwrap_or_else(|_| original.to_owned());
        let runner = TestRunner {
            editable_folders: crate::exec::editable::folders_imported(&python, &canonical),
            original: Some(canonical),
            read_only,
            shared: shared::shared_folders(original, &task.exclude).map_err(|err| {
                MendError::harness(format!("cannot read the repository {original}: {err}"))
            })?,
            env,
            pythonpath: task.test.pythonpath.clone(),
            plugins: task.test.plugins,
            host,
            image,
            ..TestRunner::new(python, sandbox)
        };
        match &runner.image {
            Some(image) => drop(image_program(image, &task.test.argv)?),
            None => drop(runner.toolchain(&task.test.argv)?),
        }
        Ok(runner)
    }

    /// The program `argv` names, found on the user's PATH, and what it needs.
    fn toolchain(&self, argv: &[String]) -> Result<Toolchain, MendError> {
        match argv.first() {
            Some(first) if first != PYTHON_WORD => {
                toolchain::locate(first, &self.host).map_err(|message| {
                    MendError::harness(format!("the test command cannot start: {message}"))
                })
            }
            _ => {
                // Its own folder comes first on PATH, as a venv's `activate` would put it.
                toolchain::locate(self.python.as_str(), &self.host).map_err(|message| {
                    MendError::harness(format!(
                        "cannot find the Python `{}`: {message} — pass --python the interpreter of the project's venv (e.g. --python .venv/bin/python)",
                        self.python
                    ))
                })
            }
        }
    }

    /// What bubblewrap shows for `toolchain`: the interpreter's and the toolchain's folders,
    /// the task's, and never the original repository.
    fn view(&self, toolchain: &Toolchain, writable: &[Utf8PathBuf]) -> View {
        let mut read_only = toolchain::installation(&self.python, &self.host);
        // The folders the installation's `.pth` files add (another venv's packages) are shown as
        // the installation is: a venv under a hidden folder (`/tmp`) otherwise lost them. Never
        // the original's, which an editable install names and which stays hidden.
        let added = bytecode::path_file_folders(&bytecode::library_folders(&read_only));
        let theirs = |folder: &Utf8PathBuf| {
            self.original
                .as_ref()
                .is_some_and(|original| folder.starts_with(original))
        };
        for folder in toolchain
            .folders
            .iter()
            .chain(added.iter().filter(|folder| !theirs(folder)))
            .chain(&self.read_only)
            .chain(&self.shared)
        {
            toolchain::push_new(&mut read_only, folder.clone());
        }
        View {
            read_only,
            hidden: self.original.iter().cloned().collect(),
            writable: writable.to_vec(),
        }
    }

    /// `argv` in `workdir`. The environment is cleared and only what the tests need is set
    /// again: a PATH on which the toolchain finds its helpers, the copy's import roots first,
    /// the task's `test.env`; no API keys, no user site-packages, no bytecode, no pytest cache
    /// written into the workspace, and plugins autoloaded only when the task allows it. `extra`
    /// names folders outside the copy the command may write and options for pytest.
    pub fn command(
        &self,
        argv: &[String],
        workdir: &Utf8Path,
        extra: Extra,
    ) -> Result<Command, MendError> {
        if let Some(image) = &self.image {
            return self.image_command(image, argv, workdir, extra);
        }
        let toolchain = self.toolchain(argv)?;
        let mut view = self.view(&toolchain, extra.writable);
        let places = (workdir, self.original.as_deref());
        let bytecode = bytecode::readable(&self.python, &self.host, &self.sandbox, places)
            .map(|mirror| mirror.path);
        view.read_only.extend(bytecode.clone());
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let mut command = self
            .sandbox
            .command(&toolchain.program, &args, workdir, &view);
        command.env_clear();
        command.env("PATH", self.search_path(&toolchain, &view));
        self.scrubbed_env(&mut command, workdir);
        let prefix = bytecode.as_deref().unwrap_or(Utf8Path::new(NO_BYTECODE));
        command.env("PYTHONPYCACHEPREFIX", prefix);
        let mut roots: Vec<String> = extra
            .startup_path
            .map(ToString::to_string)
            .into_iter()
            .collect();
        roots.extend(self.import_roots(workdir));
        roots.extend(extra.import_path.map(ToString::to_string));
        if !roots.is_empty() {
            command.env("PYTHONPATH", roots.join(":"));
        }
        for (name, value) in toolchain.env.iter().chain(&self.env) {
            command.env(name, value);
        }
        self.last_env(&mut command, (&toolchain.env, workdir), argv, extra);
        Ok(command)
    }

    /// Where no sandbox shields the bytecode mirror a command in `workdir` reads, the run's own
    /// places in it as they are now, to be compared after a final run ([`bytecode::unshielded`]); `None` under
    /// bubblewrap, in an image, or when the run reads no mirror.
    pub(crate) fn unshielded_mirror(
        &self,
        workdir: &Utf8Path,
    ) -> Option<bytecode::unshielded::PlaceStamps> {
        if self.image.is_some() {
            return None;
        }
        let places = (workdir, self.original.as_deref());
        bytecode::readable(&self.python, &self.host, &self.sandbox, places)?
            .unshielded
            .map(bytecode::unshielded::RunPlaces::stamps)
    }

    /// Runs the task's tests once, giving up early when `watch` says so. A command that cannot
    /// even start — a program missing inside the sandbox, a sandbox that cannot be set up — is
    /// the harness's failure, named with its fix, never a failing verdict.
    pub fn run(
        &self,
        test: &TestCommand,
        workdir: &Utf8Path,
        watch: Watch,
    ) -> Result<Finished, MendError> {
        self.run_checked(&test.argv, test.timeout, workdir, watch, Extra::NONE)
    }

    /// Runs the task's tests once with `extra` (a report's folder writable, pytest's report
    /// options). Not cut by the first Ctrl-C: a cancelled run still gets its verdict.
    pub fn run_reporting(
        &self,
        test: &TestCommand,
        workdir: &Utf8Path,
        extra: Extra,
    ) -> Result<Finished, MendError> {
        self.run_checked(&test.argv, test.timeout, workdir, Watch::NONE, extra)
    }

    /// Runs `argv`, letting it write the `writable` folders outside the copy; a program that
    /// could not be found or started inside the sandbox is an error, not a result.
    fn run_checked(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
        extra: Extra,
    ) -> Result<Finished, MendError> {
        let finished = self.run_bounded(argv, timeout, workdir, watch, extra)?;
        let code = finished.status.and_then(|status| status.code());
        let command = argv.join(" ");
        let output = finished.output.trim();
        if self.sandbox == Sandbox::Bwrap && code == Some(1) && output.starts_with("bwrap: ") {
            return Err(MendError::harness(format!(
                "the sandbox could not start the test command `{command}`: {} — name what it needs in sandbox.read_only, or pass --sandbox none to compare",
                output.lines().next().unwrap_or(output)
            )));
        }
        if matches!(code, Some(NOT_FOUND_EXIT | NOT_EXECUTABLE_EXIT)) {
            return Err(MendError::harness(format!(
                "the test command `{command}` exited {}: a program it runs was not found or cannot run inside the sandbox (install it, add its folder to sandbox.read_only, or pass the variables it needs with test.env):\n{}",
                code.unwrap_or_default(),
                keep_tail(output, CANNOT_START_TAIL_CHARS)
            )));
        }
        Ok(finished)
    }

    /// Runs one command in the sandbox on the copy at `workdir`, killed at `timeout` or when `watch` says, with its output kept.
    pub fn run_argv(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
    ) -> Result<Finished, MendError> {
        self.run_bounded(argv, timeout, workdir, watch, Extra::NONE)
    }

    fn run_bounded(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
        extra: Extra,
    ) -> Result<Finished, MendError> {
        if let Some(set_up) = &self.set_up {
            set_up.ensure(workdir, &|argv| self.command(argv, workdir, Extra::NONE))?;
        }
        let command = self.command(argv, workdir, extra)?;
        run_bounded(command, timeout, watch).map_err(|err| {
            let (program, fix) = match argv.first() {
                Some(first) if first != PYTHON_WORD => {
                    (first.clone(), "install it, or change test.command in the task file")
                }
                _ => (
                    self.python.to_string(),
                    "pass --python the interpreter of the project's venv (e.g. --python .venv/bin/python)",
                ),
            };
            MendError::harness(format!("cannot start `{program}`: {err} — {fix}"))
        })
    }
}

mod environment;

#[cfg(test)]
mod tests;
