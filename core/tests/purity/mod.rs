//! The core is pure: no files, sockets, processes, threads, environment or clocks, and it prints
//! nothing. The compiler guarantees that, because the crate is `#![no_std]`: none of those exist
//! in `core` and `alloc`. What the compiler cannot see is checked here: that the crate stays
//! `no_std` (nothing brings `std` back outside the unit tests) and that its only dependencies are
//! serde and serde_json, without their `std` features.

use std::path::{Path, PathBuf};

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

/// `#![no_std]` at the crate root, and `extern crate std` nowhere but under `#[cfg(test)]`.
#[test]
fn the_core_is_no_std_and_nothing_brings_std_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let root = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    assert!(
        root.lines().any(|line| line.trim() == "#![no_std]"),
        "lib.rs declares #![no_std]"
    );
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 10, "the core's sources were found");
    let mut std_outside_tests: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let brings_std = code.contains("extern crate std");
            let under_cfg_test = number > 0 && lines[number - 1].trim() == "#[cfg(test)]";
            if brings_std && !under_cfg_test {
                std_outside_tests.push(format!("{}:{}", file.display(), number + 1));
            }
        }
    }
    assert_eq!(std_outside_tests, Vec::<String>::new());
}

/// `[dependencies]` as (name, whether it turns default features off): serde and serde_json, both
/// without `std`.
#[test]
fn the_core_depends_on_serde_and_serde_json_only_without_std() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let dependencies: Vec<(&str, bool)> = manifest
        .split("\n[dependencies]")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|line| {
            let name = line.split(['.', '=', ' ']).next().unwrap();
            let no_std = line.contains("default-features = false") && !line.contains("\"std\"");
            (name, no_std)
        })
        .collect();
    assert_eq!(dependencies, [("serde", true), ("serde_json", true)]);
}
