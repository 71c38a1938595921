//! Whether a test run never reached a runner because the environment lacks it: the shell found
//! no such program (exit 127) or could not execute it (exit 126), or Python found no module for
//! the command's `-m MODULE` (`python -m pytest` where pytest is not installed). Such a run says
//! nothing of the tests, or of the task: the environment is what needs the fix.

/// The line of `output` that says the runner of `argv` is missing, when the run exited with
/// `exit_code` for that reason.
pub(crate) fn missing_runner(
    argv: &[String],
    exit_code: Option<i32>,
    output: &str,
) -> Option<String> {
    let lines = || {
        output
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
    };
    if let Some(126 | 127) = exit_code {
        let said = lines()
            .rfind(|line| {
                line.contains("not found")
                    || line.contains("No such file")
                    || line.contains("Permission denied")
            })
            .map_or_else(
                || format!("the command exited {}", exit_code.unwrap_or_default()),
                str::to_owned,
            );
        return Some(said);
    }
    let module = argv
        .windows(2)
        .find(|pair| pair[0] == "-m")
        .map(|pair| pair[1].as_str())?;
    let top = module.split('.').next().unwrap_or(module);
    lines()
        .find(|line| {
            [module, top].iter().any(|name| {
                line.ends_with(&format!("No module named {name}"))
                    || line.ends_with(&format!("No module named '{name}'"))
            })
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::missing_runner;

    fn argv(words: &str) -> Vec<String> {
        words.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn python_without_the_module_the_command_runs_is_a_missing_runner() {
        assert_eq!(
            missing_runner(
                &argv("/opt/py/bin/python -m pytest -q"),
                Some(1),
                "/opt/py/bin/python: No module named pytest\n"
            ),
            Some("/opt/py/bin/python: No module named pytest".to_owned())
        );
        assert_eq!(
            missing_runner(
                &argv("python3 -m unittest.main"),
                Some(1),
                "python3: No module named 'unittest'\n"
            ),
            Some("python3: No module named 'unittest'".to_owned())
        );
    }

    #[test]
    fn a_program_the_shell_cannot_find_or_run_is_a_missing_runner() {
        assert_eq!(
            missing_runner(&argv("sh -c tox"), Some(127), "sh: 1: tox: not found\n"),
            Some("sh: 1: tox: not found".to_owned())
        );
        assert_eq!(
            missing_runner(&argv("./run-tests"), Some(126), ""),
            Some("the command exited 126".to_owned())
        );
    }

    #[test]
    fn a_module_the_tests_import_is_the_project_s_not_the_runner_s() {
        // The runner started and could not import what the tests need: the task's business.
        let output = "E   ModuleNotFoundError: No module named 'helpers'\n1 error in 0.1s\n";
        assert_eq!(
            missing_runner(&argv("python -m pytest"), Some(2), output),
            None
        );
        assert_eq!(
            missing_runner(&argv("pytest"), Some(1), "python: No module named pytest\n"),
            None
        );
        assert_eq!(
            missing_runner(&argv("python -m pytest"), Some(1), "1 failed\n"),
            None
        );
    }
}
