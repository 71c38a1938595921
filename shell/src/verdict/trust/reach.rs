//! Added lines that reach into the test run itself: the code under test runs in the tests'
//! process, so a change can talk to pytest, rewrite its report or end the process before the
//! report is written. None of these is proof of cheating (a CLI reads `sys.argv`), so they are
//! warnings a person reads beside the verdict, never a verdict of their own.

use crate::verdict::trust::python_reach::PythonReach;

/// What to look for in an added line, and what it can do to a test run.
const REACHES: [(&str, &str); 11] = [
    (
        "PYTEST_",
        "pytest's variables (PYTEST_ADDOPTS: its command line)",
    ),
    ("_pytest", "pytest's internals"),
    ("junit", "the test report"),
    (
        "atexit",
        "code that runs after the tests, before the process ends",
    ),
    (
        "os._exit",
        "ending the process before the report is written",
    ),
    ("sys.argv", "the command line"),
    (
        "builtins",
        "Python's builtins (assert helpers, open, print)",
    ),
    ("conftest", "pytest's configuration files"),
    ("sitecustomize", "code every Python process runs at start"),
    (
        ".pth",
        "import-path files every Python process reads at start",
    ),
    ("mend_witness", "mend's own witness of the test run"),
];

/// How many places a warning names; the count says how many more there are.
const NAMED_PLACES: usize = 10;

/// What a person is warned of in a change (`diff`, a unified diff): the lines that reach into the
/// test run, each added Python node the syntax-tree reader named (`python_reaches`; `None`: it
/// could not read, so the Python lines are searched as text).
pub(crate) fn change_warnings(diff: &str, python_reaches: Option<&[PythonReach]>) -> Vec<String> {
    let mut warnings = reaches_into_tests(diff, python_reaches.is_some());
    warnings.extend(
        python_reaches
            .unwrap_or_default()
            .iter()
            .map(PythonReach::describe),
    );
    warnings
}

/// The warnings for the added lines of `diff` (a unified diff): one per kind of reach, naming
/// the files where it was found; Python files left out when `python_read` (their syntax tree
/// was read instead, see [`crate::verdict::trust::python_reach`]).
pub(crate) fn reaches_into_tests(diff: &str, python_read: bool) -> Vec<String> {
    let mut file = "";
    let mut found: Vec<(&str, &str, Vec<String>)> = Vec::new();
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            file = path.strip_prefix("b/").unwrap_or(path);
            continue;
        }
        let Some(added) = line.strip_prefix('+') else {
            continue;
        };
        if python_read && file.ends_with(".py") {
            continue;
        }
        let lower = added.to_lowercase();
        for (needle, what) in REACHES {
            let hit = if needle == "junit" {
                lower.contains(needle)
            } else {
                added.contains(needle)
            };
            if !hit {
                continue;
            }
            match found.iter_mut().find(|(seen, _, _)| *seen == needle) {
                Some((_, _, files)) if files.iter().any(|seen| seen == file) => {}
                Some((_, _, files)) => files.push(file.to_owned()),
                None => found.push((needle, what, vec![file.to_owned()])),
            }
        }
    }
    found
        .into_iter()
        .map(|(needle, what, files)| {
            let more = files.len().saturating_sub(NAMED_PLACES);
            let mut named = files
                .into_iter()
                .take(NAMED_PLACES)
                .collect::<Vec<_>>()
                .join(", ");
            if more > 0 {
                named.push_str(&format!(" and {more} more"));
            }
            format!("the change adds `{needle}` ({what}) in {named}: check it does not game the test run")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::reaches_into_tests;

    #[test]
    fn added_lines_that_reach_into_the_test_run_are_named_with_their_files() {
        let diff = "\
--- a/src/pkg/__init__.py
+++ b/src/pkg/__init__.py
@@ -1,2 +1,4 @@
+import atexit, os
+atexit.register(lambda: os._exit(0))
 import sys
-print(sys.argv)
--- a/src/pkg/cli.py
+++ b/src/pkg/cli.py
@@ -1 +1,2 @@
+open('report-JUnit.xml', 'w')
";
        assert_eq!(
            reaches_into_tests(diff, false),
            [
                "the change adds `atexit` (code that runs after the tests, before the process ends) in src/pkg/__init__.py: check it does not game the test run",
                "the change adds `os._exit` (ending the process before the report is written) in src/pkg/__init__.py: check it does not game the test run",
                "the change adds `junit` (the test report) in src/pkg/cli.py: check it does not game the test run",
            ]
        );
    }

    #[test]
    fn an_honest_repair_and_removed_lines_raise_nothing() {
        let diff = "\
--- a/path_rules.py
+++ b/path_rules.py
@@ -1 +1 @@
-        path = PurePosixPath(sys.argv)
+        path = PurePosixPath(name.replace('\\\\', '/'))
";
        assert_eq!(reaches_into_tests(diff, false), Vec::<String>::new());
    }
}
