//! The one way mend runs a repository's tests: a fixed pytest command in a scrubbed environment.
//! Both the `run_tests` tool and the independent verification use it.

use std::process::Command;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::MendError;
use crate::interrupt::Watch;
use crate::process::{run_bounded, Finished};
use crate::sandbox::Sandbox;

/// SPEC §3: long enough for the sample's four tests many times over, short enough that a model
/// that writes an endless loop costs only seconds.
pub const RUN_TESTS_TIMEOUT: Duration = Duration::from_secs(15);

/// Fixed arguments: quiet, and no cache directory written into the workspace.
const PYTEST_ARGS: [&str; 5] = ["-m", "pytest", "-q", "-p", "no:cacheprovider"];

/// Where Python and its tools live on a Debian-like system; the interpreter's own directory is
/// put first.
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How the repository's tests are run: which interpreter, inside which sandbox.
pub struct TestRunner {
    pub python: Utf8PathBuf,
    pub sandbox: Sandbox,
}

impl TestRunner {
    /// The pytest command for `workdir`. The environment is cleared and only what Python needs
    /// is set again: no API keys, no user site-packages, no plugins autoloaded, no bytecode.
    pub fn command(&self, workdir: &Utf8Path) -> Command {
        let mut command = self.sandbox.command(&self.python, &PYTEST_ARGS, workdir);
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
            .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        command
    }

    /// Runs the tests once with the standard timeout, giving up early when `watch` says so.
    /// A Python that cannot even start is the harness's failure, named with its fix.
    pub fn run(&self, workdir: &Utf8Path, watch: Watch) -> Result<Finished, MendError> {
        run_bounded(self.command(workdir), RUN_TESTS_TIMEOUT, watch).map_err(|err| {
            MendError::harness(format!(
                "cannot start Python at `{}`: {err} — run `make venv` or pass --python PATH",
                self.python
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
        let command = runner.command("/tmp/ws".into());
        let env: Vec<(&OsStr, Option<&OsStr>)> = command.get_envs().collect();
        let expected: Vec<(&OsStr, Option<&OsStr>)> = [
            ("HOME", "/tmp/ws"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("PATH", "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"),
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
        assert_eq!(
            args,
            ["-m", "pytest", "-q", "-p", "no:cacheprovider"].map(OsStr::new)
        );
    }
}
