//! The verdict read from real runs: pytest from the project venv, and shell commands.

use std::time::Duration;

use super::pytest::{runs_pytest_itself, EXITED_EARLY_FIX};
use super::reading::tail_of;
use super::*;
use crate::exec::process::Finished;
use crate::exec::sandbox::Sandbox;
use crate::task::OutputReader;
use crate::task::TestReport;
use crate::task::{PathSet, PythonPath};
use crate::test_support::{project, python};
use crate::verdict::read::load_failure::{LoadFailure, Loaded};
use crate::verdict::read::note::Note;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::summary::Summary;
use crate::verdict::trust::untrusted::Untrusted;

pub(super) fn runner() -> TestRunner {
    TestRunner::new(python(), Sandbox::Unsandboxed)
}

pub(super) fn test_command(argv: &[&str], report: TestReport, timeout_seconds: u64) -> TestCommand {
    TestCommand {
        argv: argv.iter().map(|word| (*word).to_owned()).collect(),
        timeout: Duration::from_secs(timeout_seconds),
        files: PathSet::new(Vec::new()).unwrap(),
        data_folders: None,
        report,
        plugins: false,
        env: Vec::new(),
        pythonpath: PythonPath::Guessed,
    }
}

pub(super) fn pytest() -> TestCommand {
    test_command(&["python", "-m", "pytest", "-q"], TestReport::Pytest, 60)
}

/// The pytest, pluggy and Python of the test interpreter, as the witness must name them.
pub(super) fn installed() -> Option<Runner> {
    let output = std::process::Command::new(python().as_str())
        .args(["-c", "import sys, pytest, pluggy; print(pytest.__version__, pluggy.__version__, '%d.%d.%d' % sys.version_info[:3])"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let [pytest, pluggy, python] = text.split_whitespace().collect::<Vec<_>>()[..] else {
        panic!("no versions from {text:?}");
    };
    Some(Runner {
        pytest: pytest.to_owned(),
        pluggy: pluggy.to_owned(),
        python: python.to_owned(),
    })
}

/// A run without its timing and output, which differ between runs.
pub(super) fn outcome(run: &TestRun) -> TestRun {
    TestRun {
        duration_ms: 0,
        output_tail: None,
        output: String::new(),
        ..run.clone()
    }
}

pub(super) fn counts(passed: u32, failed: u32, errors: u32, skipped: u32) -> Summary {
    Summary {
        passed,
        failed,
        errors,
        skipped,
        xfailed: 0,
    }
}

/// A run that exited 1 with `summary`, the one failing test being `failing`, and these `cases`.
pub(super) fn failed_run(
    summary: Summary,
    failing: &str,
    cases: &[(&str, CaseOutcome)],
) -> TestRun {
    TestRun {
        exit_code: Some(1),
        summary: Some(summary),
        failing: vec![failing.to_owned()],
        cases: cases
            .iter()
            .map(|(id, outcome)| ((*id).to_owned(), *outcome))
            .collect(),
        runner: installed(),
        ..TestRun::default()
    }
}

#[test]
fn a_failing_suite_gives_counts_failing_node_ids_and_its_output() {
    let (_dir, root) = project(&[
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"--color=yes -ra\"\n"),
        (
            "tests/test_io.py",
            "import pytest\n\ndef test_ok():\n    assert True\n\nclass TestRead:\n    def test_empty(self):\n        assert '' == 'x'\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n",
        ),
    ]);
    let run = independent_check(&runner(), &pytest(), &root).unwrap();
    assert_eq!(
        outcome(&run),
        failed_run(
            counts(1, 1, 0, 1),
            "tests/test_io.py::TestRead::test_empty",
            &[
                (
                    "tests/test_io.py::TestRead::test_empty",
                    CaseOutcome::Failed
                ),
                ("tests/test_io.py::test_later", CaseOutcome::Skipped),
                ("tests/test_io.py::test_ok", CaseOutcome::Passed),
            ]
        )
    );
    let tail = run.output_tail.unwrap_or_default();
    assert!(
        tail.contains("FAILED tests/test_io.py::TestRead::test_empty") && !tail.contains('\x1b'),
        "the tail, colours removed, ends with pytest's summary: {tail}"
    );
    assert!(!tail.contains("generated xml file"), "{tail}");
}

#[test]
fn no_tests_collected_is_not_a_pass() {
    let (_dir, root) = project(&[("tests/spec_io.py", "def test_x():\n    pass\n")]);
    let run = independent_check(&runner(), &pytest(), &root).unwrap();
    assert_eq!(
        (outcome(&run), run.passed(), run.describe()),
        (
            TestRun {
                exit_code: Some(5),
                summary: Some(Summary::default()),
                note: Some(Note::NoTestsCollected),
                runner: installed(),
                ..TestRun::default()
            },
            false,
            "no tests ran — pytest collected no tests (exit 5)".to_owned()
        )
    );
}

#[test]
fn a_collection_error_is_a_failing_run_that_names_the_file_as_pytest_does() {
    let (_dir, root) = project(&[(
        "tests/test_io.py",
        "import not_a_module\n\ndef test_x():\n    pass\n",
    )]);
    let run = independent_check(&runner(), &pytest(), &root).unwrap();
    assert_eq!(
        outcome(&run),
        TestRun {
            exit_code: Some(2),
            note: Some(Note::PytestInterrupted),
            ..failed_run(
                counts(0, 0, 1, 0),
                "tests/test_io.py",
                &[("tests/test_io.py", CaseOutcome::Error)]
            )
        }
    );
}

#[test]
fn a_broken_conftest_is_a_harness_error_before_the_loop_and_a_failing_verdict_after_it() {
    let (_dir, root) = project(&[
        ("conftest.py", "import not_a_module\n"),
        ("tests/test_io.py", "def test_x():\n    pass\n"),
    ]);
    let reason = "pytest could not load conftest.py: ModuleNotFoundError: No module named 'not_a_module' (a usage error, exit 4)";
    let before = independent_check(&runner(), &pytest(), &root).unwrap_err();
    assert_eq!(before.exit_code, crate::error::exit::HARNESS);
    let said = format!(
        "the test command `python -m pytest -q` gave no verdict: {reason} — fix conftest.py, or install what it imports for `{}`; run the test command by hand to see the whole error:\n",
        python()
    );
    assert!(before.message.starts_with(&said), "{}", before.message);
    let after = final_check(&runner(), &pytest(), &root, Known::default()).unwrap();
    assert_eq!(
        (outcome(&after), after.passed()),
        (
            TestRun {
                exit_code: Some(4),
                not_trusted: Some(Untrusted::SetupNotLoaded {
                    failure: LoadFailure {
                        what: Loaded::Conftest("conftest.py".to_owned()),
                        error: "ModuleNotFoundError: No module named 'not_a_module'".to_owned(),
                    },
                    exit: "a usage error, exit 4".to_owned(),
                }),
                runner: installed(),
                ..TestRun::default()
            },
            false
        )
    );
}

/// A version's `MAJOR.MINOR` as numbers, to compare ("9.2.0" is (9, 2)).
fn line_of(version: &str) -> (u32, u32) {
    let mut numbers = version.split('.').map(|part| part.parse::<u32>().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Both hook wrapper styles on one hook: pluggy 1.1 and later know `wrapper=True` and refuse the
/// pair (exit 1); an older pluggy has no such argument, so importing the conftest fails (exit 4).
fn both_wrapper_styles(runner: &Runner) -> &'static str {
    if line_of(&runner.pluggy) >= (1, 1) {
        "pytest could not load conftest.py: PluginValidationError: Plugin 'ROOT/conftest.py' for hook 'pytest_collection_modifyitems': The wrapper=True and hookwrapper=True options are mutually exclusive (exit 1, no pytest report)"
    } else {
        "pytest could not load conftest.py: TypeError: HookimplMarker.__call__() got an unexpected keyword argument 'wrapper' (a usage error, exit 4)"
    }
}

/// A `pytest_plugins` entry that is not installed: pytest 9.2 made it a usage error (exit 4),
/// where earlier pytest stopped with exit 1.
fn a_missing_pytest_plugins_entry(runner: &Runner) -> &'static str {
    if line_of(&runner.pytest) >= (9, 2) {
        "pytest could not load the plugin `no_such_plugin`: No module named 'no_such_plugin' (a usage error, exit 4)"
    } else {
        "pytest could not load the plugin `no_such_plugin`: No module named 'no_such_plugin' (exit 1, no pytest report)"
    }
}

/// Each way pytest can fail to load a project's conftest.py, run for real: the verdict names the
/// file and pytest's error line, and pytest's exit in its own words; never "is pytest installed?".
#[test]
fn every_way_a_conftest_fails_to_load_is_named_with_its_file_and_pytests_error() {
    let runner_line = installed().unwrap();
    let test_file = ("tests/test_io.py", "def test_x():\n    pass\n");
    let cases = [
        (
            ("tests/conftest.py", "def fixture(:\n    pass\n"),
            "pytest could not load tests/conftest.py: SyntaxError: invalid syntax (a usage error, exit 4)",
        ),
        (
            // Both wrapper styles at once: pluggy refuses the hook before pytest is configured.
            (
                "conftest.py",
                "import pytest\n\n@pytest.hookimpl(hookwrapper=True, wrapper=True)\ndef pytest_collection_modifyitems(items):\n    yield\n",
            ),
            both_wrapper_styles(&runner_line),
        ),
        (
            // A hook an older pytest had: a newer one stops with an internal error.
            ("conftest.py", "def pytest_no_such_hook(config):\n    pass\n"),
            "pytest could not load conftest.py: PluginValidationError: unknown hook 'pytest_no_such_hook' in plugin <module 'conftest' from 'ROOT/conftest.py'> (an internal error, exit 3)",
        ),
        (
            ("conftest.py", "pytest_plugins = [\"no_such_plugin\"]\n"),
            a_missing_pytest_plugins_entry(&runner_line),
        ),
    ];
    for (conftest, expected) in cases {
        let (_dir, root) = project(&[conftest, test_file]);
        let run = final_check(&runner(), &pytest(), &root, Known::default()).unwrap();
        assert_eq!(
            run.not_trusted.as_ref().map(Untrusted::describe),
            Some(expected.replace("ROOT", root.as_str())),
            "{conftest:?}"
        );
    }
    // Below the first folder a conftest.py fails while collecting: pytest reports, and the
    // note names the file.
    let (_dir, root) = project(&[test_file, ("tests/inner/conftest.py", "import nope_mod\n")]);
    let run = final_check(&runner(), &pytest(), &root, Known::default()).unwrap();
    assert_eq!(
        (run.exit_code, run.note.as_ref().map(Note::describe), run.passed()),
        (
            Some(2),
            Some("pytest was interrupted (exit 2) while collecting the tests: pytest could not load tests/inner/conftest.py: ModuleNotFoundError: No module named 'nope_mod'".to_owned()),
            false
        )
    );
}

#[test]
fn a_python_without_pytest_is_a_harness_error_that_names_the_fix() {
    let runner = TestRunner {
        python: "/usr/bin/python3".into(),
        ..runner()
    };
    let (_dir, root) = project(&[("tests/test_io.py", "def test_x():\n    pass\n")]);
    let error = independent_check(&runner, &pytest(), &root).unwrap_err();
    assert_eq!(
        (error.exit_code, error.message),
        (
            crate::error::exit::HARNESS,
            "the test command `python -m pytest -q` gave no verdict: the tests stopped before reporting: exit 1 with no pytest report — is pytest installed for `/usr/bin/python3`? Install it there (`/usr/bin/python3 -m pip install pytest`) or pass --python PATH. mend asks pytest for its report through the variables PYTEST_ADDOPTS, PYTHONPATH, MEND_WITNESS and MEND_WITNESS_COPY, so the command must run pytest, itself or through a wrapper that keeps the environment (for tox add `passenv = PYTEST_ADDOPTS PYTHONPATH MEND_WITNESS MEND_WITNESS_COPY` to its testenv); for another runner, or a wrapper that clears the environment, set test.report = \"junit\" or \"exit_code\":\n/usr/bin/python3: No module named pytest".to_owned()
        )
    );
}

#[test]
fn a_timed_out_suite_says_the_limit() {
    let (_dir, root) = project(&[(
        "tests/test_slow.py",
        "import time\n\ndef test_slow():\n    time.sleep(30)\n",
    )]);
    let command = test_command(&["python", "-m", "pytest", "-q"], TestReport::Pytest, 1);
    let limit = "the tests did not finish within 1 s and were stopped (the limit counts pytest's start, and mend's runs read no bytecode of the project's own: its modules are compiled from source on every run, and pytest's and the standard library's too where mend cannot mirror their bytecode, slower on a busy machine); if they need longer, raise `timeout_seconds` under [test] in the task file (mend.toml)";
    // Before the loop (and in `mend verify`) no verdict at all, naming the fix.
    let before = independent_check(&runner(), &command, &root).unwrap_err();
    assert_eq!(
        (before.exit_code, before.message),
        (
            crate::error::exit::HARNESS,
            format!("the test command `python -m pytest -q` gave no verdict: {limit}")
        )
    );
    // After it, the change made the tests hang: a run that is no pass.
    let run = final_check(&runner(), &command, &root, Known::default()).unwrap();
    assert_eq!(
        (outcome(&run), run.passed(), run.describe()),
        (
            TestRun {
                exit_code: None,
                not_trusted: Some(Untrusted::Unfinished(Note::TimedOut { seconds: 1 })),
                ..TestRun::default()
            },
            false,
            limit.to_owned()
        )
    );
}

#[test]
fn a_cargo_suite_that_cannot_fetch_its_dependencies_is_no_verdict_naming_cargo_fetch() {
    let finished = Finished {
        status: Some(std::os::unix::process::ExitStatusExt::from_raw(101 << 8)),
        cut: None,
        output: "    Updating crates.io index\nerror: failed to get `itoa` as a dependency of package `demo v0.1.0`\n\nCaused by:\n  download of config.json failed".to_owned(),
        head_dropped: false,
        elapsed: Duration::from_millis(5),
    };
    let argv = ["cargo".to_owned(), "test".to_owned()];
    let message = cargo_offline(&argv, &finished).unwrap();
    assert!(
        message.starts_with("the test command `cargo test` could not fetch its dependencies: the tests run without network. Run `cargo generate-lockfile` (if the project has no Cargo.lock) and `cargo fetch` in the repository once, then try again:\n"),
        "{message}"
    );
    // The same output from another program, or a cargo run that passed, is left to the verdict.
    let other = ["make".to_owned(), "test".to_owned()];
    assert_eq!(cargo_offline(&other, &finished), None);
}

#[test]
fn a_junit_runner_gives_counts_and_an_old_report_never_stands_in() {
    let writes_report = "mkdir -p out && printf '<testsuites><testsuite><testcase classname=\"cli\" name=\"parses\"/><testcase classname=\"cli\" name=\"prints\"><failure/></testcase></testsuite></testsuites>' > out/junit.xml; exit 1";
    let (_dir, root) = project(&[(
        "out/junit.xml",
        "<testsuites><testsuite><testcase classname=\"old\" name=\"passed\"/></testsuite></testsuites>",
    )]);
    let report = TestReport::Junit {
        path: "out/junit.xml".to_owned(),
    };
    let command = test_command(&["/bin/sh", "-c", writes_report], report.clone(), 30);
    let run = independent_check(&runner(), &command, &root).unwrap();
    assert_eq!(
        outcome(&run),
        TestRun {
            // No witness names another runner.
            runner: None,
            ..failed_run(
                counts(1, 1, 0, 0),
                "cli::prints",
                &[
                    ("cli::parses", CaseOutcome::Passed),
                    ("cli::prints", CaseOutcome::Failed)
                ]
            )
        }
    );

    // The command writes nothing now: the report of the run above is removed first.
    let silent = test_command(&["/bin/sh", "-c", "echo done"], report, 30);
    let error = independent_check(&runner(), &silent, &root).unwrap_err();
    assert_eq!(
        error.message,
        "the test command `/bin/sh -c echo done` gave no verdict: the tests stopped before reporting: exit 0 with no JUnit report at out/junit.xml — check that test.junit_path names the file the test command writes, or set test.report = \"exit_code\":\ndone"
    );
}

#[test]
fn exit_code_reports_and_notes_describe_what_happened() {
    let (_dir, root) = project(&[]);
    let failing = test_command(
        &["/bin/sh", "-c", "echo broken; exit 3"],
        TestReport::ExitCode,
        30,
    );
    let run = independent_check(&runner(), &failing, &root).unwrap();
    assert_eq!(
        (
            run.exit_code,
            run.summary,
            run.output_tail.as_deref(),
            run.describe()
        ),
        (Some(3), None, Some("broken"), "exit 3".to_owned())
    );
    let passing = test_command(&["/bin/sh", "-c", "echo fine"], TestReport::ExitCode, 30);
    let run = independent_check(&runner(), &passing, &root).unwrap();
    assert_eq!((run.passed(), run.output_tail), (true, None));
}

#[test]
fn a_pass_needs_exit_zero_no_failure_and_a_test_that_passed() {
    let run = |exit_code, passed, failed| TestRun {
        exit_code: Some(exit_code),
        summary: Some(counts(passed, failed, 0, 0)),
        ..TestRun::default()
    };
    let old_record_without_counts = TestRun {
        exit_code: Some(0),
        ..TestRun::default()
    };
    assert_eq!(
        [
            run(0, 4, 0).passed(),
            run(0, 4, 1).passed(),
            run(0, 0, 0).passed(),
            run(1, 4, 0).passed(),
            old_record_without_counts.passed(),
        ],
        [true, false, false, false, true]
    );
}

#[test]
fn pytest_behind_a_wrapper_gives_its_report_and_the_command_line_is_the_tasks() {
    let (_dir, root) = project(&[(
        "tests/test_io.py",
        "def test_read():\n    pass\n\ndef test_write():\n    assert False\n",
    )]);
    let ran_in = |folder: &str| {
        let id = |name: &str| format!("{folder}test_io.py::{name}");
        TestRun {
            cases: [
                (id("test_read"), CaseOutcome::Passed),
                (id("test_write"), CaseOutcome::Failed),
            ]
            .into(),
            ..failed_run(counts(1, 1, 0, 0), &id("test_write"), &[])
        }
    };
    let wrapped = [
        // A shell wrapper that moves into the tests' folder first.
        test_command(
            &["sh", "-c", "cd tests && python -m pytest -q"],
            TestReport::Pytest,
            60,
        ),
        // A `--` stays where the task put it: after it pytest reads only paths.
        test_command(
            &["python", "-m", "pytest", "-q", "--", "tests/test_io.py"],
            TestReport::Pytest,
            60,
        ),
    ];
    let runs = wrapped
        .map(|test| outcome(&final_check(&runner(), &test, &root, Known::default()).unwrap()));
    // Run from tests/ with no pytest configuration above, pytest's rootdir is tests/ itself.
    assert_eq!(runs, [ran_in(""), ran_in("tests/")]);
}

#[test]
fn a_record_written_before_failing_names_and_notes_still_loads() {
    let old = r#"{"exit_code": null, "summary": {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}, "duration_ms": 15003}"#;
    let run: TestRun = serde_json::from_str(old).unwrap();
    assert_eq!(
        (run.failing.is_empty(), run.note.is_none(), run.describe()),
        (true, true, "timed out".to_owned())
    );
}

#[test]
fn only_pytest_itself_has_its_exit_codes_read_as_pytests() {
    let commands: [&[&str]; 8] = [
        &["pytest", "-q"],
        &["/opt/venv/bin/py.test"],
        &["python", "-m", "pytest"],
        &["/usr/bin/python3.12", "-X", "-m", "pytest", "tests"],
        &["make", "test"],
        &["sh", "-c", "python -m pytest"],
        &["python", "run_tests.py", "-m", "pytest"],
        &["python", "-m", "tox"],
    ];
    assert_eq!(
        commands.map(|argv| runs_pytest_itself(
            &argv
                .iter()
                .map(|word| (*word).to_owned())
                .collect::<Vec<_>>()
        )),
        [true, true, true, true, false, false, false, false]
    );
}

#[test]
fn the_tail_of_a_suite_stopped_mid_run_keeps_only_its_last_progress_lines() {
    let mut output = String::new();
    for percent in 1..=200 {
        output.push_str(&format!(
            "\x1b[32m...........................................................\x1b[0m [{:3}%]\n",
            percent / 4
        ));
    }
    output.push_str("......");
    assert_eq!(
        tail_of(&output),
        Some("[… 198 lines of pytest progress cut …]\n........................................................... [ 49%]\n........................................................... [ 50%]\n......".to_owned())
    );
}

#[test]
fn code_that_exits_zero_at_import_is_no_verdict_that_points_at_the_exit() {
    let (_dir, root) = project(&[
        ("pkg/__init__.py", "import os\nos._exit(0)\n"),
        (
            "tests/test_pkg.py",
            "import pkg\n\ndef test_x():\n    assert False\n",
        ),
    ]);
    let before = independent_check(&runner(), &pytest(), &root).unwrap_err();
    assert_eq!(
        (before.exit_code, before.message),
        (
            crate::error::exit::HARNESS,
            format!(
                "the test command `python -m pytest -q` gave no verdict: the tests stopped before reporting: exit 0 with no pytest report — {EXITED_EARLY_FIX}"
            )
        )
    );
    let after = final_check(&runner(), &pytest(), &root, Known::default()).unwrap();
    assert_eq!(
        (
            after.exit_code,
            after.passed(),
            after.not_trusted.as_ref().map(Untrusted::describe)
        ),
        (
            Some(0),
            false,
            Some("the tests stopped before reporting: exit 0 with no pytest report".to_owned())
        )
    );
}

#[test]
fn a_runner_read_from_its_output_gives_ids_and_a_runner_that_printed_none_no_verdict() {
    let (_dir, root) = project(&[]);
    let libtest = TestReport::Output(OutputReader::Libtest);
    let cargo = test_command(
        &[
            "/bin/sh",
            "-c",
            "printf 'running 2 tests\\ntest a::b ... ok\\ntest a::c ... FAILED\\n'; exit 101",
        ],
        libtest.clone(),
        30,
    );
    let run = independent_check(&runner(), &cargo, &root).unwrap();
    assert_eq!(
        (
            run.summary,
            run.failing.clone(),
            run.cases.clone(),
            run.passed()
        ),
        (
            Some(Summary {
                passed: 1,
                failed: 1,
                ..Summary::default()
            }),
            vec!["a::c".to_owned()],
            [
                ("a::b".to_owned(), CaseOutcome::Passed),
                ("a::c".to_owned(), CaseOutcome::Failed),
            ]
            .into(),
            false
        )
    );
    let quiet = test_command(
        &["/bin/sh", "-c", "printf 'running 2 tests\\n..\\n'"],
        libtest,
        30,
    );
    let error = independent_check(&runner(), &quiet, &root).unwrap_err();
    assert_eq!(
        error.message,
        "the test command `/bin/sh -c printf 'running 2 tests\\n..\\n'` gave no verdict: its output has no test result the libtest reader knows (it reads cargo test without --quiet: libtest's `test NAME ... ok` lines) — check that test.command prints what the libtest reader reads, or set test.report = \"exit_code\":\nrunning 2 tests\n.."
    );
}

/// A script taken for django's (`runtests.py`) that runs pytest, django's lines read as
/// libtest's: the fix names the report that reads the output.
#[test]
fn an_output_another_reader_reads_names_that_report_as_the_fix() {
    let (_dir, root) = project(&[]);
    let told = |(reader, printed): (OutputReader, &str)| {
        let command = test_command(&["/bin/sh", "-c", printed], TestReport::Output(reader), 30);
        let message = independent_check(&runner(), &command, &root)
            .unwrap_err()
            .message;
        message
            .split(" — ")
            .nth(1)
            .and_then(|fix| fix.split(':').next())
            .map(str::to_owned)
    };
    assert_eq!(
        [
            (
                OutputReader::Django,
                "printf '..F.\\n1 failed, 3 passed in 0.02s\\n'; exit 1"
            ),
            (
                OutputReader::Libtest,
                "printf 'test_a (m.Case) ... ok\\n\\nRan 1 test in 0.001s\\n\\nOK\\n'"
            ),
            (OutputReader::Django, "printf 'nothing a reader reads\\n'; exit 1"),
        ]
        .map(told),
        [
            Some("its output is what the pytest reader reads".to_owned()),
            Some("its output is what the django reader reads".to_owned()),
            Some("check that test.command prints what the django reader reads, or set test.report = \"exit_code\"".to_owned()),
        ]
    );
}

#[test]
fn an_output_longer_than_mend_keeps_cannot_name_every_test() {
    let (_dir, root) = project(&[]);
    // 1.4 MiB of django lines: the first ones are cut away.
    let django = test_command(
        &[
            "/bin/sh",
            "-c",
            "i=0; while [ $i -lt 50000 ]; do echo \"test_$i (app.tests.T) ... ok\"; i=$((i+1)); done",
        ],
        TestReport::Output(OutputReader::Django),
        60,
    );
    let run = independent_check(&runner(), &django, &root).unwrap();
    assert_eq!(
        (run.passed(), run.not_trusted.clone()),
        (
            false,
            Some(Untrusted::HeadDropped {
                reader: OutputReader::Django
            })
        )
    );
    assert_eq!(
        run.not_trusted.map(|reason| reason.describe()),
        Some("the output was longer than mend keeps, so its first test lines are lost and the django reader cannot tell which tests ran; run fewer tests per task, or use a runner that writes a JUnit report".to_owned())
    );
}

/// What a broken setup makes the first run say, run for real: a plugin that raises at import, one
/// forced by `-p` or `PYTEST_PLUGINS` that is not installed, and a pytest whose own `_pytest` is
/// missing (half-installed). Each is one message naming the fix, never a traceback alone.
#[test]
fn a_broken_setup_is_one_message_naming_its_fix() {
    let test_file = ("tests/test_io.py", "def test_x():\n    pass\n");
    let (_dir, root) = project(&[
        test_file,
        ("boomplugin.py", "raise RuntimeError(\"boom at import\")\n"),
    ]);
    let first_words = |runner: &TestRunner, argv: &[&str]| {
        let command = test_command(argv, TestReport::Pytest, 60);
        let error = independent_check(runner, &command, &root).unwrap_err();
        let said = error
            .message
            .split(":\n")
            .next()
            .unwrap_or_default()
            .to_owned();
        (error.exit_code, said)
    };
    let python = python();
    let install = |name: &str| {
        format!("install `{name}` for `{python}`, or use a pytest version the plugin supports (test.plugins = false keeps installed plugins out)")
    };
    let with_plugins_variable = TestRunner {
        env: vec![("PYTEST_PLUGINS".to_owned(), "no_such_plugin".to_owned())],
        ..runner()
    };
    let harness = crate::error::exit::HARNESS;
    // pytest 9.2 stops on a plugin that raises with an internal error (exit 3) and on a missing
    // one with a usage error (exit 4); earlier pytest exits 1 for both.
    let (raised, missing) = if line_of(&installed().unwrap().pytest) >= (9, 2) {
        ("an internal error, exit 3", "a usage error, exit 4")
    } else {
        ("exit 1, no pytest report", "exit 1, no pytest report")
    };
    assert_eq!(
        [
            first_words(&runner(), &["python", "-m", "pytest", "-p", "boomplugin"]),
            first_words(&runner(), &["python", "-m", "pytest", "-p", "no_such_plugin"]),
            first_words(&with_plugins_variable, &["python", "-m", "pytest"]),
        ],
        [
            (harness, format!("the test command `python -m pytest -p boomplugin` gave no verdict: pytest could not load the plugin `boomplugin`: RuntimeError: boom at import ({raised}) — the plugin `boomplugin` is there but fails as it loads (its error is below): fix it, or leave it out of the tests (`-p boomplugin` in test.command or addopts, PYTEST_PLUGINS in test.env, `pytest_plugins` in a conftest.py; test.plugins = false keeps installed plugins out)")),
            (harness, format!("the test command `python -m pytest -p no_such_plugin` gave no verdict: pytest could not load the plugin `no_such_plugin`: No module named 'no_such_plugin' ({missing}) — {}", install("no_such_plugin"))),
            (harness, format!("the test command `python -m pytest` gave no verdict: pytest could not load the plugin `no_such_plugin`: No module named 'no_such_plugin' ({missing}) — {}", install("no_such_plugin"))),
        ]
    );

    // A pytest package whose `_pytest` is gone, for an interpreter without pytest of its own.
    let (_site_dir, site) = project(&[
        (
            "pytest/__init__.py",
            "from _pytest import __version__  # noqa: F401\n",
        ),
        ("pytest/__main__.py", "import pytest  # noqa: F401\n"),
    ]);
    let (_bin, bin) = project(&[(
        "python",
        &format!("#!/bin/sh\nPYTHONPATH=\"{site}${{PYTHONPATH:+:$PYTHONPATH}}\" exec /usr/bin/python3 \"$@\"\n"),
    )]);
    let wrapper = bin.join("python");
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let half_installed = TestRunner {
        python: wrapper.clone(),
        ..runner()
    };
    assert_eq!(
        first_words(&half_installed, &["python", "-m", "pytest"]),
        (harness, format!("the test command `python -m pytest` gave no verdict: pytest could not import itself: ModuleNotFoundError: No module named '_pytest' (exit 1, no pytest report) — the pytest installed for `{wrapper}` is broken or half-installed: reinstall it (`{wrapper} -m pip install --force-reinstall pytest`)"))
    );
}
