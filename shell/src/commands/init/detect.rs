//! What `mend init` finds in a project: which test runner, which folders hold the sources and
//! the tests. Only the top of the repository (and source folders one level down) is looked at,
//! so a venv or `node_modules` is never walked; every glob is rooted at a named folder for the
//! same reason.

use std::fs;

use super::addopts::TEST_FOLDERS;
use camino::{Utf8Path, Utf8PathBuf};

/// A guess at how the project is tested and which files matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Guess {
    pub kind: Kind,
    pub command: Vec<String>,
    /// `pytest`, `libtest` or `exit_code` (see docs/task-file.md).
    pub report: &'static str,
    pub timeout_seconds: u64,
    pub readable: Vec<String>,
    pub editable: Vec<String>,
    pub tests: Vec<String>,
    /// What the user should know or check, one sentence each.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Pytest,
    Cargo,
    Npm,
    Go,
}

impl Kind {
    pub(super) fn describe(self) -> &'static str {
        match self {
            Kind::Pytest => "a Python project tested with pytest",
            Kind::Cargo => "a Rust project tested with cargo test",
            Kind::Npm => "a Node project tested with npm test",
            Kind::Go => "a Go module tested with go test",
        }
    }
}

const PYTHON_MARKERS: [&str; 7] = [
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    "tox.ini",
    "conftest.py",
    "requirements.txt",
];
const PYTHON_CONFIG: [&str; 6] = [
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "pytest.ini",
    "tox.ini",
    "README.md",
];
/// Top-level folders that are never a package's sources.
const NOT_SOURCES: [&str; 9] = [
    "tests", "test", "testing", "docs", "doc", "examples", "build", "dist", "venv",
];
const JS: &str = "{js,mjs,cjs,jsx,ts,mts,cts,tsx}";

/// Every kind of project found in `repo`, the likeliest first.
pub(super) fn detect(repo: &Utf8Path) -> Vec<Guess> {
    let mut found = Vec::new();
    if PYTHON_MARKERS.iter().any(|file| repo.join(file).is_file())
        || TEST_FOLDERS
            .iter()
            .any(|folder| has_file_ending(&repo.join(folder), ".py"))
    {
        found.push(pytest(repo));
    }
    if repo.join("Cargo.toml").is_file() {
        found.push(cargo(repo));
    }
    if repo.join("package.json").is_file() {
        found.push(npm(repo));
    }
    if repo.join("go.mod").is_file() {
        found.push(go(repo));
    }
    found
}

/// How far up `project_above` looks: a project's deepest test folders are a few levels down.
const LEVELS_UP: usize = 6;

/// The nearest folder above `dir` that holds a project mend knows, with its likeliest kind: a
/// folder inside a project (its `tests/`, say) holds none of the markers itself.
pub(super) fn project_above(dir: &Utf8Path) -> Option<(Utf8PathBuf, Kind)> {
    let dir = dir.canonicalize_utf8().ok()?;
    dir.ancestors().skip(1).take(LEVELS_UP).find_map(|above| {
        let guess = detect(above).into_iter().next()?;
        Some((above.to_path_buf(), guess.kind))
    })
}

/// The project `dir` is the tests folder of (`tests/`, `test/`, ... directly in it), if any.
pub(super) fn tests_folder_of(dir: &Utf8Path) -> Option<(Utf8PathBuf, Kind)> {
    let dir = dir.canonicalize_utf8().ok()?;
    let name = dir.file_name()?;
    let parent = dir.parent()?;
    if !TEST_FOLDERS.contains(&name) {
        return None;
    }
    let guess = detect(parent).into_iter().next()?;
    Some((parent.to_path_buf(), guess.kind))
}

fn pytest(repo: &Utf8Path) -> Guess {
    let mut editable = Vec::new();
    let mut tests = Vec::new();
    let roots: Vec<String> = if repo.join("src").is_dir() {
        vec!["src".to_owned()]
    } else {
        folders(repo)
            .into_iter()
            .filter(|name| !NOT_SOURCES.contains(&name.as_str()))
            .filter(|name| repo.join(name).join("__init__.py").is_file())
            .collect()
    };
    for root in &roots {
        editable.push(format!("{root}/**/*.py"));
        // Tests kept inside the package (`pkg/tests/`) are tests too, and protected as such.
        for folder in TEST_FOLDERS {
            if contains_folder_named(&repo.join(root), folder, 3) {
                tests.push(format!("{root}/**/{folder}/**/*.py"));
            }
        }
    }
    // A project of single modules keeps them at the top.
    if editable.is_empty() {
        editable.push("*.py".to_owned());
    }
    let top_level: Vec<String> = files(repo)
        .into_iter()
        .filter(|name| name.ends_with(".py"))
        .collect();
    let is_test = |name: &str| name.starts_with("test_") || name.ends_with("_test.py");
    for folder in TEST_FOLDERS {
        if has_file_ending(&repo.join(folder), ".py") {
            tests.push(format!("{folder}/**/*.py"));
        }
    }
    if top_level.iter().any(|name| is_test(name)) {
        tests.extend(["test_*.py".to_owned(), "*_test.py".to_owned()]);
    }
    if repo.join("conftest.py").is_file() {
        tests.push("conftest.py".to_owned());
    }
    // What pytest's own configuration collects as tests (a README run as a doctest).
    let configured = super::addopts::added(repo);
    for glob in configured.tests {
        // A glob the model edits cannot also be one no tool may write.
        if !tests.contains(&glob) && !editable.contains(&glob) {
            tests.push(glob);
        }
    }
    let mut notes = configured.notes;
    if tests.is_empty() {
        notes.push(
            "found no test folder (tests/, test/) nor test_*.py files: set test.files to the files the verdict rests on"
                .to_owned(),
        );
    }
    Guess {
        kind: Kind::Pytest,
        command: words(&["python", "-m", "pytest", "-q"]),
        report: "pytest",
        timeout_seconds: 120,
        readable: readable(repo, &editable, &tests, &PYTHON_CONFIG),
        editable,
        tests,
        notes,
    }
}

fn cargo(repo: &Utf8Path) -> Guess {
    // The crate itself and the members of a workspace one level down; never `**/*.rs` from the
    // top, which would walk `target/`.
    let mut crates = Vec::new();
    if repo.join("src").is_dir() {
        crates.push(String::new());
    }
    for folder in folders(repo) {
        if repo.join(&folder).join("Cargo.toml").is_file()
            && repo.join(&folder).join("src").is_dir()
        {
            crates.push(format!("{folder}/"));
        }
    }
    let editable: Vec<String> = crates.iter().map(|at| format!("{at}src/**/*.rs")).collect();
    let tests: Vec<String> = crates
        .iter()
        .filter(|at| repo.join(format!("{at}tests")).is_dir())
        .map(|at| format!("{at}tests/**/*.rs"))
        .collect();
    let manifests: Vec<String> = crates.iter().map(|at| format!("{at}Cargo.toml")).collect();
    let mut readable = editable.clone();
    readable.extend(tests.iter().cloned());
    // What the build and `cargo test` compile besides src/ and tests/: the model may need to
    // read them, never to change them.
    for at in &crates {
        if repo.join(format!("{at}build.rs")).is_file() {
            readable.push(format!("{at}build.rs"));
        }
        for folder in ["benches", "examples"] {
            if repo.join(format!("{at}{folder}")).is_dir() {
                readable.push(format!("{at}{folder}/**/*.rs"));
            }
        }
    }
    readable.push("Cargo.toml".to_owned());
    readable.extend(manifests.into_iter().filter(|file| file != "Cargo.toml"));
    let mut notes = Vec::new();
    if tests.is_empty() {
        notes.push("the unit tests live in src/ next to the code, so the model may edit them: only tests/ can be protected in test.files".to_owned());
    }
    Guess {
        kind: Kind::Cargo,
        // Every test binary and the doc-tests, even after one fails: the contract needs them all.
        command: words(&["cargo", "test", "--no-fail-fast"]),
        report: "libtest",
        timeout_seconds: 600,
        readable,
        editable,
        tests,
        notes,
    }
}

fn npm(repo: &Utf8Path) -> Guess {
    let mut notes = Vec::new();
    let script = fs::read_to_string(repo.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|package| package["scripts"]["test"].as_str().map(str::to_owned));
    match script.as_deref() {
        None => {
            notes.push("package.json has no scripts.test: add one, or set test.command".to_owned())
        }
        Some(script) if script.contains("no test specified") => notes.push(
            "package.json's scripts.test is npm's placeholder, which always fails: set a real one"
                .to_owned(),
        ),
        Some(_) => {}
    }
    let mut editable: Vec<String> = ["src", "lib"]
        .iter()
        .filter(|folder| repo.join(folder).is_dir())
        .map(|folder| format!("{folder}/**/*.{JS}"))
        .collect();
    editable.push(format!("*.{JS}"));
    let mut tests: Vec<String> = TEST_FOLDERS
        .iter()
        .chain(&["spec"])
        .filter(|folder| repo.join(folder).is_dir())
        .map(|folder| format!("{folder}/**/*.{JS}"))
        .collect();
    if files(repo)
        .iter()
        .any(|name| name.starts_with("test.") || name.contains(".test.") || name.contains(".spec."))
    {
        tests.extend([
            format!("test.{JS}"),
            format!("*.test.{JS}"),
            format!("*.spec.{JS}"),
        ]);
    }
    // What the test script itself names (`node tests.js`, `mocha spec/unit`): the files the
    // verdict rests on whatever they are called.
    for named in script.as_deref().map(named_by_script).unwrap_or_default() {
        let glob = if repo.join(&named).is_dir() {
            format!("{named}/**/*.{JS}")
        } else if repo.join(&named).is_file() {
            named
        } else {
            continue;
        };
        if !tests.contains(&glob) {
            tests.push(glob);
        }
    }
    if tests.is_empty() {
        notes.push(
            "found no test files: name them in test.files, or the verdict rests on no protected file"
                .to_owned(),
        );
    }
    Guess {
        kind: Kind::Npm,
        command: words(&["npm", "test"]),
        report: "exit_code",
        timeout_seconds: 300,
        readable: readable(repo, &editable, &tests, &["package.json", "README.md"]),
        editable,
        tests,
        notes,
    }
}

/// The relative paths a test script names as words (`node tests.js && eslint .` names
/// `tests.js`), options, commands and `.` aside.
fn named_by_script(script: &str) -> Vec<String> {
    script
        .split(|c: char| c.is_whitespace() || "&|;".contains(c))
        .map(|word| word.trim_matches(|c| c == '\'' || c == '"'))
        .map(|word| word.strip_prefix("./").unwrap_or(word))
        .filter(|word| {
            !word.is_empty()
                && !word.starts_with('-')
                && !word.starts_with('/')
                && !word.contains("..")
                && *word != "."
                && (word.contains('/') || word.contains('.'))
        })
        .map(str::to_owned)
        .collect()
}

fn go(repo: &Utf8Path) -> Guess {
    Guess {
        kind: Kind::Go,
        command: words(&["go", "test", "./..."]),
        report: "exit_code",
        timeout_seconds: 300,
        readable: vec!["**/*.go".to_owned(), "go.mod".to_owned()],
        editable: vec!["**/*.go".to_owned()],
        tests: vec!["**/*_test.go".to_owned()],
        notes: if repo.join("vendor").is_dir() {
            vec![
                "vendor/ is inside **/*.go: narrow paths.editable if the model must not change it"
                    .to_owned(),
            ]
        } else {
            Vec::new()
        },
    }
}

fn readable(repo: &Utf8Path, editable: &[String], tests: &[String], extra: &[&str]) -> Vec<String> {
    let mut readable: Vec<String> = editable.iter().chain(tests).cloned().collect();
    readable.extend(
        extra
            .iter()
            .filter(|file| repo.join(file).is_file())
            .map(|file| (*file).to_owned()),
    );
    let mut seen = std::collections::HashSet::new();
    readable.retain(|glob| seen.insert(glob.clone()));
    readable
}

fn words(argv: &[&str]) -> Vec<String> {
    argv.iter().map(|word| (*word).to_owned()).collect()
}

/// The names of the visible folders directly in `dir`, sorted.
fn folders(dir: &Utf8Path) -> Vec<String> {
    entries(dir, true)
}

/// The names of the visible files directly in `dir`, sorted.
fn files(dir: &Utf8Path) -> Vec<String> {
    entries(dir, false)
}

fn entries(dir: &Utf8Path, want_folders: bool) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            entry
                .file_type()
                .is_ok_and(|kind| kind.is_dir() == want_folders)
        })
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    names
}

fn has_file_ending(dir: &Utf8Path, suffix: &str) -> bool {
    dir.is_dir()
        && (files(dir).iter().any(|name| name.ends_with(suffix))
            || folders(dir)
                .iter()
                .any(|folder| has_file_ending(&dir.join(folder), suffix)))
}

fn contains_folder_named(dir: &Utf8Path, name: &str, depth: u32) -> bool {
    depth > 0
        && folders(dir).iter().any(|folder| {
            folder == name || contains_folder_named(&dir.join(folder), name, depth - 1)
        })
}

#[cfg(test)]
mod tests;
