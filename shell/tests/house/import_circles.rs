//! The shell's files import each other without circles: a file that reaches back to one that
//! reaches it cannot be read (or moved) alone. Every `crate::a::b` path outside test code is an
//! edge to the file of the longest module it names; a circle of two files or more fails here,
//! with the files in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["tools", "table"]`) to the file that holds it, for every `.rs` under `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|last| last == "mod") || parts == ["lib"] {
                parts.pop();
            }
            found.insert(parts, path);
        }
    }
    found
}

/// The code of a file without its test code and comments: test files are skipped whole, an
/// inline `#[cfg(test)]` module is cut off (it comes last in every file here), and a doc link is
/// no import.
fn production_text(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let in_test_folder = path.iter().any(|part| part == "tests");
    if name == "tests.rs" || name.ends_with("_tests.rs") || in_test_folder {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    Some(
        code.lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Every `crate::…` path in `text`, as its segments, and the `crate::{a, b::c}` groups of a `use`.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue; // `mend_crate::` or similar, not this crate
        }
        let mut segments = Vec::new();
        let mut rest = &text[from..];
        loop {
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ident.is_empty() {
                if rest.starts_with('{') {
                    // A group: each member continues the path so far.
                    let close = rest.find('}').unwrap_or(rest.len());
                    for member in rest[1..close].split(',') {
                        let mut path = segments.clone();
                        path.extend(
                            member
                                .trim()
                                .split("::")
                                .map(|part| part.trim().to_owned())
                                .filter(|part| !part.is_empty() && part != "self"),
                        );
                        paths.push(path);
                    }
                }
                break;
            }
            rest = &rest[ident.len()..];
            segments.push(ident);
            match rest.strip_prefix("::") {
                Some(after) => rest = after,
                None => break,
            }
        }
        paths.push(segments);
    }
    paths
}

/// The file of the longest module `path` starts with.
fn target<'m>(modules: &'m BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<&'m PathBuf> {
    (1..=path.len())
        .rev()
        .find_map(|len| modules.get(&path[..len]))
}

/// The strongly connected components of two files or more (Tarjan).
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'e> {
        edges: &'e BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'e PathBuf, usize>,
        low: BTreeMap<&'e PathBuf, usize>,
        stack: Vec<&'e PathBuf>,
        on_stack: BTreeSet<&'e PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn visit<'e>(state: &mut State<'e>, node: &'e PathBuf) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        state.on_stack.insert(node);
        for next in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

fn import_edges(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let modules = modules(src);
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in modules.values() {
        let Some(text) = production_text(file) else {
            continue;
        };
        let relative = file.strip_prefix(src).unwrap().to_path_buf();
        let reached = edges.entry(relative.clone()).or_default();
        for path in crate_paths(&text) {
            if let Some(to) = target(&modules, &path) {
                let to = to.strip_prefix(src).unwrap().to_path_buf();
                if to != relative && production_text(&src.join(&to)).is_some() {
                    reached.insert(to);
                }
            }
        }
    }
    edges
}

#[test]
fn no_file_of_the_shell_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(circles(&import_edges(&src)), Vec::<Vec<PathBuf>>::new());
}

/// The core's hidden `internal` module is for its own fuzz targets, benches and tests, and may
/// change in any release; the shell uses the core's documented API only.
#[test]
fn no_production_file_of_the_shell_imports_the_cores_internal_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let users: Vec<PathBuf> = modules(&src)
        .into_values()
        .filter(|path| {
            production_text(path).is_some_and(|code| code.contains("mend_core::internal"))
        })
        .collect();
    assert_eq!(users, Vec::<PathBuf>::new());
}

#[test]
fn the_check_finds_a_circle_of_three_and_reads_use_groups() {
    assert_eq!(
        crate_paths("use crate::record::{Record, spill::Range};\nlet x = crate::run::hint(1);"),
        vec![
            vec!["record".to_owned(), "Record".to_owned()],
            vec!["record".to_owned(), "spill".to_owned(), "Range".to_owned()],
            vec!["record".to_owned()],
            vec!["run".to_owned(), "hint".to_owned()],
        ]
    );
    let edge = |from: &str, to: &[&str]| {
        (
            PathBuf::from(from),
            to.iter().map(PathBuf::from).collect::<BTreeSet<_>>(),
        )
    };
    let edges = BTreeMap::from([
        edge("a.rs", &["b.rs"]),
        edge("b.rs", &["c.rs", "d.rs"]),
        edge("c.rs", &["a.rs"]),
        edge("d.rs", &[]),
    ]);
    assert_eq!(
        circles(&edges),
        vec![vec![
            PathBuf::from("a.rs"),
            PathBuf::from("b.rs"),
            PathBuf::from("c.rs")
        ]]
    );
}

#[test]
fn a_circle_through_a_folder_in_a_source_tree_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("record")).unwrap();
    let files = [
        ("lib.rs", "pub mod record;\npub mod driver;\n"),
        (
            "record/mod.rs",
            "pub mod spill;\nuse crate::driver::Metrics;\n",
        ),
        (
            "record/spill.rs",
            "// crate::driver is named in a comment only\n",
        ),
        ("driver.rs", "use crate::record::{spill::Range, Turn};\n"),
        ("record/tests.rs", "use crate::driver::Driver;\n"),
    ];
    for (path, text) in files {
        std::fs::write(src.join(path), text).unwrap();
    }
    assert_eq!(
        circles(&import_edges(src)),
        vec![vec![
            PathBuf::from("driver.rs"),
            PathBuf::from("record/mod.rs")
        ]]
    );
}
