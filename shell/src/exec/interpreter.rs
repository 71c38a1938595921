//! Which Python runs a repository's tests: the first of `--python`, the interpreter a record was
//! made with, `$MEND_PYTHON`, the repository's own venv (`.venv`, then `venv`), the active
//! virtualenv (`$VIRTUAL_ENV`), and `python3` on PATH. The repository's venv is looked up in the
//! repository, never in the folder mend runs from.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;

/// The venv folders a repository may keep its interpreter in, in the order they are tried.
pub(crate) const REPO_VENVS: [&str; 2] = [".venv", "venv"];

/// The interpreter chosen and why, so `mend init` can say where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Interpreter {
    pub path: Utf8PathBuf,
    pub found: Found,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    Flag,
    Recorded,
    MendPython,
    /// `REPO/<folder>/bin/python`.
    RepoVenv(&'static str),
    ActiveVirtualenv,
    OnPath,
}

impl Found {
    pub(crate) fn describe(&self) -> String {
        match self {
            Found::Flag => "--python".to_owned(),
            Found::Recorded => "the record".to_owned(),
            Found::MendPython => "$MEND_PYTHON".to_owned(),
            Found::RepoVenv(folder) => format!("the repository's {folder}"),
            Found::ActiveVirtualenv => "the active virtualenv ($VIRTUAL_ENV)".to_owned(),
            Found::OnPath => "python3 on PATH: no venv found".to_owned(),
        }
    }
}

/// The interpreter for `repo`. A recorded interpreter that no longer exists is an error: the
/// replay would silently test with another Python.
pub(crate) fn choose(
    flag: Option<&Utf8Path>,
    recorded: Option<&str>,
    repo: &Utf8Path,
) -> Result<Interpreter, MendError> {
    if let Some(python) = flag {
        // A bare name (`python3.12`) is looked up on PATH when the tests start; a path must be
        // there now, or the failure would surface later as the sandbox's.
        if python.components().count() > 1 && !python.is_file() {
            return Err(MendError::harness(format!(
                "cannot start `{python}`: no such file on this machine (the task names no image, so --python is looked up here) — pass --python the interpreter of the project's venv (e.g. --python .venv/bin/python)"
            )));
        }
        return Ok(found(python.to_path_buf(), Found::Flag));
    }
    if let Some(python) = recorded {
        let python = Utf8PathBuf::from(python);
        if python.components().count() > 1 && !python.exists() {
            return Err(MendError::harness(format!(
                "the record was made with the Python {python}, which does not exist here — pass --python PATH"
            )));
        }
        return Ok(found(python, Found::Recorded));
    }
    Ok(unless_given(repo))
}

/// The interpreter when neither a flag nor a record names one: `$MEND_PYTHON`, else the
/// repository's or the shell's.
pub(crate) fn unless_given(repo: &Utf8Path) -> Interpreter {
    match variable("MEND_PYTHON") {
        Some(python) => found(Utf8PathBuf::from(python), Found::MendPython),
        None => in_repo_or_environment(repo),
    }
}

/// The interpreter the repository or the shell offers, without mend's own overrides.
pub(crate) fn in_repo_or_environment(repo: &Utf8Path) -> Interpreter {
    for folder in REPO_VENVS {
        let python = repo.join(folder).join("bin/python");
        if python.exists() {
            return found(python, Found::RepoVenv(folder));
        }
    }
    if let Some(python) = variable("VIRTUAL_ENV")
        .map(|venv| Utf8PathBuf::from(venv).join("bin/python"))
        .filter(|python| python.exists())
    {
        return found(python, Found::ActiveVirtualenv);
    }
    found(Utf8PathBuf::from("python3"), Found::OnPath)
}

fn variable(name: &str) -> Option<String> {
    std::env::var_os(name)
        .and_then(|value| value.into_string().ok())
        .filter(|value| !value.is_empty())
}

fn found(path: Utf8PathBuf, found: Found) -> Interpreter {
    Interpreter {
        path: absolute_if_relative(path),
        found,
    }
}

/// The tests run with the workspace as their directory, so a relative interpreter path must be
/// made absolute first. Symlinks are kept: a venv's python is a link, and resolving it would
/// leave the venv. A bare name (`python3`) is left for PATH to find.
fn absolute_if_relative(python: Utf8PathBuf) -> Utf8PathBuf {
    if python.is_absolute() || python.components().count() < 2 {
        return python;
    }
    std::path::absolute(&python)
        .ok()
        .and_then(|path| Utf8PathBuf::from_path_buf(path).ok())
        .unwrap_or(python)
}

#[cfg(test)]
mod tests {
    use super::{choose, in_repo_or_environment, Found, Interpreter};
    use crate::test_support::project;
    use camino::{Utf8Path, Utf8PathBuf};

    #[test]
    fn a_python_flag_that_names_no_file_is_refused_with_the_fix() {
        let (_dir, repo) = project(&[]);
        let venv = make_python(&repo, ".venv");
        let missing = repo.join("no/such/python");
        let chosen = |flag: &Utf8Path| choose(Some(flag), None, &repo).map_err(|err| err.message);
        assert_eq!(
            [
                chosen(&missing),
                chosen(&venv),
                chosen(Utf8Path::new("python3.99"))
            ],
            [
                Err(format!(
                    "cannot start `{missing}`: no such file on this machine (the task names no image, so --python is looked up here) — pass --python the interpreter of the project's venv (e.g. --python .venv/bin/python)"
                )),
                Ok(Interpreter {
                    path: venv.clone(),
                    found: Found::Flag
                }),
                Ok(Interpreter {
                    path: Utf8PathBuf::from("python3.99"),
                    found: Found::Flag
                }),
            ]
        );
    }

    fn make_python(repo: &Utf8PathBuf, folder: &str) -> Utf8PathBuf {
        let bin = repo.join(folder).join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("python"), "").unwrap();
        bin.join("python")
    }

    // $VIRTUAL_ENV is read from the test process's environment, so only the repository's own
    // venvs are checked here; tests/house/cli.rs covers the variable with a child process.
    #[test]
    fn the_repository_venv_is_found_in_the_repository_dot_venv_first() {
        let (_dir, repo) = project(&[]);
        let venv = make_python(&repo, "venv");
        assert_eq!(
            in_repo_or_environment(&repo),
            Interpreter {
                path: venv,
                found: Found::RepoVenv("venv")
            }
        );
        let dot_venv = make_python(&repo, ".venv");
        assert_eq!(
            in_repo_or_environment(&repo),
            Interpreter {
                path: dot_venv,
                found: Found::RepoVenv(".venv")
            }
        );
    }
}
