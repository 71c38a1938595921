//! mend's readers against SWE-bench's own harness (the `swebench` package `make venv` installs):
//! on the same logs, the same ids with the same outcomes, and the same four groups and
//! "resolved" for the same test lists. Where mend reads a line differently on purpose, the case
//! names the ids and the test checks that they do differ, so the list stays exact.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::json;

use crate::verdict::grade::contract::{Contract, Transition};
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::readers::OutputReader;

struct Case {
    name: &'static str,
    reader: OutputReader,
    /// The harness's parser for these logs (a function of `swebench.harness.log_parsers`).
    parser: &'static str,
    log: String,
    fail_to_pass: &'static [&'static str],
    pass_to_pass: &'static [&'static str],
    /// Ids mend reads otherwise than the harness: mend's, the harness's, or both.
    differ: &'static [&'static str],
}

#[derive(Debug, Deserialize)]
struct Graded {
    status_map: BTreeMap<String, String>,
    tests_status: BTreeMap<String, Groups>,
    resolved: bool,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
struct Groups {
    success: Vec<String>,
    failure: Vec<String>,
}

fn log(file: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/readers/");
    std::fs::read_to_string(format!("{path}{file}")).unwrap()
}

fn status(outcome: CaseOutcome) -> &'static str {
    match outcome {
        CaseOutcome::Passed => "PASSED",
        CaseOutcome::Failed => "FAILED",
        CaseOutcome::Error => "ERROR",
        CaseOutcome::Skipped => "SKIPPED",
        CaseOutcome::Xfailed => "XFAIL",
    }
}

/// What the harness makes of every case, in one run of its Python.
fn harness(cases: &[Case]) -> Vec<Graded> {
    let input = json!(cases
        .iter()
        .map(|case| json!({
            "parser": case.parser,
            "log": case.log,
            "fail_to_pass": case.fail_to_pass,
            "pass_to_pass": case.pass_to_pass,
        }))
        .collect::<Vec<_>>());
    crate::test_support::swebench_grade(&input)
}

/// mend's reading of the listed tests: a test of either list keeps its promise only by passing
/// (the contract's rule). SWE-bench's grading also counts an XFAIL as a pass and a skipped
/// PASS_TO_PASS test as kept; no case here lists such a test, so both rules give one answer.
fn groups(cases: &BTreeMap<String, CaseOutcome>, case: &Case) -> BTreeMap<String, Groups> {
    let transitions = |ids: &[&str], before: CaseOutcome| -> Vec<Transition> {
        ids.iter()
            .map(|id| Transition {
                id: (*id).to_owned(),
                before: Some(before),
                after: cases.get(*id).copied(),
            })
            .collect()
    };
    let contract = Contract {
        fail_to_pass: transitions(case.fail_to_pass, CaseOutcome::Failed),
        pass_to_pass: transitions(case.pass_to_pass, CaseOutcome::Passed),
        added: Vec::new(),
    };
    let split = |list: &[Transition]| Groups {
        success: list
            .iter()
            .filter(|t| t.kept())
            .map(|t| t.id.clone())
            .collect(),
        failure: list
            .iter()
            .filter(|t| !t.kept())
            .map(|t| t.id.clone())
            .collect(),
    };
    BTreeMap::from([
        ("FAIL_TO_PASS".to_owned(), split(&contract.fail_to_pass)),
        ("PASS_TO_PASS".to_owned(), split(&contract.pass_to_pass)),
    ])
}

/// Every way mend's reading of `case` departs from the harness's, in words.
fn departures(case: &Case, graded: &Graded) -> Vec<String> {
    let cases = case
        .reader
        .read(&case.log)
        .map(|report| report.cases)
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut ids: Vec<&String> = cases.keys().chain(graded.status_map.keys()).collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        let mend = cases.get(id).map(|outcome| status(*outcome));
        let theirs = graded.status_map.get(id).map(String::as_str);
        let expected_to_differ = case.differ.contains(&id.as_str());
        if (mend != theirs) != expected_to_differ {
            found.push(format!(
                "{}: {id}: mend {mend:?}, SWE-bench {theirs:?}{}",
                case.name,
                if expected_to_differ {
                    " (listed as differing)"
                } else {
                    ""
                }
            ));
        }
    }
    let mine = groups(&cases, case);
    if mine != graded.tests_status {
        found.push(format!(
            "{}: groups: mend {mine:?}, SWE-bench {:?}",
            case.name, graded.tests_status
        ));
    }
    let resolved = mine.values().all(|group| group.failure.is_empty());
    if resolved != graded.resolved {
        found.push(format!(
            "{}: resolved: mend {resolved}, SWE-bench {}",
            case.name, graded.resolved
        ));
    }
    found
}

fn django_cases() -> Vec<Case> {
    vec![
        Case {
            name: "django, older Python",
            reader: OutputReader::Django,
            parser: "parse_log_django",
            log: log("django-old.log"),
            fail_to_pass: &["test_format_lazy (utils_tests.test_text.TestUtilsText)"],
            pass_to_pass: &[
                "test_compress_sequence (utils_tests.test_text.TestUtilsText)",
                "test_truncate_chars (utils_tests.test_text.TestUtilsText)",
            ],
            // A failure's header names its test bare as well: the harness keeps that name, mend
            // keeps the test under its own line only (the bare name would vanish once fixed).
            differ: &["test_format_lazy", "test_get_text_list"],
        },
        Case {
            name: "django, dotted ids and docstrings",
            reader: OutputReader::Django,
            parser: "parse_log_django",
            log: log("django-new.log"),
            fail_to_pass: &["Deleting asks first."],
            pass_to_pass: &[
                "The change list shows every row.",
                "test_both (admin_views.tests.AdminViewBasicTest.test_both)",
            ],
            differ: &["test_delete_view"],
        },
        Case {
            name: "django, resolved, with output between a test and its ok",
            reader: OutputReader::Django,
            parser: "parse_log_django",
            log: "test_a (m.tests.T) ... ok\ntest_b (m.tests.T) ... Internal Server Error: /admin/\nTraceback (most recent call last):\n  ValueError\nok\ntest_c (m.tests.T.test_c)\nÜnïcode docstring … with dots ... ok\ntest_d (m.tests.T) ... skipped 'needs a ... database'\ntest_e (m.tests.T) ... expected failure\n\n----------------------------------------------------------------------\nRan 5 tests in 0.01s\n\nOK (skipped=1, expected failures=1)\n".to_owned(),
            fail_to_pass: &["test_b (m.tests.T)", "Ünïcode docstring … with dots"],
            pass_to_pass: &["test_a (m.tests.T)"],
            differ: &[],
        },
        Case {
            name: "django, cut mid-run (the harness's timeout)",
            reader: OutputReader::Django,
            parser: "parse_log_django",
            log: "test_a (m.tests.T) ... ok\ntest_b (m.tests.T) ... FAIL\ntest_c (m.tests.T) ... ".to_owned(),
            fail_to_pass: &["test_c (m.tests.T)"],
            pass_to_pass: &["test_a (m.tests.T)"],
            differ: &[],
        },
        Case {
            name: "django, parallel runner with an error in setUpClass",
            reader: OutputReader::Django,
            parser: "parse_log_django",
            log: "Testing against Django installed in '/testbed/django' with up to 4 processes\nSystem check identified no issues (0 silenced).\ntest_x (a.tests.A) ... ok\nsetUpClass (b.tests.B) ... ERROR\ntest_y (a.tests.A) ... OK\n\n======================================================================\nERROR: setUpClass (b.tests.B)\n----------------------------------------------------------------------\nTraceback (most recent call last):\ndjango.db.utils.OperationalError: no such table\n".to_owned(),
            fail_to_pass: &["test_y (a.tests.A)"],
            pass_to_pass: &["test_x (a.tests.A)", "setUpClass (b.tests.B)"],
            differ: &["setUpClass"],
        },
    ]
}

fn sympy_cases() -> Vec<Case> {
    vec![
        Case {
            name: "sympy --verbose",
            reader: OutputReader::Sympy,
            parser: "parse_log_sympy",
            log: log("sympy-verbose.log"),
            fail_to_pass: &["test_issue_1234"],
            pass_to_pass: &["test_basic"],
            // The last test of a file shares its line with the file's right-aligned [OK] or
            // [FAIL], and a test that printed has its `ok` on the next line: the harness's
            // pattern (a line ending ` ok`) misses both; mend reads them.
            differ: &["test_round", "test_Float", "test_prints"],
        },
        Case {
            name: "sympy --verbose, resolved",
            reader: OutputReader::Sympy,
            parser: "parse_log_sympy",
            log: format!(
                "sympy/core/tests/test_expr.py[3] \ntest_issue_1234 ok\ntest_basic ok\ntest_last ok{}[OK]\n\n\n= tests finished: 3 passed, in 0.10 seconds =\n",
                " ".repeat(64)
            ),
            fail_to_pass: &["test_issue_1234"],
            pass_to_pass: &["test_basic"],
            differ: &["test_last"],
        },
        Case {
            name: "sympy without --verbose",
            reader: OutputReader::Sympy,
            parser: "parse_log_sympy",
            log: format!(
                "sympy/core/tests/test_expr.py[3] .F.{}[FAIL]\n\n________________________________________________________________________________\n_______________ sympy/core/tests/test_expr.py::test_issue_1234 _________________\nTraceback (most recent call last):\nAssertionError\n\n============ tests finished: 2 passed, 1 failed, in 0.10 seconds ============\n",
                " ".repeat(36)
            ),
            fail_to_pass: &["test_issue_1234"],
            pass_to_pass: &[],
            // Without names for the passing tests mend keeps counts only (a fixed test would
            // look as if it vanished); the harness names the failure from its header.
            differ: &["sympy/core/tests/test_expr.py::test_issue_1234"],
        },
        Case {
            name: "sympy, a deprecation warning printed mid-run, and a run cut short",
            reader: OutputReader::Sympy,
            parser: "parse_log_sympy",
            log: "sympy/core/tests/test_expr.py[4] \ntest_a ok\n  /testbed/sympy/core/basic.py:12: SymPyDeprecationWarning: use x instead\ntest_b F\ntest_c hello from the test\nok\ntest_d ".to_owned(),
            fail_to_pass: &["test_b"],
            pass_to_pass: &["test_a"],
            // The harness reads any line with a path, `.py:` and a later space as a failure
            // header; mend reads a header only as sympy centres it in underscores. A test that
            // printed has its `ok` on the next line: mend reads it, the harness misses it.
            differ: &[
                " /testbed/sympy/core/basic.py:12: SymPyDeprecationWarning: use x",
                "test_c",
            ],
        },
    ]
}

fn pytest_cases() -> Vec<Case> {
    vec![
        Case {
            name: "pytest -rA",
            reader: OutputReader::PytestRa,
            parser: "parse_log_pytest",
            log: log("pytest-ra.log"),
            fail_to_pass: &["tests/test_io.py::test_needs_db"],
            pass_to_pass: &["tests/test_io.py::test_write", "tests/test_io.py::test_read[plain]"],
            // An id with a space: the harness's first parser keeps its first word, mend the
            // whole id (and the whole of a line a test printed that starts like a result).
            differ: &[
                "tests/test_io.py::test_read[a",
                "tests/test_io.py::test_read[a b - c]",
                "looks",
                "looks like a result but is what the test printed",
            ],
        },
        Case {
            name: "pytest -rA, parametrized ids with spaces and brackets, coloured",
            reader: OutputReader::PytestRa,
            parser: "parse_log_pytest_v2",
            log: "tests/test_fmt.py ...                                                   [100%]\n\n\u{1b}[32mPASSED\u{1b}[0m tests/test_fmt.py::test_pad[a b]\nPASSED tests/test_fmt.py::test_pad[[nested] list]\nPASSED tests/test_fmt.py::TestWrap::test_width[x-y - z]\n\u{1b}[32m==== 3 passed in 0.01s ====\u{1b}[0m\n".to_owned(),
            fail_to_pass: &["tests/test_fmt.py::test_pad[a b]", "tests/test_fmt.py::test_pad[[nested] list]"],
            pass_to_pass: &["tests/test_fmt.py::TestWrap::test_width[x-y - z]"],
            differ: &[],
        },
        Case {
            name: "pytest -rA, resolved, a run cut inside its summary",
            reader: OutputReader::PytestRa,
            parser: "parse_log_pytest",
            log: "=========================== short test summary info ============================\nPASSED tests/test_a.py::test_fixed\nPASSED tests/test_a.py::test_kept\nPASSED tests/test_b.py::test_la".to_owned(),
            fail_to_pass: &["tests/test_a.py::test_fixed"],
            pass_to_pass: &["tests/test_a.py::test_kept"],
            differ: &[],
        },
        Case {
            name: "pytest -rA, errors, a failure and a skip count",
            reader: OutputReader::PytestRa,
            parser: "parse_log_pytest",
            log: "ERROR tests/test_db.py::test_conn - RuntimeError: no database - retry later\nERROR tests/test_broken.py\nFAILED tests/test_a.py::test_x - assert [1] == []\nSKIPPED [3] tests/test_a.py:40: slow\nXFAIL tests/test_a.py::test_y - known bug\n".to_owned(),
            fail_to_pass: &["tests/test_a.py::test_x"],
            pass_to_pass: &["tests/test_db.py::test_conn"],
            differ: &[],
        },
    ]
}

#[test]
fn mends_readers_read_logs_as_swe_benchs_harness_does() {
    let cases: Vec<Case> = [django_cases(), sympy_cases(), pytest_cases()]
        .into_iter()
        .flatten()
        .collect();
    let graded = harness(&cases);
    assert_eq!(graded.len(), cases.len());
    let departures: Vec<String> = cases
        .iter()
        .zip(&graded)
        .flat_map(|(case, graded)| departures(case, graded))
        .collect();
    assert_eq!(departures, Vec::<String>::new());
    // Both sides resolve some and not others: the comparison covers either answer.
    let resolved: Vec<bool> = graded.iter().map(|graded| graded.resolved).collect();
    assert_eq!(
        resolved,
        [false, false, true, false, false, false, true, false, false, false, true, true, false]
    );
}
