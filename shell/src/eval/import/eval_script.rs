//! A swebench 5.x row's `eval_script`: the whole bash script the harness runs in the instance's
//! container. mend runs the test patch and the test run itself, so it takes three parts of it:
//! the lines that shape the environment (`source …/activate`, `conda activate`, `export`), which
//! run before the test command in the same shell, as the harness runs them; the set-up lines
//! (an install, a build); and the test command between the harness's
//! `: '>>>>> Start Test Output'` and `: '>>>>> End Test Output'` markers. The script's git
//! housekeeping (status, show, diff, checking out and applying the test files) is mend's own
//! work and is left out.

use super::error::RowError;

const START: &str = ">>>>> Start Test Output";
const END: &str = ">>>>> End Test Output";

/// What mend takes of one `eval_script`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct EvalScript {
    /// Lines that set the environment up for the shell the tests run in, in order, once each.
    pub activate: Vec<String>,
    /// Lines that change the checkout before the tests (installs, builds), in order.
    pub setup: Vec<String>,
    /// The test command's lines.
    pub test: Vec<String>,
}

impl EvalScript {
    /// The test command as one bash line: the environment's lines, then the tests. `bash`, as
    /// the harness runs the script (`source` is no POSIX `sh` word).
    pub(super) fn command(&self) -> Vec<String> {
        let mut lines = self.activate.clone();
        lines.extend(self.test.iter().cloned());
        vec!["bash".to_owned(), "-c".to_owned(), lines.join("\n")]
    }
}

pub(super) fn read(script: &str) -> Result<EvalScript, RowError> {
    let lines: Vec<&str> = script.lines().collect();
    let marker = |word: &str| lines.iter().position(|line| is_marker(line, word));
    let (Some(start), Some(end)) = (marker(START), marker(END)) else {
        return Err(RowError::unfit(format!(
            "`eval_script` has no `: '{START}'` … `: '{END}'` markers around its test command"
        )));
    };
    if end <= start + 1 {
        return Err(RowError::unfit(
            "`eval_script` has no test command between its markers",
        ));
    }
    let mut read = EvalScript {
        test: lines[start + 1..end]
            .iter()
            .map(|line| (*line).to_owned())
            .collect(),
        ..EvalScript::default()
    };
    let mut heredoc: Option<String> = None;
    for line in &lines[..start] {
        let line = line.trim();
        if let Some(delimiter) = &heredoc {
            if line == delimiter {
                heredoc = None;
            }
            continue;
        }
        if let Some(delimiter) = heredoc_delimiter(line) {
            heredoc = Some(delimiter);
            continue;
        }
        match kind(line) {
            Line::Skipped => {}
            Line::Environment if read.activate.iter().any(|seen| seen == line) => {}
            Line::Environment => read.activate.push(line.to_owned()),
            Line::Setup => read.setup.push(line.to_owned()),
        }
    }
    Ok(read)
}

enum Line {
    /// Empty, a comment, the shebang, `set`, `cd` (mend runs in the repository's root), git.
    Skipped,
    Environment,
    Setup,
}

fn kind(line: &str) -> Line {
    let first = line.split_whitespace().next().unwrap_or("");
    if line.is_empty() || line.starts_with('#') || matches!(first, "set" | "cd" | "git" | ":") {
        Line::Skipped
    } else if matches!(first, "source" | "." | "export" | "unset")
        || line.starts_with("conda activate")
    {
        Line::Environment
    } else {
        Line::Setup
    }
}

fn is_marker(line: &str, word: &str) -> bool {
    let line = line.trim();
    line.starts_with(':') && line.contains(word)
}

/// `git apply -v - <<'EOF_1143'` opens a here-document that runs to a line `EOF_1143`.
fn heredoc_delimiter(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("<<")?;
    let word = rest.trim().trim_start_matches('-').trim();
    let word = word.trim_matches(|c| c == '\'' || c == '"');
    (!word.is_empty()).then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::{read, EvalScript};

    /// A script in the shape swebench 5.x writes for a pytest instance.
    const SCRIPT: &str = "#!/bin/bash\nset -uxo pipefail\nsource /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\ngit config --global --add safe.directory /testbed\ncd /testbed\ngit status\ngit show\ngit -c core.fileMode=false diff 0123abc\nsource /opt/miniconda3/bin/activate\nconda activate testbed\npython -m pip install -e .\ngit checkout 0123abc tests/test_calc.py\ngit apply -v - <<'EOF_114329324912'\ndiff --git a/tests/test_calc.py b/tests/test_calc.py\n+export NOT_A_LINE=1\nEOF_114329324912\n: '>>>>> Start Test Output'\npytest -rA tests/test_calc.py\n: '>>>>> End Test Output'\ngit checkout 0123abc tests/test_calc.py\n";

    #[test]
    fn the_environment_the_setup_and_the_test_command_are_taken_apart() {
        let script = read(SCRIPT).expect("script");
        assert_eq!(
            script,
            EvalScript {
                activate: vec![
                    "source /opt/miniconda3/bin/activate".to_owned(),
                    "conda activate testbed".to_owned()
                ],
                setup: vec!["python -m pip install -e .".to_owned()],
                test: vec!["pytest -rA tests/test_calc.py".to_owned()],
            }
        );
        assert_eq!(
            script.command(),
            [
                "bash",
                "-c",
                "source /opt/miniconda3/bin/activate\nconda activate testbed\npytest -rA tests/test_calc.py"
            ]
        );
    }

    #[test]
    fn a_script_without_its_markers_is_refused() {
        assert_eq!(
            [read("#!/bin/bash\npytest -rA\n"), read(": '>>>>> Start Test Output'\n: '>>>>> End Test Output'\n")]
                .map(|read| read.map_err(|err| err.to_string())),
            [
                Err("`eval_script` has no `: '>>>>> Start Test Output'` … `: '>>>>> End Test Output'` markers around its test command".to_owned()),
                Err("`eval_script` has no test command between its markers".to_owned()),
            ]
        );
    }
}
