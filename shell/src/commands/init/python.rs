//! Which Python `mend init` expects to run a project's tests, whether pytest is there, and what
//! uv, poetry or `.python-version` say about the project's interpreter.

use std::process::{Command, Stdio};

use camino::{Utf8Path, Utf8PathBuf};

use crate::exec::interpreter::{self, Found, Interpreter};

pub(super) struct PythonFacts {
    pub path: Utf8PathBuf,
    found: Found,
    /// `Python 3.11.2, pytest 8.3.3`, or what is missing.
    versions: Result<String, NoPytest>,
    pub notes: Vec<String>,
}

impl PythonFacts {
    pub(super) fn summary(&self) -> String {
        let versions = match &self.versions {
            Ok(versions) => versions,
            Err(_) => "no pytest there (see the note below)",
        };
        format!("{} ({}): {versions}", self.path, self.found.describe())
    }
}

/// What `mend verify` in `repo` would use, checked by running it once.
pub(super) fn facts(repo: &Utf8Path) -> PythonFacts {
    let Interpreter { path, found } = interpreter::unless_given(repo);
    let versions = versions(&path);
    let mut notes = Vec::new();
    if let Err(missing) = &versions {
        notes.push(missing.to_string());
    }
    let in_repo = matches!(found, Found::RepoVenv(_));
    let pyproject = std::fs::read_to_string(repo.join("pyproject.toml")).unwrap_or_default();
    if !in_repo && (repo.join("uv.lock").is_file() || pyproject.contains("[tool.uv")) {
        notes.push(match variable("UV_PROJECT_ENVIRONMENT") {
            Some(venv) => format!(
                "uv keeps this project's venv in $UV_PROJECT_ENVIRONMENT ({venv}), where mend does not look: \
                 pass --python {venv}/bin/python or export MEND_PYTHON={venv}/bin/python"
            ),
            None => "the project uses uv, which keeps its venv in .venv: run `uv sync` (with pytest among the \
                     dev dependencies) and mend finds .venv/bin/python by itself"
                .to_owned(),
        });
    }
    if !in_repo && (repo.join("poetry.lock").is_file() || pyproject.contains("[tool.poetry")) {
        notes.push(match poetry_venv(repo) {
            Some(venv) => format!(
                "poetry's venv for this project is {venv}, where mend does not look: pass --python \
                 {venv}/bin/python or export MEND_PYTHON={venv}/bin/python (or run `poetry config \
                 virtualenvs.in-project true` and `poetry install`, which makes .venv)"
            ),
            None => "the project uses poetry: run `poetry config virtualenvs.in-project true` and \
                     `poetry install`, which makes .venv, where mend looks"
                .to_owned(),
        });
    }
    if let Some(wanted) = std::fs::read_to_string(repo.join(".python-version"))
        .ok()
        .and_then(|text| text.lines().next().map(|line| line.trim().to_owned()))
        .filter(|wanted| !wanted.is_empty())
    {
        let matches = versions
            .as_ref()
            .is_ok_and(|found| found.starts_with(&format!("Python {wanted}")));
        if !matches {
            notes.push(format!(
                ".python-version asks for Python {wanted}; check that {path} is the interpreter you mean"
            ));
        }
    }
    PythonFacts {
        path,
        found,
        versions,
        notes,
    }
}

/// Why the interpreter gives no pytest; its `Display` says the fix, as a note of `mend init`.
#[derive(Debug)]
enum NoPytest {
    /// The interpreter cannot be started.
    CannotStart {
        python: Utf8PathBuf,
        source: std::io::Error,
    },
    /// It runs, but `import pytest` fails; `printed` is what it said before.
    NotInstalled {
        python: Utf8PathBuf,
        printed: String,
    },
}

impl std::fmt::Display for NoPytest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoPytest::CannotStart { python, source } => write!(f, "{python} cannot start ({source}): make a venv with pytest in the repository (`python3 -m venv .venv && .venv/bin/pip install pytest`) or pass --python PATH"),
            NoPytest::NotInstalled { python, printed } => write!(
                f,
                "pytest is not installed for {python} ({printed}): install it with `{python} -m pip install pytest`"
            ),
        }
    }
}

impl std::error::Error for NoPytest {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NoPytest::CannotStart { source, .. } => Some(source),
            NoPytest::NotInstalled { .. } => None,
        }
    }
}

/// `Python X, pytest Y` by asking the interpreter; else what is missing and the fix.
fn versions(python: &Utf8Path) -> Result<String, NoPytest> {
    let output = Command::new(python)
        .args([
            "-c",
            "import sys; print('Python', sys.version.split()[0], end=''); import pytest; print(', pytest', pytest.__version__)",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|source| NoPytest::CannotStart {
            python: python.to_owned(),
            source,
        })?;
    let printed = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() {
        Ok(printed)
    } else {
        Err(NoPytest::NotInstalled {
            python: python.to_owned(),
            printed,
        })
    }
}

/// `poetry env info --path`, when poetry is installed and knows a venv for the project.
fn poetry_venv(repo: &Utf8Path) -> Option<String> {
    let output = Command::new("poetry")
        .args(["env", "info", "--path"])
        .current_dir(repo)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let venv = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && Utf8Path::new(&venv).join("bin/python").exists()).then_some(venv)
}

fn variable(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}
