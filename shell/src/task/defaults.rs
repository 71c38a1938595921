//! What a task file may leave out: the tools offered, the test command's time limit, and how its
//! result is read, which follows the command (`cargo test` is read as libtest prints it).

use std::time::Duration;

use super::file::ReportKind;
use super::ToolName;

/// `test.timeout_seconds` when the task file gives none: long enough for a mid-sized suite,
/// and a limit still, since a hung test would otherwise hold the run forever.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(600);

/// `shell.timeout_seconds` when the task file gives none: one command, not a test suite.
pub const SHELL_TIMEOUT: Duration = Duration::from_secs(10);

/// `tools.enabled` when the task file gives none: every tool but `shell`, which a task must ask
/// for (reading, searching, editing and the tests).
pub fn tools() -> Vec<ToolName> {
    ToolName::ALL
        .into_iter()
        .filter(|tool| *tool != ToolName::Shell)
        .collect()
}

/// Runners mend has no reader for: their result is their exit code, and mend says so.
const UNREAD_RUNNERS: [&str; 14] = [
    "go", "npm", "npx", "yarn", "pnpm", "node", "bun", "deno", "jest", "mocha", "vitest", "mvn",
    "gradle", "ctest",
];

/// How the result of `argv` is read when the task file names no `test.report`, and a warning
/// when mend knows the runner but has no reader for it, so its exit code alone decides. A
/// command mend does not know (`make test`, `tox`, a script) is a wrapper around pytest as
/// far as mend can tell: pytest is asked for its report through the environment, and a run
/// that writes none gives no verdict, with the fix.
pub(super) fn report_for(argv: &[String]) -> (ReportKind, Option<String>) {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let program = words
        .first()
        .map_or("", |word| word.rsplit('/').next().unwrap_or(word));
    // The first word that is no flag nor a toolchain (`cargo +nightly test`).
    let subcommand = words
        .iter()
        .skip(1)
        .find(|word| !word.starts_with('-') && !word.starts_with('+'));
    let kind = match program {
        "cargo" if subcommand == Some(&"test") => ReportKind::Libtest,
        _ if words.iter().any(|word| word.ends_with("runtests.py")) => ReportKind::Django,
        _ if words.iter().any(|word| word.ends_with("bin/test")) => ReportKind::Sympy,
        "cargo" => ReportKind::ExitCode,
        _ if UNREAD_RUNNERS.contains(&program) => ReportKind::ExitCode,
        _ => ReportKind::Pytest,
    };
    let warning = (kind == ReportKind::ExitCode).then(|| {
        format!(
            "test.report: mend has no reader for `{}`, so its exit code alone decides (no test ids); set test.report = \"junit\" with the junit_path it writes to read each test",
            words.join(" ")
        )
    });
    (kind, warning)
}

#[cfg(test)]
mod tests {
    use camino::Utf8Path;

    use super::{report_for, tools, ReportKind, TEST_TIMEOUT};
    use crate::task::{OutputReader, Task, TestReport};

    fn parse(text: &str) -> Result<Task, String> {
        Task::parse(Utf8Path::new("mend.toml"), text).map_err(|err| err.message)
    }

    /// A hand-written task file gives only what mend cannot guess: the paths and the command.
    #[test]
    fn a_task_file_needs_only_its_paths_and_command() {
        let task = parse(
            "[paths]\nreadable = [\"**\"]\neditable = [\"src/**\"]\n\n\
             [test]\ncommand = [\"cargo\", \"test\", \"-q\"]\n",
        )
        .unwrap();
        assert_eq!(
            (
                task.test.report,
                task.test.timeout,
                task.tools,
                task.warnings
            ),
            (
                TestReport::Output(OutputReader::Libtest),
                TEST_TIMEOUT,
                tools(),
                Vec::<String>::new()
            )
        );
    }

    #[test]
    fn a_missing_table_or_key_is_named_where_it_belongs() {
        let messages = [
            "[test]\ncommand = [\"cargo\", \"test\"]\n",
            "[paths]\nreadable = [\"**\"]\neditable = []\n\n[test]\nfiles = [\"tests/**\"]\n",
            "[paths]\nreadable = [\"**\"]\n\n[test]\ncommand = [\"pytest\"]\n",
        ]
        .map(|text| parse(text).unwrap_err());
        assert_eq!(
            messages,
            [
                "mend.toml:1: the task file has no [paths] table: add [paths] with readable = [\"**\"] and editable = [\"src/**\"] (see docs/task-file.md)",
                "mend.toml:5: [test] needs `command`: add command = [\"python\", \"-m\", \"pytest\", \"-q\"] (see docs/task-file.md)",
                "mend.toml:1: [paths] needs `editable`: add editable = [\"src/**\"] (see docs/task-file.md)",
            ]
        );
    }

    #[test]
    fn the_reader_follows_the_command() {
        let commands: [&[&str]; 12] = [
            &["cargo", "test"],
            &["cargo", "+nightly", "test", "-q", "--", "--test-threads=1"],
            &["/usr/bin/cargo", "test", "--workspace"],
            &["cargo", "nextest", "run"],
            &["python", "-m", "pytest", "-q"],
            &["python3.12", "-I", "-m", "pytest"],
            &[".venv/bin/pytest", "tests"],
            &["python", "tests/runtests.py", "--verbosity", "2"],
            &["go", "test", "./..."],
            &["npx", "jest"],
            &["make", "test"],
            &["tox", "-e", "py312"],
        ];
        let read: Vec<(ReportKind, bool)> = commands
            .iter()
            .map(|argv| {
                let argv: Vec<String> = argv.iter().map(|word| (*word).to_owned()).collect();
                let (kind, warning) = report_for(&argv);
                (kind, warning.is_some())
            })
            .collect();
        assert_eq!(
            read,
            [
                (ReportKind::Libtest, false),
                (ReportKind::Libtest, false),
                (ReportKind::Libtest, false),
                (ReportKind::ExitCode, true),
                (ReportKind::Pytest, false),
                (ReportKind::Pytest, false),
                (ReportKind::Pytest, false),
                (ReportKind::Django, false),
                (ReportKind::ExitCode, true),
                (ReportKind::ExitCode, true),
                (ReportKind::Pytest, false),
                (ReportKind::Pytest, false),
            ]
        );
    }
}
