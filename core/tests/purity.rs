//! The core is pure: no files, sockets, processes, threads, environment or clocks, and it prints
//! nothing; its only dependencies are serde and serde_json. Checked on the sources themselves.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

use std::path::{Path, PathBuf};

const FORBIDDEN: [&str; 12] = [
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "std::env",
    "std::time",
    "std::io",
    "println!",
    "eprintln!",
    "print!",
    "eprint!",
    "dbg!",
];

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn the_core_touches_nothing_outside_itself() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 10, "the core's sources were found");
    let mut uses: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for pattern in FORBIDDEN.iter().filter(|pattern| code.contains(*pattern)) {
                uses.push(format!("{}:{}: {pattern}", file.display(), number + 1));
            }
        }
    }
    assert_eq!(uses, Vec::<String>::new());
}

#[test]
fn the_core_depends_on_serde_and_serde_json_only() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let dependencies: Vec<&str> = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|line| line.split(['.', '=', ' ']).next().unwrap())
        .collect();
    assert_eq!(dependencies, ["serde", "serde_json"]);
}
