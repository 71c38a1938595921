//! The documents stand alone: every repository path that README and `docs/` name exists, and no
//! file of the repository sends its reader to a document or an issue the repository does not hold.

use std::path::{Path, PathBuf};

use regex::Regex;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Folders a path in prose is written from: the document's own, then the places whose paths
/// the docs use without a prefix (`attempt/driver.rs` for `shell/src/attempt/driver.rs`,
/// `tests/test_path_rules.py` for the sample's).
const ROOTS: [&str; 5] = ["", "shell/src", "core/src", "shell", "sample-repo"];

/// Folders that are built, installed or generated, never written by hand.
const NOT_SOURCES: [&str; 8] = [
    ".git",
    "target",
    ".venv",
    "node_modules",
    ".eval",
    ".live-local",
    "__pycache__",
    ".pytest_cache",
];

fn files_under(folder: &Path, keep: &dyn Fn(&Path) -> bool, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !NOT_SOURCES.contains(&name.as_str()) {
                files_under(&path, keep, found);
            }
        } else if keep(&path) {
            found.push(path);
        }
    }
}

/// README.md and core/README.md, every markdown file under docs/, and every other README.
fn documents(repo: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    files_under(
        repo,
        &|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name == "README.md"
                || (path.parent().unwrap().ends_with("docs") && name.ends_with(".md"))
        },
        &mut found,
    );
    found.sort();
    found
}

/// The paths a document names: the targets of its relative links, and the words in backticks
/// shaped like a path whose first part is a file or folder of one of the roots.
fn named_paths(repo: &Path, document: &Path, text: &str) -> Vec<(String, Vec<PathBuf>)> {
    let here = document.parent().unwrap().to_path_buf();
    let mut named = Vec::new();
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    for target in link.captures_iter(text) {
        let target = target[1].split('#').next().unwrap();
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        named.push((target.to_owned(), vec![here.clone()]));
    }
    let quoted = Regex::new(r"`([A-Za-z0-9_.][A-Za-z0-9_./-]*/[A-Za-z0-9_./-]*)`").unwrap();
    for word in quoted.captures_iter(text) {
        let path = word[1].trim_end_matches('/');
        if path.starts_with("./") || path.starts_with("../") {
            continue;
        }
        let first = path.split('/').next().unwrap();
        let bases: Vec<PathBuf> = std::iter::once(here.clone())
            .chain(ROOTS.iter().map(|root| repo.join(root)))
            .filter(|base| base.join(first).exists())
            .collect();
        if !bases.is_empty() {
            named.push((path.to_owned(), bases));
        }
    }
    named
}

#[test]
fn every_path_the_documents_name_exists() {
    let repo = repository();
    let documents = documents(&repo);
    assert!(
        documents.len() >= 5,
        "found only {documents:?}: the walk is broken"
    );
    let mut checked = 0;
    let mut missing = Vec::new();
    for document in &documents {
        let text = std::fs::read_to_string(document).unwrap();
        for (path, bases) in named_paths(&repo, document, &text) {
            checked += 1;
            if !bases.iter().any(|base| base.join(&path).exists()) {
                let shown = document.strip_prefix(&repo).unwrap().display().to_string();
                missing.push(format!("{shown}: {path}"));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: the search is broken"
    );
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn a_moved_file_is_found_missing() {
    let repo = repository();
    let readme = repo.join("README.md");
    let named = named_paths(
        &repo,
        &readme,
        "see `shell/src/driver.rs`, `shell/src/attempt/driver.rs` and [the core](core/README.md), \
         [gone](docs/gone.md), `REPO/.mend/`, `a/b`",
    );
    let exists: Vec<(String, bool)> = named
        .into_iter()
        .map(|(path, bases)| {
            let found = bases.iter().any(|base| base.join(&path).exists());
            (path, found)
        })
        .collect();
    assert_eq!(
        exists,
        [
            ("core/README.md".to_owned(), true),
            ("docs/gone.md".to_owned(), false),
            ("shell/src/driver.rs".to_owned(), false),
            ("shell/src/attempt/driver.rs".to_owned(), true),
        ]
    );
}

/// Sends the reader elsewhere: a planning document the repository does not hold, or an issue
/// tracker's number.
fn citations(text: &str) -> Vec<String> {
    let names = PLANNING.join("|");
    let outside = Regex::new(&format!(
        r"\b({names})(\.md)?\s*§|\b({names})\.md\b|\b[Ii]ssues? #?\d+"
    ))
    .unwrap();
    outside
        .find_iter(text)
        .map(|found| found.as_str().to_owned())
        .collect()
}

#[test]
fn no_file_cites_a_document_outside_the_repository() {
    let repo = repository();
    let mut files = Vec::new();
    files_under(
        &repo,
        &|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            let text_kinds = [".rs", ".md", ".py", ".toml", ".sh", ".yaml", ".txt"];
            text_kinds.iter().any(|kind| name.ends_with(kind))
                || name == "Makefile"
                || name == "run"
        },
        &mut files,
    );
    assert!(files.len() > 100, "found only {} files", files.len());
    let this_file = repo.join("shell/tests/house/docs.rs");
    let mut cited = Vec::new();
    for file in files.iter().filter(|file| **file != this_file) {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            for citation in citations(line) {
                let shown = file.strip_prefix(&repo).unwrap().display();
                cited.push(format!("{shown}:{}: {citation}", number + 1));
            }
        }
    }
    assert_eq!(cited, Vec::<String>::new());
}

/// The planning documents the project grew from, which a clone does not hold: spelled in pieces
/// here, so that the test of citations does not cite them itself.
const PLANNING: [&str; 3] = ["SPEC", "WIRE", "DESIGN"];

#[test]
fn citations_are_recognised() {
    let [spec, wire, design] = PLANNING;
    let (issue, number) = ("issue", 14);
    let text = format!(
        "({spec} §4) ({wire}.md §8.2) see {design}.md; {issue} {number}, {issue}s #3; \
         a {spec}IFIC §, {issue}-free, docs/design.md"
    );
    assert_eq!(
        citations(&text),
        [
            format!("{spec} §"),
            format!("{wire}.md §"),
            format!("{design}.md"),
            format!("{issue} {number}"),
            format!("{issue}s #3"),
        ]
    );
}
