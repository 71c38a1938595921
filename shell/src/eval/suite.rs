//! `suite.toml`: which tasks, how many attempts each, and the budget of every attempt. Read like
//! a task file: unknown keys are refused, and every problem names the line and the field.

use std::ops::Range;

use camino::{Utf8Path, Utf8PathBuf};
use globset::GlobBuilder;
use serde::Deserialize;
use toml::Spanned;

use crate::error::MendError;
use crate::task::TASK_FILE_NAME;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    tasks: Spanned<Vec<Spanned<String>>>,
    k: Spanned<u32>,
    max_turns: Option<Spanned<u32>>,
    deadline_seconds: Option<Spanned<u64>>,
    token_budget: Option<Spanned<u64>>,
    #[serde(default)]
    temperature: Option<Spanned<f64>>,
    #[serde(default)]
    seed: i64,
    #[serde(default)]
    model: ModelTable,
    /// The image of every task whose task file names none.
    #[serde(default)]
    environment: crate::task::EnvironmentTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelTable {
    name: Option<String>,
    protocol: Option<Spanned<String>>,
    /// The older name of `protocol`.
    provider: Option<Spanned<String>>,
    host: Option<String>,
}

/// A suite as checked: every task folder exists and has a task file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Suite {
    pub origin: Utf8PathBuf,
    /// SHA-256 of the file's bytes: rows of different suites never merge.
    pub sha256: String,
    /// (name, folder), in the order written, globs expanded in sorted order.
    pub tasks: Vec<(String, Utf8PathBuf)>,
    pub k: u32,
    pub max_turns: Option<u32>,
    pub deadline_seconds: Option<u64>,
    pub token_budget: Option<u64>,
    pub temperature: Option<f64>,
    /// Attempt i is sampled with seed + i.
    pub seed: i64,
    pub model: Option<String>,
    /// `model.protocol` (or `model.provider`), when the suite names one.
    pub protocol: Option<mend_core::Protocol>,
    pub host: Option<String>,
    /// `[environment]`: the image of every task whose task file names none.
    pub environment: Option<crate::task::Environment>,
}

impl Suite {
    pub(crate) fn load(path: &Utf8Path) -> Result<Suite, MendError> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| MendError::usage(format!("cannot read the suite {path}: {err}")))?;
        Suite::parse(path, &text)
    }

    pub(crate) fn parse(origin: &Utf8Path, text: &str) -> Result<Suite, MendError> {
        let at = |span: Option<Range<usize>>, message: &str| {
            let line = span.map_or(String::new(), |span| {
                format!(
                    ":{}",
                    1 + text[..span.start.min(text.len())].matches('\n').count()
                )
            });
            MendError::usage(format!("{origin}{line}: {message} (see evals/README.md)"))
        };
        let raw: SuiteFile =
            toml::from_str(text).map_err(|err| at(err.span(), err.message().trim_end()))?;
        let positive = |value: &Spanned<u32>, field: &str| {
            if *value.get_ref() == 0 {
                Err(at(
                    Some(value.span()),
                    &format!("{field}: must be at least 1"),
                ))
            } else {
                Ok(*value.get_ref())
            }
        };
        let k = positive(&raw.k, "k")?;
        let max_turns = raw
            .max_turns
            .as_ref()
            .map(|turns| positive(turns, "max_turns"))
            .transpose()?;
        if let Some(deadline) = raw.deadline_seconds.as_ref().filter(|d| *d.get_ref() == 0) {
            return Err(at(
                Some(deadline.span()),
                "deadline_seconds: must be at least 1",
            ));
        }
        if let Some(temperature) = &raw.temperature {
            let value = *temperature.get_ref();
            if !(0.0..=2.0).contains(&value) {
                return Err(at(
                    Some(temperature.span()),
                    &format!("temperature: must be between 0 and 2, not {value}"),
                ));
            }
        }
        let protocol =
            crate::task::protocol::of_table(raw.model.protocol, raw.model.provider, &at)?;
        let tasks = task_folders(origin, &raw.tasks, &at)?;
        let environment = crate::task::environment_table(raw.environment, origin, &at)?;
        Ok(Suite {
            origin: origin.to_path_buf(),
            sha256: crate::atomic::sha256_hex(text.as_bytes()),
            tasks,
            k,
            max_turns,
            deadline_seconds: raw.deadline_seconds.map(Spanned::into_inner),
            token_budget: raw.token_budget.map(Spanned::into_inner),
            temperature: raw.temperature.map(Spanned::into_inner),
            seed: raw.seed,
            model: raw.model.name,
            protocol,
            host: raw.model.host,
            environment,
        })
    }

    /// Every (task index, attempt) in suite order: tasks as written, attempts 0..k.
    pub(crate) fn pairs(&self) -> Vec<(usize, u32)> {
        (0..self.tasks.len())
            .flat_map(|task| (0..self.k).map(move |attempt| (task, attempt)))
            .collect()
    }
}

/// The task folders `tasks` names, relative to the suite's folder, each under a name of its
/// own (its folder's), in the order written.
fn task_folders(
    origin: &Utf8Path,
    patterns: &Spanned<Vec<Spanned<String>>>,
    at: &dyn Fn(Option<Range<usize>>, &str) -> MendError,
) -> Result<Vec<(String, Utf8PathBuf)>, MendError> {
    let base = origin.parent().unwrap_or(Utf8Path::new("."));
    let base = if base.as_str().is_empty() {
        Utf8Path::new(".")
    } else {
        base
    };
    let mut tasks: Vec<(String, Utf8PathBuf)> = Vec::new();
    if patterns.get_ref().is_empty() {
        return Err(at(
            Some(patterns.span()),
            "tasks: name at least one repository folder",
        ));
    }
    for pattern in patterns.get_ref() {
        let folders = expand(base, pattern.get_ref())
            .map_err(|message| at(Some(pattern.span()), &format!("tasks: {message}")))?;
        for folder in folders {
            let name = task_name(&folder);
            if let Some((_, other)) = tasks.iter().find(|(existing, _)| *existing == name) {
                return Err(at(
                    Some(pattern.span()),
                    &format!(
                        "tasks: {folder} and {other} have the same folder name `{name}`, which names their results — rename one"
                    ),
                ));
            }
            tasks.push((name, folder));
        }
    }
    Ok(tasks)
}

fn task_name(folder: &Utf8Path) -> String {
    folder
        .components()
        .next_back()
        .map_or_else(|| folder.to_string(), |last| last.as_str().to_owned())
}

/// Why a `tasks` entry of a suite names no task; the suite file is what to fix.
#[derive(Debug)]
enum NoTasks {
    /// A folder named as it is that holds no task file.
    NoTaskFile(Utf8PathBuf),
    /// A pattern that is no glob.
    NotAGlob {
        pattern: String,
        source: globset::Error,
    },
    /// A glob that matches no folder with a task file under `base`.
    NoMatch { pattern: String, base: Utf8PathBuf },
}

impl std::fmt::Display for NoTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoTasks::NoTaskFile(folder) => write!(
                f,
                "{folder} has no {TASK_FILE_NAME} — name a repository folder that has one (`mend init` writes it)"
            ),
            NoTasks::NotAGlob { pattern, source } => {
                write!(f, "`{pattern}` is not a glob: {source}")
            }
            NoTasks::NoMatch { pattern, base } => write!(
                f,
                "`{pattern}` matches no folder with a {TASK_FILE_NAME} under {base}"
            ),
        }
    }
}

impl std::error::Error for NoTasks {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NoTasks::NotAGlob { source, .. } => Some(source),
            NoTasks::NoTaskFile(_) | NoTasks::NoMatch { .. } => None,
        }
    }
}

/// A folder, or a glob of folders, relative to the suite's folder; each must hold a task file.
fn expand(base: &Utf8Path, pattern: &str) -> Result<Vec<Utf8PathBuf>, NoTasks> {
    let is_glob = pattern.contains(['*', '?', '[', '{']);
    if !is_glob {
        let folder = base.join(pattern);
        if !folder.join(TASK_FILE_NAME).is_file() {
            return Err(NoTasks::NoTaskFile(folder));
        }
        return Ok(vec![folder]);
    }
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|source| NoTasks::NotAGlob {
            pattern: pattern.to_owned(),
            source,
        })?
        .compile_matcher();
    // The walk starts at the part of the pattern before its first wildcard.
    let fixed: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .collect();
    let root = base.join(fixed.join("/"));
    let mut found = Vec::new();
    let mut stack = vec![(root, fixed.join("/"))];
    while let Some((folder, relative)) = stack.pop() {
        let Ok(entries) = folder.read_dir_utf8() else {
            continue;
        };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                continue;
            }
            let name = entry.file_name();
            let relative = if relative.is_empty() {
                name.to_owned()
            } else {
                format!("{relative}/{name}")
            };
            if matcher.is_match(&relative) && entry.path().join(TASK_FILE_NAME).is_file() {
                found.push(entry.path().to_path_buf());
            }
            if relative.matches('/').count() < 6 && !name.starts_with('.') {
                stack.push((entry.path().to_path_buf(), relative));
            }
        }
    }
    found.sort();
    if found.is_empty() {
        return Err(NoTasks::NoMatch {
            pattern: pattern.to_owned(),
            base: base.to_owned(),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with_tasks(names: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for name in names {
            let task = dir.path().join(name);
            std::fs::create_dir_all(&task).expect("mkdir");
            std::fs::write(task.join(TASK_FILE_NAME), "").expect("task file");
        }
        std::fs::create_dir_all(dir.path().join("tasks/notask")).expect("mkdir");
        dir
    }

    fn parse_in(dir: &tempfile::TempDir, text: &str) -> Result<Suite, MendError> {
        let origin = Utf8PathBuf::from_path_buf(dir.path().join("suite.toml")).expect("utf-8");
        Suite::parse(&origin, text)
    }

    #[test]
    fn a_suite_expands_its_globs_in_order_and_keeps_its_budgets() {
        let dir = folder_with_tasks(&["tasks/b", "tasks/a", "one"]);
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).expect("utf-8");
        let text = "tasks = [\"one\", \"tasks/*\"]\nk = 3\nmax_turns = 6\ndeadline_seconds = 60\ntoken_budget = 9000\ntemperature = 0.7\nseed = 100\n[model]\nname = \"qwen3:8b\"\nprotocol = \"openai\"\nhost = \"http://127.0.0.1:1\"\n[environment]\nimage = \"oci:layouts/py:v1\"\nworkdir = \"/work\"\n";
        let suite = parse_in(&dir, text).expect("parses");
        assert_eq!(
            suite,
            Suite {
                origin: root.join("suite.toml"),
                sha256: crate::atomic::sha256_hex(text.as_bytes()),
                tasks: vec![
                    ("one".to_owned(), root.join("one")),
                    ("a".to_owned(), root.join("tasks/a")),
                    ("b".to_owned(), root.join("tasks/b")),
                ],
                k: 3,
                max_turns: Some(6),
                deadline_seconds: Some(60),
                token_budget: Some(9000),
                temperature: Some(0.7),
                seed: 100,
                model: Some("qwen3:8b".to_owned()),
                protocol: Some(mend_core::Protocol::OpenaiSse),
                host: Some("http://127.0.0.1:1".to_owned()),
                environment: Some(crate::task::Environment {
                    image: crate::oci::ImageRef::OciLayout {
                        path: root.join("layouts/py"),
                        tag: Some("v1".to_owned()),
                    },
                    workdir: Some("/work".to_owned()),
                }),
            }
        );
        assert_eq!(suite.pairs().len(), 9);
    }

    #[test]
    fn every_mistake_names_its_line_and_field() {
        let dir = folder_with_tasks(&["tasks/a", "other/a"]);
        let path = dir.path().join("suite.toml");
        let cases = [
            (
                "tasks = [\"tasks/a\"]\nk = 0\n",
                ":2: k: must be at least 1",
            ),
            (
                "tasks = [\"tasks/a\"]\nk = 2\nmax_turn = 3\n",
                ":3: unknown field `max_turn`",
            ),
            (
                "tasks = [\"tasks/a\"]\nk = \"two\"\n",
                ":2: invalid type: string \"two\", expected u32",
            ),
            (
                "k = 2\ntasks = [\"tasks/zzz*\"]\n",
                ":2: tasks: `tasks/zzz*` matches no folder",
            ),
            ("k = 2\ntasks = [\"tasks/notask\"]\n", ":2: tasks: "),
            (
                "k = 2\ntasks = [\"tasks/a\",\n \"other/a\"]\n",
                ":3: tasks: ",
            ),
            (
                "k = 2\ntasks = [\"tasks/a\"]\ntemperature = 9.0\n",
                ":3: temperature: must be between 0 and 2",
            ),
            (
                "k = 2\ntasks = [\"tasks/a\"]\n[model]\nprotocol = \"x\"\n",
                ":4: model.protocol: unknown protocol `x`; use ollama, openai or anthropic",
            ),
            (
                "k = 2\ntasks = [\"tasks/a\"]\n[model]\nprovider = \"x\"\n",
                ":4: model.provider: unknown protocol `x`",
            ),
        ];
        let got: Vec<(u8, bool)> = cases
            .iter()
            .map(|(text, expected)| {
                let error = parse_in(&dir, text).expect_err(text);
                let prefix = format!("{}{expected}", path.display());
                (
                    error.exit_code,
                    error.message.starts_with(&prefix) || {
                        eprintln!("{}", error.message);
                        false
                    },
                )
            })
            .collect();
        assert_eq!(got, vec![(2, true); cases.len()]);
    }
}
