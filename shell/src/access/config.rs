//! The test configuration: files that change how the tests are collected, run or judged
//! without being tests themselves. A change to one can turn a failing run into a passing one
//! while the code under test stays broken, so no tool writes them unless the task names them in
//! `test.config_editable`.
//!
//! Matched on the text alone, by file name at any depth (pytest finds a `conftest.py` or a
//! `pytest.ini` in any folder it collects from; Python runs a `.pth` file on any import path),
//! plus what the task's own test command names. Each match carries the reason the model is told.

/// Files protected by name, wherever they are.
const BY_NAME: &[(&str, &str)] = &[
    ("conftest.py", "pytest runs it while collecting the tests"),
    ("pytest.ini", "it holds pytest's settings"),
    (".pytest.ini", "it holds pytest's settings"),
    ("tox.ini", "it can hold pytest's settings"),
    ("setup.cfg", "it can hold pytest's settings"),
    // The whole file: besides `[tool.pytest.ini_options]`, tables such as `[tool.tox]`,
    // `[tool.hatch.envs.*.scripts]`, `[tool.poe.tasks]` and the `pytest11` entry points decide
    // what a test command runs.
    (
        "pyproject.toml",
        "it holds the settings of pytest and of the tools that run it",
    ),
    ("sitecustomize.py", "Python runs it whenever it starts"),
    ("usercustomize.py", "Python runs it whenever it starts"),
    ("noxfile.py", "it defines how the tests run"),
    ("hatch.toml", "it defines how the tests run"),
    ("build.rs", "cargo runs it before building the tests"),
    // `build = "…"`, `autotests`, `[[test]] harness = false`: which tests exist and what runs
    // first; protecting `build.rs` alone would leave the way around it open.
    ("Cargo.toml", "it says which tests cargo builds and runs"),
    ("package.json", "its scripts run the tests"),
    (".npmrc", "it holds npm's settings for running scripts"),
];

/// Test runners' configuration files, by the start of their name (`jest.config.ts`,
/// `.mocharc.yml`, …).
const BY_PREFIX: &[&str] = &[
    "jest.config.",
    "vitest.config.",
    "vitest.workspace.",
    "vite.config.",
    ".mocharc",
    "ava.config.",
    "karma.conf.",
    "playwright.config.",
];
const RUNNER_CONFIG: &str = "it holds the test runner's settings";

/// Files protected by their folder and name.
const BY_FOLDER: &[(&str, &str, &str)] = &[
    (
        ".cargo",
        "config.toml",
        "it holds cargo's settings for the build and the tests",
    ),
    (
        ".cargo",
        "config",
        "it holds cargo's settings for the build and the tests",
    ),
    (
        ".config",
        "nextest.toml",
        "it holds cargo-nextest's settings",
    ),
];

/// The files make reads, protected when the test command runs make.
const MAKE_FILES: &[&str] = &["Makefile", "makefile", "GNUmakefile"];

const SHADOWS_RUNNER: &str = "a module of that name would be imported in place of the test runner";

/// Why `relative` (normalised, see [`crate::task::paths::normalize`]) is test configuration
/// for a task whose test command is `argv`, or `None` when it is not.
pub(super) fn test_config(relative: &str, argv: &[String]) -> Option<&'static str> {
    let parts: Vec<&str> = relative.split('/').collect();
    let name = *parts.last()?;
    let folder = parts.len().checked_sub(2).map(|at| parts[at]);
    if let Some((_, reason)) = BY_NAME.iter().find(|(named, _)| *named == name) {
        return Some(reason);
    }
    if name.ends_with(".pth") {
        return Some("Python runs its import lines whenever it starts");
    }
    if BY_PREFIX.iter().any(|prefix| name.starts_with(prefix)) {
        return Some(RUNNER_CONFIG);
    }
    if let Some((_, _, reason)) = BY_FOLDER
        .iter()
        .find(|(in_folder, named, _)| Some(*in_folder) == folder && *named == name)
    {
        return Some(reason);
    }
    // pytest's own package: on the copy's import path it would run instead of the real one.
    if parts.contains(&"_pytest") || name == "pytest.py" {
        return Some(SHADOWS_RUNNER);
    }
    from_command(&parts, argv)
}

/// What the task's test command itself names: the script it runs (`./run-tests.sh`,
/// `python runtests.py`), the module `-m` runs, make's files when it runs make.
fn from_command(parts: &[&str], argv: &[String]) -> Option<&'static str> {
    let relative = parts.join("/");
    let name = parts.last()?;
    let program = argv
        .first()
        .map(|first| first.rsplit('/').next().unwrap_or(first));
    if matches!(program, Some("make" | "gmake"))
        && (MAKE_FILES.contains(name) || name.ends_with(".mk"))
    {
        return Some("the test command runs make, which reads it");
    }
    let named = argv
        .iter()
        .filter(|word| !word.starts_with('-'))
        .any(|word| crate::task::paths::normalize(word).is_ok_and(|word| word == relative));
    if named {
        return Some("the test command runs it");
    }
    let module = argv
        .windows(2)
        .find(|pair| pair[0] == "-m")
        .and_then(|pair| pair[1].split('.').next());
    // Only the files that would stand in for the module: `-m mypkg.run` must not protect
    // the whole of `mypkg`.
    let folder = parts.len().checked_sub(2).map(|at| parts[at]);
    match module {
        Some(module)
            if *name == format!("{module}.py")
                || (folder == Some(module) && matches!(*name, "__init__.py" | "__main__.py")) =>
        {
            Some(SHADOWS_RUNNER)
        }
        _ => None,
    }
}
