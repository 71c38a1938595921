//! Tests of `detect`.

use super::{detect, Guess, Kind, JS};
use crate::test_support::project;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

#[test]
fn a_cargo_workspace_names_each_member_and_never_target() {
    let (_dir, root) = project(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"core\"]\n"),
        ("src/main.rs", ""),
        ("core/Cargo.toml", ""),
        ("core/src/lib.rs", ""),
        ("core/tests/api.rs", ""),
        ("target/debug/build.rs", ""),
    ]);
    assert_eq!(
        detect(&root),
        vec![Guess {
            kind: Kind::Cargo,
            command: strings(&["cargo", "test", "--no-fail-fast"]),
            report: "libtest",
            timeout_seconds: 600,
            readable: strings(&[
                "src/**/*.rs",
                "core/src/**/*.rs",
                "core/tests/**/*.rs",
                "Cargo.toml",
                "core/Cargo.toml"
            ]),
            editable: strings(&["src/**/*.rs", "core/src/**/*.rs"]),
            tests: strings(&["core/tests/**/*.rs"]),
            notes: Vec::new(),
        }]
    );
}

#[test]
fn a_crates_build_script_benches_and_examples_are_readable_not_editable() {
    let (_dir, root) = project(&[
        ("Cargo.toml", "[package]\nname = \"c\"\n"),
        ("build.rs", ""),
        ("src/lib.rs", ""),
        ("tests/api.rs", ""),
        ("benches/speed.rs", ""),
        ("examples/demo.rs", ""),
    ]);
    let guess = detect(&root).remove(0);
    assert_eq!(
        (guess.readable, guess.editable, guess.tests),
        (
            strings(&[
                "src/**/*.rs",
                "tests/**/*.rs",
                "build.rs",
                "benches/**/*.rs",
                "examples/**/*.rs",
                "Cargo.toml"
            ]),
            strings(&["src/**/*.rs"]),
            strings(&["tests/**/*.rs"]),
        )
    );
}

#[test]
fn only_a_pytest_task_file_says_plugins() {
    let (_dir, root) = project(&[
        ("Cargo.toml", "[package]\nname = \"c\"\n"),
        ("src/lib.rs", ""),
        ("pyproject.toml", ""),
        ("tests/test_c.py", ""),
    ]);
    let said: Vec<(Kind, bool)> = detect(&root)
        .iter()
        .map(|guess| {
            let text = crate::commands::init::template::render(guess, None, &[], &[]);
            (guess.kind, text.contains("plugins"))
        })
        .collect();
    assert_eq!(said, [(Kind::Pytest, true), (Kind::Cargo, false)]);
}

#[test]
fn a_folder_inside_a_project_finds_the_project_above_it() {
    let (_dir, root) = project(&[
        ("go.mod", "module m\n"),
        ("pkg/deep/m.go", "package deep\n"),
    ]);
    assert_eq!(
        super::project_above(&root.join("pkg/deep")),
        Some((root.canonicalize_utf8().unwrap(), Kind::Go))
    );
}

#[test]
fn an_npm_package_with_the_placeholder_test_script_is_told_so() {
    let (_dir, root) = project(&[
        (
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
        ),
        ("index.js", ""),
        ("test.js", ""),
        ("node_modules/dep/index.js", ""),
    ]);
    let guess = detect(&root).remove(0);
    assert_eq!(
        guess,
        Guess {
            kind: Kind::Npm,
            command: strings(&["npm", "test"]),
            report: "exit_code",
            timeout_seconds: 300,
            readable: vec![
                format!("*.{JS}"),
                format!("test.{JS}"),
                format!("*.test.{JS}"),
                format!("*.spec.{JS}"),
                "package.json".to_owned()
            ],
            editable: vec![format!("*.{JS}")],
            tests: vec![
                format!("test.{JS}"),
                format!("*.test.{JS}"),
                format!("*.spec.{JS}")
            ],
            notes: strings(&[
                "package.json's scripts.test is npm's placeholder, which always fails: set a real one"
            ]),
        }
    );
}

#[test]
fn an_npm_package_testing_from_a_file_its_script_names_protects_that_file() {
    let (_dir, root) = project(&[
        (
            "package.json",
            r#"{"scripts": {"test": "node tests.js && eslint ."}}"#,
        ),
        ("index.js", ""),
        ("tests.js", ""),
    ]);
    let guess = detect(&root).remove(0);
    assert_eq!(
        (guess.tests, guess.notes),
        (strings(&["tests.js"]), Vec::<String>::new())
    );
    // A script that names nothing there leaves no test file, and says so.
    let (_dir, bare) = project(&[
        ("package.json", r#"{"scripts": {"test": "node run-all"}}"#),
        ("index.js", ""),
    ]);
    let guess = detect(&bare).remove(0);
    assert_eq!(
        (guess.tests, guess.notes),
        (
            Vec::<String>::new(),
            strings(&[
                "found no test files: name them in test.files, or the verdict rests on no protected file"
            ])
        )
    );
}

#[test]
fn a_python_package_at_the_top_with_tests_inside_it_protects_them() {
    let (_dir, root) = project(&[
        ("setup.py", ""),
        ("textkit/__init__.py", ""),
        ("textkit/tests/test_slug.py", ""),
        ("docs/conf.py", ""),
        ("conftest.py", ""),
    ]);
    let kinds: Vec<(Kind, Vec<String>, Vec<String>)> = detect(&root)
        .into_iter()
        .map(|guess| (guess.kind, guess.editable, guess.tests))
        .collect();
    assert_eq!(
        kinds,
        vec![(
            Kind::Pytest,
            strings(&["textkit/**/*.py"]),
            strings(&["textkit/**/tests/**/*.py", "conftest.py"])
        )]
    );
}

#[test]
fn a_go_module_and_a_python_project_in_one_folder_are_both_found_python_first() {
    let (_dir, root) = project(&[("go.mod", "module x\n"), ("pyproject.toml", "")]);
    let kinds: Vec<Kind> = detect(&root).iter().map(|guess| guess.kind).collect();
    assert_eq!(kinds, vec![Kind::Pytest, Kind::Go]);
}

/// A README that pytest runs as a doctest (`--doctest-glob`) is a test: readable, protected.
#[test]
fn a_readme_pytest_runs_as_a_doctest_is_a_readable_protected_test() {
    let (_dir, root) = project(&[
        (
            "setup.cfg",
            "[tool:pytest]\naddopts = --doctest-glob=README.rst\n",
        ),
        ("README.rst", ">>> 1 + 1\n2\n"),
        ("pkg/__init__.py", ""),
        ("tests/test_pkg.py", ""),
    ]);
    let guess = detect(&root).remove(0);
    assert_eq!(
        (guess.tests, guess.readable),
        (
            strings(&["tests/**/*.py", "**/README.rst"]),
            strings(&["pkg/**/*.py", "tests/**/*.py", "**/README.rst", "setup.cfg"])
        )
    );
}
