//! `mend init` on a project in the shape of a small PyPI package (`fixtures/projects/tempconv`):
//! the task file it writes, what it says it guessed, and that `mend verify` then finds the
//! project's own venv with nothing else configured.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common;
use crate::common::{copy_of, python, repo_root, tree_digest, Outcome};

/// mend run in `dir` as a new user runs it: no `MEND_PYTHON`, no active virtualenv, except what
/// `env` adds.
fn mend_as_user(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let output = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .current_dir(dir)
        .env_remove("MEND_PYTHON")
        .env_remove("VIRTUAL_ENV")
        .env_remove("UV_PROJECT_ENVIRONMENT")
        .envs(env.iter().copied())
        .output()
        .expect("the mend binary runs");
    Outcome::from(output)
}

/// `VENV/bin/python`: a script that runs `command` (the test venv's interpreter, or one
/// without pytest), as a venv's own interpreter would.
fn fake_venv(venv: &Path, command: &str) -> String {
    let bin = venv.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python = bin.join("python");
    std::fs::write(&python, format!("#!/bin/sh\nexec {command} \"$@\"\n")).unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    python.to_str().unwrap().to_owned()
}

fn pytest_versions() -> String {
    let output = Command::new(python())
        .args([
            "-c",
            "import sys, pytest; print('Python', sys.version.split()[0] + ', pytest', pytest.__version__)",
        ])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

fn tempconv() -> tempfile::TempDir {
    copy_of(&repo_root().join("fixtures/projects/tempconv"))
}

#[test]
fn init_writes_a_task_file_that_verify_runs_with_the_repository_venv() {
    let project = tempconv();
    let dir = project.path();
    let venv_python = fake_venv(&dir.join(".venv"), python().to_str().unwrap());
    let task_file = dir.join("mend.toml");

    let init = mend_as_user(dir, &["init"], &[]);
    assert_eq!(
        (init.code, init.stdout, init.stderr),
        (
            0,
            format!(
                "Wrote {}/mend.toml for a Python project tested with pytest.\n\
                 \x20 tests run with  {venv_python} (the repository's .venv): {}\n\
                 \x20 command         python -m pytest -q   (report = \"pytest\")\n\
                 \x20 editable        src/**/*.py\n\
                 \x20 test files      tests/**/*.py\n\
                 \x20 readable        src/**/*.py, tests/**/*.py, pyproject.toml, README.md\n\
                 \x20 shared          .venv   (linked from the copy, not copied)\n\
                 Next: check the file, then `mend verify` (the tests once, on a throwaway copy), \
                 `mend task` (what the model is told), and `mend run --task \"...\"`.\n",
                dir.display(),
                pytest_versions()
            ),
            String::new()
        )
    );
    let written: toml::Table = std::fs::read_to_string(&task_file)
        .unwrap()
        .parse()
        .unwrap();
    let expected: toml::Table = r#"
        [task]
        [paths]
        readable = ["src/**/*.py", "tests/**/*.py", "pyproject.toml", "README.md"]
        editable = ["src/**/*.py"]
        [test]
        command = ["python", "-m", "pytest", "-q"]
        timeout_seconds = 120
        files = ["tests/**/*.py"]
        report = "pytest"
        plugins = true
        [copy]
        share = [".venv", "venv", "node_modules"]
        [tools]
        enabled = ["list_files", "grep", "read_file", "write_file", "replace_text", "run_tests"]
        [model]
        name = "gemma4:e2b"
        provider = "ollama"
        max_turns = 12
    "#
    .parse()
    .unwrap();
    assert_eq!(written, expected);
    let mode = std::fs::metadata(&task_file).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o666 & !common::umask(),
        "an ordinary file of the user's"
    );

    // No --repo, no --python, no MEND_PYTHON: the repository's own .venv runs the tests.
    let verify = mend_as_user(dir, &["verify", "--json", "--sandbox", "none"], &[]);
    assert_eq!(
        (verify.code, verify.tests_after()["summary"].clone()),
        (
            1,
            serde_json::json!({"passed": 3, "failed": 1, "errors": 0, "skipped": 0})
        ),
        "{}",
        verify.stderr
    );

    // A second init leaves the file alone and names the fix.
    let before = tree_digest(dir);
    let again = mend_as_user(dir, &["init"], &[]);
    assert_eq!(
        (again.code, again.stdout, again.stderr),
        (
            2,
            String::new(),
            format!(
                "mend: error: {}/mend.toml already exists, and mend init never overwrites it — edit it \
                 (docs/task-file.md), or pass --force to replace it\n",
                dir.display()
            )
        )
    );
    assert_eq!(tree_digest(dir), before);
    std::fs::write(&task_file, "# mine\n").unwrap();
    let forced = mend_as_user(dir, &["init", "--force"], &[]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(std::fs::read_to_string(&task_file)
        .unwrap()
        .contains("plugins = true"));
}

#[test]
fn init_names_an_active_virtualenv_and_a_missing_pytest_with_the_fix() {
    let project = tempconv();
    let dir = project.path();
    let elsewhere = tempfile::tempdir().unwrap();
    let venv = elsewhere.path().join("env");
    // `-S`: this interpreter sees no site-packages, so it has no pytest.
    let venv_python = fake_venv(&venv, &format!("{} -S", python().display()));
    let init = mend_as_user(
        dir,
        &["init", "--repo", dir.to_str().unwrap()],
        &[("VIRTUAL_ENV", venv.to_str().unwrap())],
    );
    assert_eq!(init.code, 0, "{}", init.stderr);
    let lines: Vec<&str> = init
        .stdout
        .lines()
        .filter(|line| line.contains("tests run with") || line.starts_with("Note:"))
        .collect();
    let version = pytest_versions();
    let python_version = version.split(',').next().unwrap();
    assert_eq!(
        lines,
        vec![
            format!("  tests run with  {venv_python} (the active virtualenv ($VIRTUAL_ENV)): no pytest there (see the note below)"),
            format!("Note: pytest is not installed for {venv_python} ({python_version}): install it with `{venv_python} -m pip install pytest`."),
        ]
    );
}

#[test]
fn init_points_uv_and_poetry_projects_at_the_venv_mend_looks_for() {
    for (lock, note) in [
        (
            "uv.lock",
            "Note: the project uses uv, which keeps its venv in .venv: run `uv sync` (with pytest among the \
             dev dependencies) and mend finds .venv/bin/python by itself.",
        ),
        (
            "poetry.lock",
            "Note: the project uses poetry: run `poetry config virtualenvs.in-project true` and \
             `poetry install`, which makes .venv, where mend looks.",
        ),
    ] {
        let project = tempconv();
        let dir = project.path();
        std::fs::write(dir.join(lock), "").unwrap();
        // Without poetry on PATH, mend cannot ask poetry where its venv is.
        let init = mend_as_user(dir, &["init"], &[("PATH", "/usr/bin:/bin")]);
        assert_eq!(init.code, 0, "{}", init.stderr);
        assert!(init.stdout.lines().any(|line| line == note), "{lock}: {}", init.stdout);
    }
}

#[test]
fn init_refuses_a_folder_with_nothing_it_knows_how_to_test() {
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "hello\n").unwrap();
    let init = mend_as_user(empty.path(), &["init"], &[]);
    assert_eq!(
        (init.code, init.stderr),
        (
            2,
            format!(
                "mend: error: found nothing mend knows how to test in {} (pytest files, Cargo.toml, \
                 package.json, go.mod) — write mend.toml by hand (see docs/task-file.md)\n",
                empty.path().display()
            )
        )
    );
    assert!(!empty.path().join("mend.toml").exists());
}
