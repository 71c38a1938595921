//! The one way mend runs a command of the repository — the task's test command, the `shell`
//! tool — in a scrubbed environment inside the sandbox, with the toolchain it names found on the
//! user's PATH and shown read-only, the copy's import roots first, and the original hidden.

use std::process::Command;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::session::interrupt::Watch;
use crate::task::{EnvEntry, PythonPath, ReadOnly, Task, TestCommand};
use crate::truncate::keep_tail;
use crate::workspace::process::{run_bounded, Finished};
use crate::workspace::sandbox::{Sandbox, View};
use crate::workspace::toolchain::{self, Host, Toolchain, SYSTEM_PATH};

/// A command's first word that stands for the interpreter mend was given.
const PYTHON_WORD: &str = "python";

/// How much output a "cannot start" message quotes.
const CANNOT_START_TAIL_CHARS: usize = 600;

/// Exit codes of a shell whose command was not found (127) or not executable (126).
const NOT_FOUND_EXIT: i32 = 127;
const NOT_EXECUTABLE_EXIT: i32 = 126;

/// How the repository's commands are run: which interpreter, inside which sandbox, seeing what.
pub struct TestRunner {
    pub python: Utf8PathBuf,
    pub sandbox: Sandbox,
    /// The PATH and homes mend was started with: programs are found there.
    pub host: Host,
    /// The repository the copy was made from; bubblewrap hides it.
    pub original: Option<Utf8PathBuf>,
    /// `sandbox.read_only`, resolved.
    pub read_only: Vec<Utf8PathBuf>,
    /// `test.env`, with the values passed through.
    pub env: Vec<(String, String)>,
    pub pythonpath: PythonPath,
    /// The task's `test.plugins`: whether pytest may load the plugins installed with it.
    pub plugins: bool,
}

impl TestRunner {
    /// A runner that sees only what the interpreter needs, for the system's PATH.
    pub fn new(python: Utf8PathBuf, sandbox: Sandbox) -> TestRunner {
        TestRunner {
            python,
            sandbox,
            host: Host::default(),
            original: None,
            read_only: Vec::new(),
            env: Vec::new(),
            pythonpath: PythonPath::Guessed,
            plugins: false,
        }
    }

    /// The runner for `task` on a copy of `original`, with mend's own environment. The test
    /// command's program must be found now, before any copy or model is started.
    pub fn for_task(
        python: Utf8PathBuf,
        sandbox: Sandbox,
        task: &Task,
        original: &Utf8Path,
    ) -> Result<TestRunner, MendError> {
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
        let runner = TestRunner {
            original: Some(
                original
                    .canonicalize_utf8()
                    .unwrap_or_else(|_| original.to_owned()),
            ),
            read_only,
            env,
            pythonpath: task.test.pythonpath.clone(),
            plugins: task.test.plugins,
            host,
            ..TestRunner::new(python, sandbox)
        };
        runner.toolchain(&task.test.argv)?;
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
                        "cannot find the Python `{}`: {message} — run `make venv` or pass --python PATH",
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
        for folder in toolchain.folders.iter().chain(&self.read_only) {
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
    /// written into the workspace, and plugins autoloaded only when the task allows it. `writable` names folders
    /// outside the copy the command may write (a report file's).
    pub fn command(
        &self,
        argv: &[String],
        workdir: &Utf8Path,
        writable: &[Utf8PathBuf],
    ) -> Result<Command, MendError> {
        let toolchain = self.toolchain(argv)?;
        let view = self.view(&toolchain, writable);
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let mut command = self
            .sandbox
            .command(&toolchain.program, &args, workdir, &view);
        command.env_clear();
        command
            .env("PATH", self.search_path(&toolchain, &view))
            .env("HOME", workdir.as_std_path())
            .env("LANG", "C.UTF-8")
            .env("LC_ALL", "C.UTF-8")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONNOUSERSITE", "1")
            .env("PYTHONHASHSEED", "0")
            .env("PYTEST_ADDOPTS", "-p no:cacheprovider");
        if !self.plugins {
            command.env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        }
        let roots = self.import_roots(workdir);
        if !roots.is_empty() {
            command.env("PYTHONPATH", roots.join(":"));
        }
        for (name, value) in toolchain.env.iter().chain(&self.env) {
            command.env(name, value);
        }
        Ok(command)
    }

    /// The program's folder, the interpreter's, then the user's PATH as far as the sandbox shows
    /// it, then the system's.
    fn search_path(&self, toolchain: &Toolchain, view: &View) -> String {
        let mut folders: Vec<Utf8PathBuf> = Vec::new();
        let shown = self
            .host
            .path
            .iter()
            .filter(|folder| self.sandbox.shows(folder, view));
        // The interpreter's folder too, so a script or a make target finds the venv's python.
        let python_bin = self.python.parent().filter(|_| self.python.is_absolute());
        for folder in toolchain
            .bin
            .iter()
            .map(Utf8PathBuf::as_path)
            .chain(python_bin)
            .map(Utf8Path::to_path_buf)
            .chain(shown.cloned())
            .chain(SYSTEM_PATH.map(Utf8PathBuf::from))
        {
            toolchain::push_new(&mut folders, folder);
        }
        let folders: Vec<&str> = folders.iter().map(|folder| folder.as_str()).collect();
        folders.join(":")
    }

    /// The copy's import roots, first on PYTHONPATH so the copy is imported even when the
    /// project is installed in its venv in editable mode (which points at the original).
    fn import_roots(&self, workdir: &Utf8Path) -> Vec<String> {
        let roots: Vec<Utf8PathBuf> = match &self.pythonpath {
            PythonPath::Guessed => [workdir.join("src"), workdir.to_path_buf()]
                .into_iter()
                .filter(|root| root.is_dir())
                .collect(),
            PythonPath::Roots(roots) => roots
                .iter()
                .map(|root| match root.as_str() {
                    "." => workdir.to_path_buf(),
                    root => workdir.join(root),
                })
                .collect(),
        };
        roots.iter().map(ToString::to_string).collect()
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
        self.run_checked(&test.argv, test.timeout, workdir, watch, &[])
    }

    /// Runs `argv` (the test command with its report option) with `report_dir` writable too:
    /// the report is written outside the copy, where the code under test does not list it.
    /// Not cut by the first Ctrl-C: a cancelled run still gets its verdict.
    pub fn run_reporting(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        report_dir: &Utf8Path,
    ) -> Result<Finished, MendError> {
        self.run_checked(
            argv,
            timeout,
            workdir,
            Watch::NONE,
            &[report_dir.to_owned()],
        )
    }

    /// Runs `argv`, letting it write the `writable` folders outside the copy; a program that
    /// could not be found or started inside the sandbox is an error, not a result.
    fn run_checked(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
        writable: &[Utf8PathBuf],
    ) -> Result<Finished, MendError> {
        let finished = self.run_bounded(argv, timeout, workdir, watch, writable)?;
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

    pub fn run_argv(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
    ) -> Result<Finished, MendError> {
        self.run_bounded(argv, timeout, workdir, watch, &[])
    }

    fn run_bounded(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
        writable: &[Utf8PathBuf],
    ) -> Result<Finished, MendError> {
        let command = self.command(argv, workdir, writable)?;
        run_bounded(command, timeout, watch).map_err(|err| {
            let program = match argv.first() {
                Some(first) if first != PYTHON_WORD => first.clone(),
                _ => self.python.to_string(),
            };
            MendError::harness(format!(
                "cannot start `{program}`: {err} — run `make venv` or pass --python PATH"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use camino::Utf8PathBuf;

    use super::TestRunner;
    use crate::task::PythonPath;
    use crate::workspace::sandbox::Sandbox;
    use crate::workspace::toolchain::Host;

    fn env_of(command: &std::process::Command) -> Vec<(String, String)> {
        command
            .get_envs()
            .map(|(key, value)| {
                (
                    key.to_string_lossy().into_owned(),
                    value.unwrap_or_default().to_string_lossy().into_owned(),
                )
            })
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn the_test_process_gets_only_what_python_needs() {
        let runner = TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed);
        let argv = ["python", "-m", "pytest", "-q"].map(str::to_owned);
        let workdir = tempfile::tempdir().unwrap();
        let workdir = Utf8PathBuf::from_path_buf(workdir.path().to_path_buf()).unwrap();
        let command = runner.command(&argv, &workdir, &[]).unwrap();
        // env_clear() drops everything inherited (API keys included); these are all that is set.
        assert_eq!(
            env_of(&command),
            pairs(&[
                ("HOME", workdir.as_str()),
                ("LANG", "C.UTF-8"),
                ("LC_ALL", "C.UTF-8"),
                ("PATH", "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"),
                ("PYTEST_ADDOPTS", "-p no:cacheprovider"),
                ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),
                ("PYTHONDONTWRITEBYTECODE", "1"),
                ("PYTHONHASHSEED", "0"),
                ("PYTHONNOUSERSITE", "1"),
                ("PYTHONPATH", workdir.as_str()),
            ])
        );
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(command.get_program(), OsStr::new("/opt/venv/bin/python"));
        assert_eq!(args, ["-m", "pytest", "-q"].map(OsStr::new));
    }

    #[test]
    fn the_copys_src_comes_first_then_the_task_roots_and_variables() {
        let workdir = tempfile::tempdir().unwrap();
        let workdir = Utf8PathBuf::from_path_buf(workdir.path().to_path_buf()).unwrap();
        std::fs::create_dir(workdir.join("src")).unwrap();
        let guessed = TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed);
        let argv = ["python", "-m", "pytest"].map(str::to_owned);
        let command = guessed.command(&argv, &workdir, &[]).unwrap();
        let pythonpath = |command: &std::process::Command| {
            env_of(command)
                .into_iter()
                .find(|(key, _)| key == "PYTHONPATH")
                .map(|(_, value)| value)
        };
        assert_eq!(
            pythonpath(&command),
            Some(format!("{workdir}/src:{workdir}"))
        );

        let chosen = TestRunner {
            pythonpath: PythonPath::Roots(vec!["lib".into(), ".".into()]),
            env: pairs(&[("CI", "1"), ("LANG", "en_US.UTF-8")]),
            ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
        };
        let command = chosen.command(&argv, &workdir, &[]).unwrap();
        assert_eq!(
            pythonpath(&command),
            Some(format!("{workdir}/lib:{workdir}"))
        );
        let set: Vec<(String, String)> = env_of(&command)
            .into_iter()
            .filter(|(key, _)| key == "CI" || key == "LANG")
            .collect();
        // The task's value wins over mend's default.
        assert_eq!(set, pairs(&[("CI", "1"), ("LANG", "en_US.UTF-8")]));

        let none = TestRunner {
            pythonpath: PythonPath::Roots(Vec::new()),
            ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
        };
        assert_eq!(
            pythonpath(&none.command(&argv, &workdir, &[]).unwrap()),
            None
        );
    }

    #[test]
    fn path_keeps_the_users_folders_the_sandbox_shows_after_the_toolchains() {
        let runner = TestRunner {
            host: Host {
                path: vec![
                    "/root/.cargo/bin".into(),
                    "/root/.pyenv/shims".into(),
                    "/opt/go/bin".into(),
                    "/usr/bin".into(),
                ],
                ..Host::default()
            },
            ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Bwrap)
        };
        let argv = ["/bin/sh".to_owned()];
        let command = runner.command(&argv, "/tmp/ws".into(), &[]).unwrap();
        let path = env_of(&command)
            .into_iter()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| value);
        // /root is hidden and nothing under it was shown; /opt is visible as it is.
        assert_eq!(
            path.as_deref(),
            Some("/bin:/opt/venv/bin:/opt/go/bin:/usr/bin:/usr/local/bin")
        );
    }

    #[test]
    fn plugin_autoload_is_the_tasks_choice() {
        let autoload = |plugins: bool| {
            let runner = TestRunner {
                plugins,
                ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
            };
            let command = runner
                .command(&["python".to_owned()], "/tmp/ws".into(), &[])
                .unwrap();
            env_of(&command)
                .into_iter()
                .find(|(key, _)| key == "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
                .map(|(_, value)| value)
        };
        assert_eq!([autoload(true), autoload(false)], [None, Some("1".into())]);
    }
}
