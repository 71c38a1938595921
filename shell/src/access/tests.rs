//! The access rules as a table: one row per case, with the task settings it runs under.

use camino::Utf8Path;

use super::*;
use crate::test_support::project;

/// A task with every path readable and editable but the tests, so that only the protections
/// decide; `extra` adds lines to its `[test]` table.
fn task(command: &str, extra: &str) -> Task {
    Task::parse(
        Utf8Path::new("mend.toml"),
        &format!(
            r#"
[paths]
readable = ["**"]
editable = ["**"]
[test]
command = {command}
timeout_seconds = 5
files = ["tests/*.py"]
{extra}
[tools]
enabled = ["read_file", "write_file"]
"#
        ),
    )
    .unwrap()
}

fn pytest() -> Task {
    task(r#"["python", "-m", "pytest", "-q"]"#, "")
}

const PYTEST_CONFIG: &str = "it holds pytest's settings";
const CONFTEST: &str = "pytest runs it while collecting the tests";
const STARTUP: &str = "Python runs it whenever it starts";
const PTH: &str = "Python runs its import lines whenever it starts";
const RUNNER: &str = "it holds the test runner's settings";
const SHADOW: &str = "a module of that name would be imported in place of the test runner";
const CARGO: &str = "it holds cargo's settings for the build and the tests";
const RUNS_IT: &str = "the test command runs it";
const MAKE: &str = "the test command runs make, which reads it";

fn config(reason: &'static str) -> Result<&'static str, Refusal> {
    Err(Refusal::Protected(Protected::TestConfig(reason)))
}

/// A task whose globs decide: only the sources are editable, only they and the tests readable.
fn narrow() -> Task {
    Task::parse(
        Utf8Path::new("mend.toml"),
        r#"
[paths]
readable = ["src/**/*.py", "tests/*.py"]
editable = ["src/**/*.py"]
[test]
command = ["python", "-m", "pytest"]
timeout_seconds = 5
files = ["tests/*.py"]
[tools]
enabled = ["read_file"]
"#,
    )
    .unwrap()
}

/// pytest, with some of its configuration opted in as editable.
fn opted_in() -> Task {
    task(
        r#"["python", "-m", "pytest"]"#,
        r#"config_editable = ["pyproject.toml", "tests/conftest.py", "src/**/conftest.py"]"#,
    )
}

type Case<'a> = (&'a Task, &'a str, Operation, Result<&'a str, Refusal>);

/// Each case decided as the table says, compared whole.
fn assert_decided(cases: &[Case]) {
    let seen: Vec<_> = cases
        .iter()
        .map(|(task, path, operation, _)| (*path, *operation, decide(task, path, *operation)))
        .collect();
    let expected: Vec<_> = cases
        .iter()
        .map(|(_, path, operation, decision)| (*path, *operation, decision.map(str::to_owned)))
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn the_text_itself_and_then_the_globs_decide() {
    use Operation::{Read, Write};
    let wide = pytest();
    let narrow = narrow();
    let malformed = |why| Err(Refusal::Malformed(why));
    assert_decided(&[
        (&wide, "src/app.py", Write, Ok("src/app.py")),
        (&wide, "./src//app.py", Read, Ok("src/app.py")),
        (&wide, "", Read, malformed(Malformed::Empty)),
        (&wide, "./ ", Write, malformed(Malformed::Empty)),
        (&wide, "/etc/passwd", Read, malformed(Malformed::Absolute)),
        (&wide, "./C:/x.py", Write, malformed(Malformed::Absolute)),
        (
            &wide,
            "src/../../x",
            Read,
            malformed(Malformed::LeavesRepository),
        ),
        (&wide, "src\\app.py", Write, malformed(Malformed::Backslash)),
        (&narrow, "src/pkg/app.py", Write, Ok("src/pkg/app.py")),
        (&narrow, "tests/test_app.py", Read, Ok("tests/test_app.py")),
        (&narrow, "README.md", Read, Err(Refusal::NotInSet)),
        (&narrow, "src/notes.txt", Write, Err(Refusal::NotInSet)),
    ]);
}

#[test]
fn test_files_are_readable_and_never_writable_even_when_opted_in_as_configuration() {
    use Operation::{Read, Write};
    let wide = pytest();
    let narrow = narrow();
    let opted_in = opted_in();
    let test_file = Err(Refusal::Protected(Protected::TestFile));
    assert_decided(&[
        (&wide, "tests/test_app.py", Read, Ok("tests/test_app.py")),
        (&wide, "tests/test_app.py", Write, test_file),
        (&narrow, "tests/test_app.py", Write, test_file),
        (&opted_in, "tests/conftest.py", Write, test_file),
    ]);
}

#[test]
fn pythons_test_configuration_is_readable_and_not_writable() {
    use Operation::{Read, Write};
    let wide = pytest();
    let narrow = narrow();
    assert_decided(&[
        (&wide, "conftest.py", Read, Ok("conftest.py")),
        (&wide, "conftest.py", Write, config(CONFTEST)),
        (&narrow, "src/pkg/conftest.py", Write, config(CONFTEST)),
        (&wide, "pytest.ini", Write, config(PYTEST_CONFIG)),
        (&wide, "sub/.pytest.ini", Write, config(PYTEST_CONFIG)),
        (
            &wide,
            "tox.ini",
            Write,
            config("it can hold pytest's settings"),
        ),
        (
            &wide,
            "setup.cfg",
            Write,
            config("it can hold pytest's settings"),
        ),
        (
            &wide,
            "pkg/pyproject.toml",
            Write,
            config("it holds the settings of pytest and of the tools that run it"),
        ),
        (&wide, "sitecustomize.py", Write, config(STARTUP)),
        (&wide, "src/usercustomize.py", Write, config(STARTUP)),
        (&wide, "src/plant.pth", Write, config(PTH)),
        (
            &wide,
            "noxfile.py",
            Write,
            config("it defines how the tests run"),
        ),
        (
            &wide,
            "hatch.toml",
            Write,
            config("it defines how the tests run"),
        ),
    ]);
}

#[test]
fn other_runners_test_configuration_is_not_writable() {
    use Operation::Write;
    let wide = pytest();
    assert_decided(&[
        (
            &wide,
            "crates/x/build.rs",
            Write,
            config("cargo runs it before building the tests"),
        ),
        (
            &wide,
            "Cargo.toml",
            Write,
            config("it says which tests cargo builds and runs"),
        ),
        (&wide, ".cargo/config.toml", Write, config(CARGO)),
        (&wide, "crates/x/.cargo/config", Write, config(CARGO)),
        (
            &wide,
            ".config/nextest.toml",
            Write,
            config("it holds cargo-nextest's settings"),
        ),
        (
            &wide,
            "web/package.json",
            Write,
            config("its scripts run the tests"),
        ),
        (
            &wide,
            ".npmrc",
            Write,
            config("it holds npm's settings for running scripts"),
        ),
        (&wide, "web/jest.config.ts", Write, config(RUNNER)),
        (&wide, ".mocharc.yml", Write, config(RUNNER)),
        (&wide, "vitest.config.mjs", Write, config(RUNNER)),
        (&wide, "vite.config.js", Write, config(RUNNER)),
        (&wide, "pytest.py", Write, config(SHADOW)),
        (&wide, "src/_pytest/main.py", Write, config(SHADOW)),
        (&wide, "src/pytest/__init__.py", Write, config(SHADOW)),
    ]);
}

#[test]
fn names_that_only_look_alike_and_files_opted_in_by_name_are_writable() {
    use Operation::Write;
    let wide = pytest();
    let opted_in = opted_in();
    assert_decided(&[
        (&wide, "src/config.toml", Write, Ok("src/config.toml")),
        (&wide, "src/builder.rs", Write, Ok("src/builder.rs")),
        (&wide, "src/my_pytest.py", Write, Ok("src/my_pytest.py")),
        (
            &wide,
            "docs/package.json.md",
            Write,
            Ok("docs/package.json.md"),
        ),
        (
            &wide,
            "src/pytest/helpers.py",
            Write,
            Ok("src/pytest/helpers.py"),
        ),
        (&wide, "Makefile", Write, Ok("Makefile")),
        (&opted_in, "pyproject.toml", Write, Ok("pyproject.toml")),
        (
            &opted_in,
            "src/a/conftest.py",
            Write,
            Ok("src/a/conftest.py"),
        ),
        (&opted_in, "conftest.py", Write, config(CONFTEST)),
        (
            &opted_in,
            "sub/pyproject.toml",
            Write,
            config("it holds the settings of pytest and of the tools that run it"),
        ),
    ]);
}

#[test]
fn what_the_test_command_names_is_not_writable() {
    use Operation::Write;
    let make = task(r#"["make", "test"]"#, "");
    let script = task(r#"["./scripts/test.sh", "--fast"]"#, "");
    let unittest = task(r#"["python", "-m", "unittest"]"#, "");
    let dotted = task(r#"["python", "-m", "mypkg.run_tests"]"#, "");
    assert_decided(&[
        (&make, "Makefile", Write, config(MAKE)),
        (&make, "sub/GNUmakefile", Write, config(MAKE)),
        (&make, "mk/rules.mk", Write, config(MAKE)),
        (&script, "scripts/test.sh", Write, config(RUNS_IT)),
        (&script, "scripts/lint.sh", Write, Ok("scripts/lint.sh")),
        (&unittest, "unittest.py", Write, config(SHADOW)),
        (&unittest, "src/unittest/__main__.py", Write, config(SHADOW)),
        (
            &unittest,
            "src/unittest/helpers.py",
            Write,
            Ok("src/unittest/helpers.py"),
        ),
        (&dotted, "mypkg/core.py", Write, Ok("mypkg/core.py")),
        (&dotted, "mypkg/__init__.py", Write, config(SHADOW)),
    ]);
}

#[test]
fn a_refusal_says_why_and_what_to_do() {
    let task = pytest();
    let cases = [
        ("tests/test_app.py", "`tests/test_app.py` is one of the task's test files, which no tool may change; change the code under test instead"),
        ("./src/conftest.py", "`src/conftest.py` is test configuration (pytest runs it while collecting the tests), which no tool may change; change the code under test instead (a task that must change it names it in test.config_editable)"),
        ("../x.py", "`../x.py` leaves the repository; use one of: **"),
    ];
    for (path, message) in cases {
        let refusal = decide(&task, path, Operation::Write).unwrap_err();
        assert_eq!(refusal.explain(path, &task, Operation::Write), message);
    }
}

#[test]
fn the_protected_files_of_a_tree_are_listed_with_why() {
    let (_dir, root) = project(&[
        ("src/app.py", "x"),
        ("src/conftest.py", "x"),
        ("tests/test_app.py", "x"),
        ("tests/data.json", "x"),
        ("pyproject.toml", "x"),
        ("README.md", "x"),
        ("__pycache__/conftest.py", "x"),
    ]);
    let task = task(
        r#"["python", "-m", "pytest"]"#,
        r#"config_editable = ["pyproject.toml"]"#,
    );
    assert_eq!(
        protected_files(&task, &root).unwrap(),
        [
            (
                "src/conftest.py".to_owned(),
                Protected::TestConfig(CONFTEST)
            ),
            // Not code, in the test files' folder: data the tests read.
            ("tests/data.json".to_owned(), Protected::FixtureData),
            ("tests/test_app.py".to_owned(), Protected::TestFile),
        ]
    );
    assert_eq!(protection(&task, "pyproject.toml"), None);
}

#[test]
fn a_write_lands_where_the_links_lead_and_creates_nothing() {
    let (_dir, root) = project(&[
        ("src/app.py", "x"),
        ("tests/test_app.py", "x"),
        ("setup.cfg", "x"),
    ]);
    std::os::unix::fs::symlink("../tests", root.join("src/t")).unwrap();
    std::os::unix::fs::symlink("../setup.cfg", root.join("src/settings.ini")).unwrap();
    let task = pytest();
    let real_root = root.canonicalize_utf8().unwrap();
    assert_eq!(
        grant(&root, &task, "src/new/deep/mod.py", Operation::Write)
            .map_err(|denied| denied.to_string()),
        Ok(Granted {
            relative: "src/new/deep/mod.py".to_owned(),
            real: real_root.join("src/new/deep/mod.py"),
            exists: false,
        })
    );
    assert!(!root.join("src/new").exists());
    assert_eq!(
        grant(&root, &task, "src/settings.ini", Operation::Write).map_err(|denied| denied.to_string()),
        Err("`src/settings.ini` is a link to `setup.cfg`, test configuration (it can hold pytest's settings), which no tool may change".to_owned())
    );
    assert_eq!(
        grant(&root, &task, "src/t/test_app.py", Operation::Read)
            .map(|granted| granted.real)
            .map_err(|denied| denied.to_string()),
        Ok(real_root.join("tests/test_app.py"))
    );
}

#[test]
fn a_snapshot_puts_back_what_a_command_did_to_protected_files() {
    let (_dir, root) = project(&[
        ("src/app.py", "x = 1\n"),
        ("conftest.py", "# fixtures\n"),
        ("tests/test_app.py", "def test(): assert False\n"),
    ]);
    let outside = tempfile::tempdir().unwrap();
    let task = pytest();
    let before = Snapshot::take(&task, &root).unwrap();
    // What a command might do: rewrite the conftest, plant another, swap the tests folder
    // for a link out of the copy, and change the code, which is its to change.
    std::fs::write(root.join("conftest.py"), "import os; os._exit(0)\n").unwrap();
    std::fs::write(root.join("src/conftest.py"), "planted\n").unwrap();
    std::fs::rename(root.join("tests"), root.join("old_tests")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("tests")).unwrap();
    std::fs::write(root.join("src/app.py"), "x = 2\n").unwrap();

    assert_eq!(
        before.restore(&task, &root).unwrap(),
        [
            Restored {
                path: "conftest.py".to_owned(),
                protected: Protected::TestConfig(CONFTEST)
            },
            Restored {
                path: "src/conftest.py".to_owned(),
                protected: Protected::TestConfig(CONFTEST)
            },
            Restored {
                path: "tests/test_app.py".to_owned(),
                protected: Protected::TestFile
            },
        ]
    );
    let read = |file: &str| std::fs::read_to_string(root.join(file)).ok();
    assert_eq!(
        [
            read("conftest.py"),
            read("src/conftest.py"),
            read("tests/test_app.py"),
            read("src/app.py")
        ],
        [
            Some("# fixtures\n".to_owned()),
            None,
            Some("def test(): assert False\n".to_owned()),
            Some("x = 2\n".to_owned())
        ]
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}
