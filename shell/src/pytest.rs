//! The one way mend runs a command of the repository — the task's test command, the `shell`
//! tool — in a scrubbed environment inside the sandbox.

use std::process::Command;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;
use crate::interrupt::Watch;
use crate::process::{run_bounded, Finished};
use crate::sandbox::Sandbox;
use crate::task::TestCommand;

/// Where Python and its tools live on a Debian-like system; the interpreter's own directory is
/// put first.
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A command's first word that stands for the interpreter mend was given.
const PYTHON_WORD: &str = "python";

/// How the repository's commands are run: which interpreter, inside which sandbox.
pub struct TestRunner {
    pub python: Utf8PathBuf,
    pub sandbox: Sandbox,
    /// The task's `test.plugins`: whether pytest may load the plugins installed with it.
    pub plugins: bool,
}

impl TestRunner {
    /// `argv` in `workdir`. The environment is cleared and only what Python needs is set again:
    /// no API keys, no user site-packages, no bytecode, no pytest cache written into the
    /// workspace, and plugins autoloaded only when the task allows it.
    pub fn command(&self, argv: &[String], workdir: &Utf8Path) -> Command {
        self.command_writing(argv, workdir, None)
    }

    /// [`TestRunner::command`], also allowed to write in `report_dir` (outside the workspace).
    fn command_writing(
        &self,
        argv: &[String],
        workdir: &Utf8Path,
        report_dir: Option<&Utf8Path>,
    ) -> Command {
        let (program, args) = match argv.split_first() {
            Some((first, rest)) if first == PYTHON_WORD => (self.python.as_path(), rest),
            Some((first, rest)) => (Utf8Path::new(first.as_str()), rest),
            None => (self.python.as_path(), argv),
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = self
            .sandbox
            .command_writing(program, &args, workdir, report_dir);
        command.env_clear();
        let path = match self.python.parent() {
            Some(bin) if !bin.as_str().is_empty() => format!("{bin}:{SYSTEM_PATH}"),
            _ => SYSTEM_PATH.to_owned(),
        };
        command
            .env("PATH", path)
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
        command
    }

    /// Runs the task's tests once, giving up early when `watch` says so. A command that cannot
    /// even start is the harness's failure, named with its fix.
    pub fn run(
        &self,
        test: &TestCommand,
        workdir: &Utf8Path,
        watch: Watch,
    ) -> Result<Finished, MendError> {
        self.run_argv(&test.argv, test.timeout, workdir, watch)
    }

    pub fn run_argv(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
    ) -> Result<Finished, MendError> {
        self.run_writing(argv, timeout, workdir, watch, None)
    }

    /// Runs `argv` (the test command with its report option) with `report_dir` writable too:
    /// the report is written outside the copy, where the code under test does not list it.
    pub fn run_reporting(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        report_dir: &Utf8Path,
    ) -> Result<Finished, MendError> {
        // Not cut by the first Ctrl-C: a cancelled run still gets its verdict.
        self.run_writing(argv, timeout, workdir, Watch::NONE, Some(report_dir))
    }

    fn run_writing(
        &self,
        argv: &[String],
        timeout: Duration,
        workdir: &Utf8Path,
        watch: Watch,
        report_dir: Option<&Utf8Path>,
    ) -> Result<Finished, MendError> {
        let command = self.command_writing(argv, workdir, report_dir);
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
mod environment_tests {
    use std::ffi::OsStr;

    use super::TestRunner;
    use crate::sandbox::Sandbox;

    #[test]
    fn the_test_process_gets_only_what_python_needs() {
        let runner = TestRunner {
            python: "/opt/venv/bin/python".into(),
            sandbox: Sandbox::Unsandboxed,
            plugins: false,
        };
        let argv = ["python", "-m", "pytest", "-q"].map(str::to_owned);
        let command = runner.command(&argv, "/tmp/ws".into());
        let env: Vec<(&OsStr, Option<&OsStr>)> = command.get_envs().collect();
        let expected: Vec<(&OsStr, Option<&OsStr>)> = [
            ("HOME", "/tmp/ws"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("PATH", "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"),
            ("PYTEST_ADDOPTS", "-p no:cacheprovider"),
            ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
            ("PYTHONHASHSEED", "0"),
            ("PYTHONNOUSERSITE", "1"),
        ]
        .iter()
        .map(|(key, value)| (OsStr::new(*key), Some(OsStr::new(*value))))
        .collect();
        // env_clear() drops everything inherited (API keys included); these are all that is set.
        assert_eq!(env, expected);
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(command.get_program(), OsStr::new("/opt/venv/bin/python"));
        assert_eq!(args, ["-m", "pytest", "-q"].map(OsStr::new));
    }

    #[test]
    fn plugin_autoload_is_the_tasks_choice() {
        let autoload = |plugins: bool| {
            let runner = TestRunner {
                python: "/opt/venv/bin/python".into(),
                sandbox: Sandbox::Unsandboxed,
                plugins,
            };
            let command = runner.command(&["python".to_owned()], "/tmp/ws".into());
            let disabled = command
                .get_envs()
                .find(|(key, _)| *key == OsStr::new("PYTEST_DISABLE_PLUGIN_AUTOLOAD"))
                .and_then(|(_, value)| value.map(OsStr::to_owned));
            disabled
        };
        assert_eq!([autoload(true), autoload(false)], [None, Some("1".into())]);
    }
}
