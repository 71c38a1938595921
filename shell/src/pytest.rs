//! The one way mend runs a command of the repository — the task's test command, the `shell`
//! tool — in a scrubbed environment inside the sandbox; and how pytest's summary line is read.

use std::process::Command;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

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
}

impl TestRunner {
    /// `argv` in `workdir`. The environment is cleared and only what Python needs is set again:
    /// no API keys, no user site-packages, no plugins autoloaded, no bytecode, and no pytest
    /// cache written into the workspace.
    pub fn command(&self, argv: &[String], workdir: &Utf8Path) -> Command {
        let (program, args) = match argv.split_first() {
            Some((first, rest)) if first == PYTHON_WORD => (self.python.as_path(), rest),
            Some((first, rest)) => (Utf8Path::new(first.as_str()), rest),
            None => (self.python.as_path(), argv),
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = self.sandbox.command(program, &args, workdir);
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
            .env("PYTEST_ADDOPTS", "-p no:cacheprovider")
            .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
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
        run_bounded(self.command(argv, workdir), timeout, watch).map_err(|err| {
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

/// The counts of pytest's final summary line (`1 failed, 3 passed in 0.04s`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub skipped: u32,
}

impl Summary {
    /// Reads the last summary line of pytest's output; `None` when there is none (pytest did
    /// not get as far as running tests, e.g. it is not installed).
    pub fn parse(output: &str) -> Option<Summary> {
        output.lines().rev().find_map(Summary::parse_line)
    }

    fn parse_line(line: &str) -> Option<Summary> {
        let line = line.trim().trim_matches('=').trim();
        if line == "no tests ran" || line.starts_with("no tests ran in ") {
            return Some(Summary::default());
        }
        let counts = line.split(" in ").next()?;
        let mut summary = Summary::default();
        let mut matched = false;
        for part in counts.split(", ") {
            let mut words = part.split_whitespace();
            let (Some(number), Some(word), None) = (words.next(), words.next(), words.next())
            else {
                return None;
            };
            let number: u32 = number.parse().ok()?;
            match word {
                "passed" => summary.passed = number,
                "failed" => summary.failed = number,
                "error" | "errors" => summary.errors = number,
                "skipped" => summary.skipped = number,
                "warning" | "warnings" | "deselected" | "xfailed" | "xpassed" | "rerun" => {}
                _ => return None,
            }
            matched = true;
        }
        matched.then_some(summary)
    }

    /// `1 failed · 3 passed`, naming only the non-zero counts.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.failed, "failed"),
            (self.errors, "errors"),
            (self.passed, "passed"),
            (self.skipped, "skipped"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| format!("{count} {word}"))
        .collect();
        if parts.is_empty() {
            "no tests ran".to_owned()
        } else {
            parts.join(" · ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Summary;

    #[test]
    fn reads_the_final_summary_line() {
        let output = "..F.\n=== FAILURES ===\nFAILED tests/x.py::t - AssertionError\n1 failed, 3 passed in 0.04s\n";
        assert_eq!(
            Summary::parse(output),
            Some(Summary {
                passed: 3,
                failed: 1,
                errors: 0,
                skipped: 0
            })
        );
        assert_eq!(
            Summary::parse("==== 2 passed, 1 skipped, 1 error, 3 warnings in 1.2s ===="),
            Some(Summary {
                passed: 2,
                failed: 0,
                errors: 1,
                skipped: 1
            })
        );
        assert_eq!(
            Summary::parse("4 passed in 0.01s"),
            Some(Summary {
                passed: 4,
                ..Summary::default()
            })
        );
        assert_eq!(
            Summary::parse("/usr/bin/python3: No module named pytest"),
            None
        );
    }

    #[test]
    fn describes_only_what_happened() {
        let summary = Summary {
            passed: 3,
            failed: 1,
            errors: 0,
            skipped: 0,
        };
        assert_eq!(summary.describe(), "1 failed · 3 passed");
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
}
