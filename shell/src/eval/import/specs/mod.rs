//! How SWE-bench's own harness runs the tests of each repository and version it covers, in
//! mend's terms: the command (an argument list, `python` first so the task's interpreter runs
//! it), the variables it sets, and which `test.report` reader reads its output. These are facts
//! of the public harness (its `MAP_REPO_VERSION_TO_SPECS`); a version it does not list is not
//! guessed at. The harness appends the test files the test patch touches to every command
//! (see [`directives`]).

pub(super) mod install;

/// One command for a set of versions of a repository.
struct Spec {
    repo: &'static str,
    /// Space-separated versions, as the instances' `version` field spells them.
    versions: &'static str,
    command: &'static [&'static str],
    env: &'static [&'static str],
    report: &'static str,
}

const PYTEST: &[&str] = &["python", "-m", "pytest", "-rA"];
const PYTEST_NO_HEADER: &[&str] = &["python", "-m", "pytest", "--no-header", "-rA"];
const PYTEST_ASTROPY_OLD: &[&str] = &[
    "python",
    "-m",
    "pytest",
    "-rA",
    "-vv",
    "-o",
    "console_output_style=classic",
    "--tb=no",
    "-p",
    "no:nose",
];
const DJANGO: &[&str] = &[
    "python",
    "./tests/runtests.py",
    "--verbosity",
    "2",
    "--settings=test_sqlite",
    "--parallel",
    "1",
];
const DJANGO_SERIAL: &[&str] = &["python", "./tests/runtests.py", "--verbosity", "2"];
const SYMPY: &[&str] = &["python", "bin/test", "-C", "--verbose"];
const SPHINX: &[&str] = &["tox", "--current-env", "-epy39", "-v", "--"];

const fn pytest(repo: &'static str, versions: &'static str) -> Spec {
    Spec {
        repo,
        versions,
        command: PYTEST,
        env: &[],
        report: "pytest-ra",
    }
}

const SPECS: &[Spec] = &[
    pytest("astropy/astropy", "3.0 3.1 3.2 4.1 4.2 4.3 5.0 5.1 5.2 v5.3"),
    Spec {
        command: PYTEST_ASTROPY_OLD,
        ..pytest("astropy/astropy", "0.1 0.2 0.3 0.4 1.1 1.2 1.3")
    },
    Spec {
        repo: "django/django",
        versions: "1.4 1.5 1.6 1.7 1.8 1.10 1.11 2.0 2.1 2.2 3.0 3.1 3.2 4.0 4.1 4.2 5.0 5.1 5.2",
        command: DJANGO,
        env: &["LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8", "PYTHONIOENCODING=utf8", "LANGUAGE=en_US:en"],
        report: "django",
    },
    Spec {
        repo: "django/django",
        versions: "1.9",
        command: DJANGO_SERIAL,
        env: &["LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8", "PYTHONIOENCODING=utf8", "LANGUAGE=en_US:en"],
        report: "django",
    },
    pytest("matplotlib/matplotlib", "1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2 3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7 3.8 3.9"),
    pytest("marshmallow-code/marshmallow", "2.18 2.19 2.20 3.0 3.1 3.2 3.4 3.8 3.9 3.10 3.11 3.12 3.13 3.15 3.16 3.19"),
    Spec {
        command: PYTEST_NO_HEADER,
        ..pytest("mwaskom/seaborn", "0.11 0.12 0.13 0.14")
    },
    pytest("pallets/flask", "2.0 2.1 2.2 2.3 3.0 3.1"),
    pytest("psf/requests", "0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10 2.11 2.12 2.17 2.18 2.19 2.22 2.25 2.26 2.27 2.31 3.0"),
    pytest("pvlib/pvlib-python", "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9"),
    pytest("pydata/xarray", "0.12 0.18 0.19 0.20 2022.03 2022.06 2022.09 2023.07 2024.05"),
    pytest("pydicom/pydicom", "1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2 2.3 2.4 3.0"),
    pytest("pylint-dev/astroid", "2.5 2.6 2.7 2.8 2.9 2.10 2.12 2.13 2.14 2.15 2.16 3.0"),
    pytest("pylint-dev/pylint", "2.8 2.9 2.10 2.11 2.13 2.14 2.15 2.16 2.17 3.0 3.1 3.2 3.3 4.0"),
    pytest("pytest-dev/pytest", "4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0 6.2 6.3 7.0 7.1 7.2 7.4 8.0 8.1 8.2 8.3 8.4"),
    pytest("pyvista/pyvista", "0.20 0.21 0.22 0.23 0.24 0.25 0.26 0.27 0.28 0.29 0.30 0.31 0.32 0.33 0.34 0.35 0.36 0.37 0.38 0.39 0.40 0.41 0.42 0.43"),
    pytest("scikit-learn/scikit-learn", "0.20 0.21 0.22 1.3 1.4 1.5 1.6"),
    Spec {
        command: SPHINX,
        ..pytest("sphinx-doc/sphinx", "1.5 1.6 1.7 1.8 2.0 2.1 2.2 2.3 2.4 3.0 3.1 3.2 3.3 3.4 3.5 4.0 4.1 4.2 4.3 4.4 4.5 5.0 5.1 5.2 5.3 6.0 6.2 7.0 7.1 7.2 7.3 7.4 8.0 8.1")
    },
    pytest("sqlfluff/sqlfluff", "0.4 0.5 0.6 0.8 0.9 0.10 0.11 0.12 0.13 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2"),
    Spec {
        repo: "sympy/sympy",
        versions: "0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14",
        command: SYMPY,
        env: &["PYTHONWARNINGS=ignore::UserWarning,ignore::SyntaxWarning"],
        report: "sympy",
    },
];

/// What the table gives for one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TableCommand {
    pub command: Vec<String>,
    pub env: Vec<String>,
    pub report: &'static str,
}

/// The harness's command for `repo` at `version`, with the test patch's files appended.
pub(super) fn lookup(repo: &str, version: &str, test_patch: Option<&str>) -> Option<TableCommand> {
    let spec = SPECS
        .iter()
        .find(|spec| spec.repo == repo && spec.versions.split(' ').any(|v| v == version))?;
    let mut command: Vec<String> = spec.command.iter().map(|word| (*word).to_owned()).collect();
    command.extend(directives(repo, test_patch.unwrap_or("")));
    Some(TableCommand {
        command,
        env: spec.env.iter().map(|entry| (*entry).to_owned()).collect(),
        report: spec.report,
    })
}

/// Whether the table knows the repository at all (to say why a version is missing).
pub(super) fn knows(repo: &str) -> bool {
    SPECS.iter().any(|spec| spec.repo == repo)
}

/// Files whose changes the harness never runs as tests.
const NOT_TESTS: [&str; 11] = [
    ".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml",
];

/// The harness's test selection: every file the test patch leaves behind (`diff --git a/X b/Y`:
/// Y) that is not data, as django's runner names them for django (`tests/a/b.py` → `a.b`).
pub(super) fn directives(repo: &str, test_patch: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in test_patch.lines() {
        let Some(names) = line.strip_prefix("diff --git a/") else {
            continue;
        };
        let Some((_, file)) = names.rsplit_once(" b/") else {
            continue;
        };
        if NOT_TESTS.iter().any(|ending| file.ends_with(ending)) {
            continue;
        }
        let directive = if repo == "django/django" {
            let module = file.strip_suffix(".py").unwrap_or(file);
            module
                .strip_prefix("tests/")
                .unwrap_or(module)
                .replace('/', ".")
        } else {
            file.to_owned()
        };
        if !found.contains(&directive) {
            found.push(directive);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{directives, lookup, TableCommand};

    const PATCH: &str = "diff --git a/tests/queries/test_q.py b/tests/queries/test_q.py\n--- a/tests/queries/test_q.py\n+++ b/tests/queries/test_q.py\n\
                         diff --git a/tests/queries/models.py b/tests/queries/models.py\n\
                         diff --git a/tests/data/fixture.json b/tests/data/fixture.json\n";

    #[test]
    fn django_gets_its_runner_with_test_modules_and_sympy_its_variables() {
        let strings = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            lookup("django/django", "3.0", Some(PATCH)),
            Some(TableCommand {
                command: strings(&[
                    "python",
                    "./tests/runtests.py",
                    "--verbosity",
                    "2",
                    "--settings=test_sqlite",
                    "--parallel",
                    "1",
                    "queries.test_q",
                    "queries.models"
                ]),
                env: strings(&[
                    "LANG=en_US.UTF-8",
                    "LC_ALL=en_US.UTF-8",
                    "PYTHONIOENCODING=utf8",
                    "LANGUAGE=en_US:en"
                ]),
                report: "django",
            })
        );
        assert_eq!(
            lookup("django/django", "1.9", None).map(|found| found.command.len()),
            Some(4)
        );
        assert_eq!(
            lookup(
                "sympy/sympy",
                "1.12",
                Some("diff --git a/sympy/core/tests/test_x.py b/sympy/core/tests/test_x.py\n")
            ),
            Some(TableCommand {
                command: strings(&[
                    "python",
                    "bin/test",
                    "-C",
                    "--verbose",
                    "sympy/core/tests/test_x.py"
                ]),
                env: strings(&["PYTHONWARNINGS=ignore::UserWarning,ignore::SyntaxWarning"]),
                report: "sympy",
            })
        );
    }

    /// The harness's set-up lines cover exactly the repositories and versions whose tests it
    /// runs: a version added to one table and not the other fails here.
    #[test]
    fn the_set_up_table_covers_the_test_commands_table() {
        let mut commands: Vec<(&str, &str)> = super::SPECS
            .iter()
            .flat_map(|spec| spec.versions.split(' ').map(|v| (spec.repo, v)))
            .collect();
        let mut set_up = super::install::covered();
        commands.sort_unstable();
        set_up.sort_unstable();
        assert_eq!(commands, set_up);
    }

    #[test]
    fn an_unknown_version_or_repository_gets_nothing() {
        assert_eq!(
            [
                lookup("django/django", "9.9", None),
                lookup("me/mine", "1.0", None)
            ],
            [None, None]
        );
        assert_eq!(
            directives("psf/requests", PATCH),
            ["tests/queries/test_q.py", "tests/queries/models.py"]
        );
    }
}
