//! Which test command an imported task runs: the row's own (`test_cmd`, `test_cmds`), else the
//! one SWE-bench's harness runs for the row's repository and version ([`super::specs`]), else
//! the one given to the import (`--test-command`). The import says which for every task.

use super::row::{Instance, RowCommand};
use super::specs;

/// The command a task file gets, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chosen {
    pub command: Vec<String>,
    pub env: Vec<String>,
    pub report: String,
    /// Where the command came from, in words: `the row's test_cmd`, `mend's table for
    /// django/django 3.0`, `--test-command`.
    pub source: String,
}

/// `--test-command` (and `--test-report`), given to the import for rows nothing else covers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Fallback {
    pub command: Option<String>,
    pub report: Option<String>,
}

pub(super) fn choose(instance: &Instance, fallback: &Fallback) -> Result<Chosen, String> {
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
            });
        }
    }
    if let Some(command) = &fallback.command {
        return Ok(given(command, fallback, "--test-command".to_owned()));
    }
    let why = match (&instance.repo, &instance.version) {
        (Some(repo), Some(version)) if specs::knows(repo) => {
            format!("mend's table has {repo} but not its version {version}")
        }
        (Some(repo), _) if !specs::knows(repo) => format!("mend's table has no {repo}"),
        (Some(_), None) => "the row has no `version` to look up in mend's table".to_owned(),
        _ => "the row has no `repo` to look up in mend's table".to_owned(),
    };
    Err(format!(
        "no test command: the row has no `test_cmd`/`test_cmds` and {why} — give the import --test-command"
    ))
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
    fn without_a_command_the_row_is_refused_naming_what_is_missing() {
        let none = Fallback::default();
        let why = |line: &str| choose(&read(line).expect("row"), &none).expect_err(line);
        assert_eq!(
            [
                why(r#"{"instance_id":"a","problem_statement":"p","repo":"django/django","version":"0.1"}"#),
                why(r#"{"instance_id":"a","problem_statement":"p","repo":"me/mine","version":"1"}"#),
            ],
            [
                "no test command: the row has no `test_cmd`/`test_cmds` and mend's table has django/django but not its version 0.1 — give the import --test-command",
                "no test command: the row has no `test_cmd`/`test_cmds` and mend's table has no me/mine — give the import --test-command",
            ]
        );
    }
}
