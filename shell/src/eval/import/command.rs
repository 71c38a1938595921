//! Which test command an imported task runs: the row's own (`test_cmd`, `test_cmds`), else the
//! one SWE-bench's harness runs for the row's repository and version ([`super::specs`]), else
//! the one given to the import (`--test-command`), else, for a repository the table does not
//! have, `python -m pytest -rA` with the test patch's files. A swebench 5.x row's `eval_script`
//! comes first, and its `log_parser` names the reader. The import says which for every task.

use super::error::RowError;
use super::eval_script;
use super::row::{Instance, RowCommand};
use super::specs;
use crate::task::log_parser::{EvalType, LogParser};

/// The command a task file gets, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chosen {
    pub command: Vec<String>,
    pub env: Vec<String>,
    pub report: String,
    /// Where the command came from, in words: `the row's test_cmd`, `mend's table for
    /// django/django 3.0`, `--test-command`.
    pub source: String,
    /// Lines the harness runs before the tests (installs, builds), from a 5.x `eval_script`.
    pub setup: Vec<String>,
}

/// `--test-command` (and `--test-report`), given to the import for rows nothing else covers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Fallback {
    pub command: Option<String>,
    pub report: Option<String>,
}

pub(super) fn choose(instance: &Instance, fallback: &Fallback) -> Result<Chosen, RowError> {
    let mut chosen = command_of(instance, fallback)?;
    if let Some(name) = &instance.log_parser {
        let parser = LogParser::named(name).ok_or_else(|| unknown_parser(name))?;
        chosen.report = parser.report().to_owned();
    }
    if let Some(name) = &instance.eval_type {
        EvalType::named(name).ok_or_else(|| {
            RowError::unfit(format!(
                "`eval_type` {name:?} is neither \"pass_and_fail\" nor \"fail_only\""
            ))
        })?;
    }
    Ok(chosen)
}

/// Why a row whose `log_parser` mend cannot stand in for is refused.
pub(super) fn unknown_parser(name: &str) -> RowError {
    RowError::unfit(format!(
        "`log_parser` {name} reads a runner mend has no reader for (mend reads the logs of {})",
        LogParser::known_names().join(", ")
    ))
}

fn command_of(instance: &Instance, fallback: &Fallback) -> Result<Chosen, RowError> {
    if let Some(script) = &instance.eval_script {
        let script = eval_script::read(script)?;
        let mut chosen = given(
            &script.test.join("\n"),
            fallback,
            "the row's eval_script".to_owned(),
        );
        chosen.command = script.command();
        chosen.setup = script.setup;
        return Ok(chosen);
    }
    if let Some(command) = &instance.command {
        let (text, field) = match command {
            RowCommand::One(one) => (one.clone(), "test_cmd"),
            RowCommand::Many(many) => (many.join("\n"), "test_cmds"),
        };
        return Ok(given(&text, fallback, format!("the row's {field}")));
    }
    if let (Some(repo), Some(version)) = (&instance.repo, &instance.version) {
        if let Some(found) = specs::lookup(repo, version, instance.test_patch.as_deref()) {
            return Ok(Chosen {
                command: found.command,
                env: found.env,
                report: found.report.to_owned(),
                source: format!("mend's table for {repo} {version}"),
                setup: Vec::new(),
            });
        }
    }
    if let Some(command) = &fallback.command {
        return Ok(given(command, fallback, "--test-command".to_owned()));
    }
    if let Some(repo) = instance.repo.as_deref().filter(|repo| !specs::knows(repo)) {
        let mut command: Vec<String> = ["python", "-m", "pytest", "-rA"].map(str::to_owned).into();
        command.extend(specs::directives(
            repo,
            instance.test_patch.as_deref().unwrap_or(""),
        ));
        return Ok(Chosen {
            command,
            env: Vec::new(),
            report: "pytest-ra".to_owned(),
            source: format!(
                "pytest -rA, as for every repository mend's table does not have ({repo})"
            ),
            setup: Vec::new(),
        });
    }
    let why = match (&instance.repo, &instance.version) {
        (Some(repo), Some(version)) if specs::knows(repo) => {
            format!("mend's table has {repo} but not its version {version}")
        }
        (Some(_), None) => "the row has no `version` to look up in mend's table".to_owned(),
        _ => "the row has no `repo` to look up in mend's table".to_owned(),
    };
    Err(RowError::unfit(format!(
        "no test command: the row has no `test_cmd`/`test_cmds` and {why} — give the import --test-command"
    )))
}

/// A command written as a shell line: run as it is written, by `sh -c` when it needs a shell
/// (operators, quotes, variables), else as its words.
fn given(text: &str, fallback: &Fallback, source: String) -> Chosen {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " _./:=,+@%-".contains(c));
    let command = if plain {
        text.split_whitespace().map(str::to_owned).collect()
    } else {
        vec!["sh".to_owned(), "-c".to_owned(), text.to_owned()]
    };
    let report = fallback.report.clone().unwrap_or_else(|| {
        if text.contains("pytest") {
            "pytest"
        } else if text.contains("runtests.py") {
            "django"
        } else if text.contains("bin/test") {
            "sympy"
        } else {
            "exit_code"
        }
        .to_owned()
    });
    Chosen {
        command,
        env: Vec::new(),
        report,
        source,
        setup: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{choose, Chosen, Fallback};
    use crate::eval::import::row::read;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn the_row_then_the_table_then_the_flag_decide() {
        let fallback = Fallback {
            command: Some("python -m pytest -q".to_owned()),
            report: None,
        };
        let rows = [
            r#"{"instance_id":"a","problem_statement":"p","repo":"psf/requests","version":"2.0","test_cmds":["make build","pytest -rA tests/t.py"]}"#,
            r#"{"instance_id":"a","problem_statement":"p","repo":"psf/requests","version":"2.0","test_cmd":"tox -e py"}"#,
            r#"{"instance_id":"a","problem_statement":"p","repo":"psf/requests","version":"2.0"}"#,
            r#"{"instance_id":"a","problem_statement":"p","repo":"me/mine","version":"2.0"}"#,
        ];
        let got: Vec<Chosen> = rows
            .iter()
            .map(|line| choose(&read(line).expect("row"), &fallback).expect("chosen"))
            .collect();
        let chosen = |command: Vec<String>, report: &str, source: &str| Chosen {
            command,
            env: Vec::new(),
            report: report.to_owned(),
            source: source.to_owned(),
            setup: Vec::new(),
        };
        assert_eq!(
            got,
            [
                chosen(
                    vec![
                        "sh".to_owned(),
                        "-c".to_owned(),
                        "make build\npytest -rA tests/t.py".to_owned()
                    ],
                    "pytest",
                    "the row's test_cmds"
                ),
                chosen(words("tox -e py"), "exit_code", "the row's test_cmd"),
                chosen(
                    words("python -m pytest -rA"),
                    "pytest-ra",
                    "mend's table for psf/requests 2.0"
                ),
                chosen(words("python -m pytest -q"), "pytest", "--test-command"),
            ]
        );
    }

    #[test]
    fn a_repository_the_table_lacks_gets_pytest_with_the_test_patch_files() {
        let row = r#"{"instance_id":"a","problem_statement":"p","repo":"me/mine","version":"1","test_patch":"diff --git a/tests/test_x.py b/tests/test_x.py\ndiff --git a/tests/data.json b/tests/data.json\n"}"#;
        assert_eq!(
            choose(&read(row).expect("row"), &Fallback::default()).map_err(|err| err.to_string()),
            Ok(Chosen {
                command: words("python -m pytest -rA tests/test_x.py"),
                env: Vec::new(),
                report: "pytest-ra".to_owned(),
                source: "pytest -rA, as for every repository mend's table does not have (me/mine)"
                    .to_owned(),
                setup: Vec::new(),
            })
        );
    }

    #[test]
    fn a_5x_row_runs_its_eval_script_read_by_its_log_parser() {
        let script = "#!/bin/bash\nset -uxo pipefail\nsource /opt/conda/bin/activate\nconda activate testbed\ncd /testbed\npip install -e .\ngit checkout abc t.py\n: '>>>>> Start Test Output'\n./tests/runtests.py --verbosity 2 queries\n: '>>>>> End Test Output'\n";
        let row = |parser: &str, eval_type: &str| {
            serde_json::json!({"instance_id": "a", "problem_statement": "p", "repo": "django/django", "version": "3.0", "eval_script": script, "log_parser": parser, "eval_type": eval_type}).to_string()
        };
        let choose_row = |line: String| {
            choose(&read(&line).expect("row"), &Fallback::default()).map_err(|err| err.to_string())
        };
        assert_eq!(
            choose_row(row("parse_log_pytest", "pass_and_fail")),
            Ok(Chosen {
                command: vec![
                    "bash".to_owned(),
                    "-c".to_owned(),
                    "source /opt/conda/bin/activate\nconda activate testbed\n./tests/runtests.py --verbosity 2 queries".to_owned()
                ],
                env: Vec::new(),
                report: "pytest-ra".to_owned(),
                source: "the row's eval_script".to_owned(),
                setup: vec!["pip install -e .".to_owned()],
            })
        );
        assert_eq!(
            [
                choose_row(row("parse_log_django", "fail_only")),
                choose_row(row("parse_log_go_test", "pass_and_fail")),
                choose_row(row("parse_log_django", "some")),
            ]
            .map(|chosen| chosen.map(|chosen| chosen.report)),
            [
                Ok("django".to_owned()),
                Err(super::unknown_parser("parse_log_go_test").to_string()),
                Err(
                    "`eval_type` \"some\" is neither \"pass_and_fail\" nor \"fail_only\""
                        .to_owned()
                ),
            ]
        );
        assert!(super::unknown_parser("x").to_string().starts_with("`log_parser` x reads a runner mend has no reader for (mend reads the logs of parse_log_pytest, "));
    }

    #[test]
    fn without_a_command_the_row_is_refused_naming_what_is_missing() {
        let none = Fallback::default();
        let why = |line: &str| {
            choose(&read(line).expect("row"), &none)
                .expect_err(line)
                .to_string()
        };
        assert_eq!(
            [
                why(r#"{"instance_id":"a","problem_statement":"p","repo":"django/django","version":"0.1"}"#),
                why(r#"{"instance_id":"a","problem_statement":"p","version":"1"}"#),
            ],
            [
                "no test command: the row has no `test_cmd`/`test_cmds` and mend's table has django/django but not its version 0.1 — give the import --test-command",
                "no test command: the row has no `test_cmd`/`test_cmds` and the row has no `repo` to look up in mend's table — give the import --test-command",
            ]
        );
    }
}
