//! The test files pytest's own configuration adds: `addopts` with `--doctest-glob` (a README
//! that is a test), `--doctest-modules`, and test paths (`testpaths`, paths in `addopts`). What
//! pytest collects as tests, the verdict rests on, so `mend init` makes those files readable and
//! protected.

use camino::Utf8Path;

/// What pytest's configuration in `repo` adds to the tests.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Added {
    /// Globs of files that are tests by the configuration (`**/README.rst`, `docs/**/*.py`).
    pub tests: Vec<String>,
    /// What the user should know, one sentence each.
    pub notes: Vec<String>,
}

/// Folders whose every module belongs to the tests (helpers and conftests too).
pub(super) const TEST_FOLDERS: [&str; 4] = ["tests", "test", "testing", "__tests__"];

/// The files pytest reads its settings from, in the order it looks: the first that has a
/// pytest section wins, as in pytest.
const CONFIG_FILES: [&str; 4] = ["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];

pub(super) fn added(repo: &Utf8Path) -> Added {
    let Some((
        file,
        Settings {
            addopts,
            testpaths,
            python_files,
        },
    )) = CONFIG_FILES
        .iter()
        .find_map(|file| settings(repo, file).map(|settings| (*file, settings)))
    else {
        return Added::default();
    };
    let mut test_names = split(&python_files);
    if test_names.is_empty() {
        test_names = vec!["test_*.py".to_owned(), "*_test.py".to_owned()];
    }
    let words = split(&addopts);
    let mut added = Added::default();
    let mut words_iter = words.iter().peekable();
    let mut paths: Vec<String> = split(&testpaths);
    while let Some(word) = words_iter.next() {
        if let Some(glob) = word.strip_prefix("--doctest-glob=") {
            added.tests.push(anywhere(glob));
        } else if word == "--doctest-glob" {
            if let Some(glob) = words_iter.next() {
                added.tests.push(anywhere(glob));
            }
        } else if word == "--doctest-modules" {
            added.notes.push(format!(
                "{file} runs pytest with --doctest-modules: the docstrings of the editable modules are tests too, which a change to those modules can rewrite; check the verdict's doctests with care"
            ));
        } else if !word.starts_with('-') {
            paths.push(word.clone());
        }
    }
    for path in paths {
        let path = path.trim_end_matches('/');
        if repo.join(path).is_file() {
            added.tests.push(path.to_owned());
        } else if repo.join(path).is_dir() && !path.is_empty() && path != "." {
            added.tests.extend(tests_under(path, &test_names));
        }
    }
    let mut seen = std::collections::HashSet::new();
    added.tests.retain(|glob| seen.insert(glob.clone()));
    added
}

/// What pytest collects from a folder of `testpaths`: in a test folder every module is the
/// tests' own (helpers, conftest); anywhere else (`src`, a package) only the modules named by
/// `python_files` and the conftests are, so the sources beside them stay editable.
fn tests_under(path: &str, test_names: &[String]) -> Vec<String> {
    let folder = path.rsplit('/').next().unwrap_or(path);
    if TEST_FOLDERS.contains(&folder) {
        return vec![format!("{path}/**/*.py")];
    }
    test_names
        .iter()
        .map(|name| format!("{path}/**/{name}"))
        .chain([format!("{path}/**/conftest.py")])
        .collect()
}

/// The keys of pytest's section that say what it collects.
struct Settings {
    addopts: String,
    testpaths: String,
    python_files: String,
}

/// A doctest glob as pytest applies it: to a file's name in any folder it collects from.
fn anywhere(glob: &str) -> String {
    match glob.contains('/') {
        true => glob.to_owned(),
        false => format!("**/{glob}"),
    }
}

/// `addopts`, `testpaths` and `python_files` of `file`'s pytest section, when it has one.
fn settings(repo: &Utf8Path, file: &str) -> Option<Settings> {
    let text = std::fs::read_to_string(repo.join(file)).ok()?;
    if file == "pyproject.toml" {
        let value: toml::Table = toml::from_str(&text).ok()?;
        let options = value.get("tool")?.get("pytest")?.get("ini_options")?;
        let joined = |key: &str| match options.get(key) {
            Some(toml::Value::String(text)) => text.clone(),
            Some(toml::Value::Array(items)) => items
                .iter()
                .filter_map(toml::Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
        return Some(Settings {
            addopts: joined("addopts"),
            testpaths: joined("testpaths"),
            python_files: joined("python_files"),
        });
    }
    let section = match file {
        "setup.cfg" => "[tool:pytest]",
        _ => "[pytest]",
    };
    ini_section(&text, section).map(|keys| {
        let get = |key: &str| {
            keys.iter()
                .find(|(name, _)| name == key)
                .map_or(String::new(), |(_, value)| value.clone())
        };
        Settings {
            addopts: get("addopts"),
            testpaths: get("testpaths"),
            python_files: get("python_files"),
        }
    })
}

/// The keys of one section of an ini file, continuation lines (indented) joined to their key.
fn ini_section(text: &str, header: &str) -> Option<Vec<(String, String)>> {
    let mut lines = text.lines().skip_while(|line| line.trim() != header);
    lines.next()?;
    let mut keys: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.trim_start().starts_with('[') {
            break;
        }
        if line.trim().is_empty() || line.trim_start().starts_with(['#', ';']) {
            continue;
        }
        match (line.starts_with([' ', '\t']), line.split_once(['=', ':'])) {
            (true, _) => {
                if let Some((_, value)) = keys.last_mut() {
                    value.push(' ');
                    value.push_str(line.trim());
                }
            }
            (false, Some((key, value))) => {
                keys.push((key.trim().to_owned(), value.trim().to_owned()))
            }
            (false, None) => {}
        }
    }
    Some(keys)
}

/// Words as a shell splits them, quotes removed (pytest splits `addopts` with `shlex`).
fn split(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for character in text.chars() {
        match (quote, character) {
            (Some(open), close) if open == close => quote = None,
            (Some(_), other) => word.push(other),
            (None, '"' | '\'') => {
                quote = Some(character);
                in_word = true;
            }
            (None, space) if space.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, other) => {
                word.push(other);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::{added, Added};
    use crate::test_support::project;

    #[test]
    fn doctest_globs_and_test_paths_from_each_config_file_are_tests() {
        let cases = [
            (
                "pytest.ini",
                "[pytest]\naddopts = -ra --doctest-glob='*.rst'\n    --doctest-glob README.md docs/usage.txt\ntestpaths = tests\n",
            ),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = [\"--doctest-glob=README.rst\", \"-q\"]\ntestpaths = [\"tests\"]\n",
            ),
            (
                "setup.cfg",
                "[metadata]\nname = x\n\n[tool:pytest]\naddopts = --doctest-modules --strict-markers\n",
            ),
            ("tox.ini", "[tox]\nenvlist = py3\n"),
        ];
        let seen: Vec<Added> = cases
            .iter()
            .map(|(file, text)| {
                let (_dir, root) = project(&[
                    (file, text),
                    ("tests/test_a.py", ""),
                    ("docs/usage.txt", ""),
                ]);
                added(&root)
            })
            .collect();
        assert_eq!(
            seen,
            [
                Added {
                    tests: vec![
                        "**/*.rst".to_owned(),
                        "**/README.md".to_owned(),
                        "tests/**/*.py".to_owned(),
                        "docs/usage.txt".to_owned(),
                    ],
                    notes: vec![],
                },
                Added {
                    tests: vec!["**/README.rst".to_owned(), "tests/**/*.py".to_owned()],
                    notes: vec![],
                },
                Added {
                    tests: vec![],
                    notes: vec!["setup.cfg runs pytest with --doctest-modules: the docstrings of the editable modules are tests too, which a change to those modules can rewrite; check the verdict's doctests with care".to_owned()],
                },
                Added::default(),
            ]
        );
    }

    #[test]
    fn a_source_folder_in_testpaths_gives_only_its_test_modules() {
        let settings = [
            "[tool.pytest.ini_options]\ntestpaths = [\"src\", \"tests\"]\n",
            "[tool.pytest.ini_options]\ntestpaths = [\"src\"]\npython_files = \"check_*.py\"\n",
        ];
        let seen: Vec<Vec<String>> = settings
            .iter()
            .map(|text| {
                let (_dir, root) = project(&[
                    ("pyproject.toml", text),
                    ("src/pkg/__init__.py", ""),
                    ("tests/test_a.py", ""),
                ]);
                added(&root).tests
            })
            .collect();
        let owned = |globs: &[&str]| -> Vec<String> {
            globs.iter().map(|glob| (*glob).to_owned()).collect()
        };
        assert_eq!(
            seen,
            vec![
                owned(&[
                    "src/**/test_*.py",
                    "src/**/*_test.py",
                    "src/**/conftest.py",
                    "tests/**/*.py",
                ]),
                owned(&["src/**/check_*.py", "src/**/conftest.py"]),
            ]
        );
    }
}
