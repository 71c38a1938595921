//! Which protected files the write tools' globs can reach, for the tools' descriptions: told up
//! front, the model does not spend a turn on a refusal. Read on the globs' text alone, as the
//! descriptions are built before any copy exists (and again on replay): each editable glob is
//! tried on a path of its own shape that ends in a protected name, and each test-file glob on a
//! path of its own shape.

use crate::access::{protection, Protected};
use crate::task::Task;

/// Names the test configuration is protected by, wherever they stand, each as a file the
/// editable globs could hold.
const CONFIG_PROBES: &[&str] = &[
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "sitecustomize.py",
    "usercustomize.py",
    "noxfile.py",
    "hatch.toml",
    "build.rs",
    "Cargo.toml",
    "package.json",
    ".npmrc",
    "jest.config.js",
    "vitest.config.ts",
];

/// The sentence the write tools' descriptions end with, naming the protected files their globs
/// reach; empty when they reach none (then the globs say all there is).
pub(crate) fn protected_note(task: &Task) -> String {
    let mut parts = Vec::new();
    if test_files_in_reach(task) {
        parts.push(format!(
            "the task's test files ({})",
            task.test.files.listed("and")
        ));
    }
    let config = config_in_reach(task);
    if let Some((last, rest)) = config.split_last() {
        let names = if rest.is_empty() {
            (*last).to_owned()
        } else {
            format!("{} and {last}", rest.join(", "))
        };
        parts.push(format!("test configuration ({names}, in any folder)"));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        " Protected, so never written whatever the globs say (the verdict rests on them): {}.",
        parts.join(" and ")
    )
}

/// Whether a path of a test-file glob's shape is also editable.
fn test_files_in_reach(task: &Task) -> bool {
    task.test.files.patterns().iter().any(|pattern| {
        shape(pattern, None).is_some_and(|path| {
            task.editable.contains(&path) && protection(task, &path) == Some(Protected::TestFile)
        })
    })
}

/// The protected names an editable glob can end in, in [`CONFIG_PROBES`]' order.
fn config_in_reach(task: &Task) -> Vec<&'static str> {
    CONFIG_PROBES
        .iter()
        .copied()
        .filter(|name| {
            task.editable.patterns().iter().any(|pattern| {
                shape(pattern, Some(name)).is_some_and(|path| {
                    task.editable.contains(&path)
                        && matches!(protection(task, &path), Some(Protected::TestConfig(_)))
                })
            })
        })
        .collect()
}

/// A path of the glob's shape: `**` crossing no folder, `*` and `?` standing for `x`, the last
/// part replaced by `name` when one is given; `None` for a glob with classes or alternatives.
fn shape(pattern: &str, name: Option<&str>) -> Option<String> {
    if pattern.contains(['[', '{']) {
        return None;
    }
    let mut parts: Vec<String> = pattern
        .split('/')
        .filter(|part| *part != "**")
        .map(|part| part.replace(['*', '?'], "x"))
        .collect();
    if parts.is_empty() {
        // `**` alone: any path at all.
        parts.push("x".to_owned());
    }
    if let (Some(name), Some(last)) = (name, parts.last_mut()) {
        *last = name.to_owned();
    }
    let path = parts.join("/");
    Some(path)
}

#[cfg(test)]
mod tests {
    use camino::Utf8Path;

    use super::protected_note;
    use crate::task::Task;

    fn task(editable: &str, config_editable: &str) -> Task {
        Task::parse(
            Utf8Path::new("mend.toml"),
            &format!(
                r#"
[paths]
readable = ["**"]
editable = {editable}
[test]
command = ["python", "-m", "pytest", "-q"]
timeout_seconds = 5
files = ["tests/**/test_*.py"]
config_editable = {config_editable}
[tools]
enabled = ["read_file", "write_file"]
"#
            ),
        )
        .unwrap()
    }

    #[test]
    fn the_note_names_the_protected_files_the_editable_globs_reach_and_only_those() {
        let lead =
            " Protected, so never written whatever the globs say (the verdict rests on them): ";
        let notes = [
            // One plain file that is no test and no configuration: nothing to say.
            task(r#"["src/app.py"]"#, "[]"),
            // Python under a folder: a conftest.py there, and its setup tools, are in reach.
            task(r#"["src/**/*.py"]"#, "[]"),
            // Everything: the test files too, and every protected name.
            task(r#"["**"]"#, "[]"),
            // TOML files at the top, one of which the task opens to the tools.
            task(r#"["*.toml"]"#, r#"["pyproject.toml"]"#),
        ]
        .map(|task| protected_note(&task));
        assert_eq!(
            notes,
            [
                String::new(),
                format!("{lead}test configuration (conftest.py, sitecustomize.py, usercustomize.py and noxfile.py, in any folder)."),
                format!("{lead}the task's test files (tests/**/test_*.py) and test configuration (conftest.py, pytest.ini, tox.ini, setup.cfg, pyproject.toml, sitecustomize.py, usercustomize.py, noxfile.py, hatch.toml, build.rs, Cargo.toml, package.json, .npmrc, jest.config.js and vitest.config.ts, in any folder)."),
                format!("{lead}test configuration (hatch.toml and Cargo.toml, in any folder)."),
            ]
        );
    }
}
