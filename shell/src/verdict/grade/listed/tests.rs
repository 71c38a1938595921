//! The given lists graded by mend against SWE-bench's own harness on the same run: each
//! scenario's outcomes printed as pytest's `-rA` summary prints them, read and graded by the
//! pinned `swebench` package, and compared group by group with [`Graded::grade`] on the whole
//! ids mend reads.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::json;

use crate::task::{GivenTests, ListedIds};
use crate::verdict::grade::given::Graded;
use crate::verdict::read::outcome::CaseOutcome::{self, Error, Failed, Passed, Skipped, Xfailed};

#[derive(Debug, Deserialize)]
struct Harness {
    tests_status: BTreeMap<String, Groups>,
    resolved: bool,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
struct Groups {
    success: Vec<String>,
    failure: Vec<String>,
}

struct Scenario {
    cases: BTreeMap<String, CaseOutcome>,
    fail_to_pass: Vec<String>,
    pass_to_pass: Vec<String>,
}

/// pytest's short test summary with `-rA` for `cases`: passed, skipped (folded, naming no
/// test), xfailed, errors, failures — the order of its report characters `PpsxXEf`.
fn ra_summary(cases: &BTreeMap<String, CaseOutcome>) -> String {
    let mut log = String::from("=========== short test summary info ===========\n");
    for (outcome, line) in [
        (Passed, "PASSED {id}"),
        (Skipped, "SKIPPED [1] tests/t.py:9: not here"),
        (Xfailed, "XFAIL {id} - known bug"),
        (Error, "ERROR {id} - RuntimeError: no db - retry"),
        (Failed, "FAILED {id} - assert 1 == 2"),
    ] {
        for (id, _) in cases.iter().filter(|(_, o)| **o == outcome) {
            log.push_str(&line.replace("{id}", id));
            log.push('\n');
        }
    }
    log.push_str("=========== 1 failed in 0.01s ===========\n");
    log
}

fn mend(scenario: &Scenario) -> (BTreeMap<String, Groups>, bool) {
    mend_with(scenario, ListedIds::UpToFirstSpace)
}

fn mend_with(scenario: &Scenario, ids: ListedIds) -> (BTreeMap<String, Groups>, bool) {
    let given = GivenTests {
        fail_to_pass: scenario.fail_to_pass.clone(),
        pass_to_pass: scenario.pass_to_pass.clone(),
        ids,
        skipped: crate::task::SkippedPassToPass::Kept,
    };
    let graded = Graded::grade(&given, &scenario.cases);
    let groups = |group: &crate::verdict::grade::given::Group| Groups {
        success: group.success.clone(),
        failure: group
            .failure
            .iter()
            .map(|missed| missed.id.clone())
            .collect(),
    };
    (
        BTreeMap::from([
            ("FAIL_TO_PASS".to_owned(), groups(&graded.fail_to_pass)),
            ("PASS_TO_PASS".to_owned(), groups(&graded.pass_to_pass)),
        ]),
        graded.resolved(),
    )
}

fn harness(scenarios: &[Scenario]) -> Vec<(BTreeMap<String, Groups>, bool)> {
    let input = json!(scenarios
        .iter()
        .map(|scenario| json!({
            "parser": "parse_log_pytest",
            "log": ra_summary(&scenario.cases),
            "fail_to_pass": scenario.fail_to_pass,
            "pass_to_pass": scenario.pass_to_pass,
        }))
        .collect::<Vec<_>>());
    let answers: Vec<Harness> = crate::test_support::swebench_grade(&input);
    answers
        .into_iter()
        .map(|answer| (answer.tests_status, answer.resolved))
        .collect()
}

fn cases(list: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
    list.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|id| (*id).to_owned()).collect()
}

/// Scenarios written for one rule each.
fn named() -> Vec<Scenario> {
    vec![
        // A parametrized id with a space, listed cut, as the published rows list it.
        Scenario {
            cases: cases(&[
                ("t.py::t[assert statement not on own line]", Passed),
                ("t.py::u", Passed),
            ]),
            fail_to_pass: ids(&["t.py::t[assert"]),
            pass_to_pass: ids(&["t.py::u"]),
        },
        // Two tests share a cut id: the later summary line (the failure) is what the key says.
        Scenario {
            cases: cases(&[("t.py::t[a b]", Passed), ("t.py::t[a c]", Failed)]),
            fail_to_pass: ids(&["t.py::t[a"]),
            pass_to_pass: Vec::new(),
        },
        // A skipped test is named by no summary line: listed to keep passing, it did not run.
        Scenario {
            cases: cases(&[("t.py::s", Skipped), ("t.py::f", Passed)]),
            fail_to_pass: ids(&["t.py::f"]),
            pass_to_pass: ids(&["t.py::s"]),
        },
        // A truncated id (more `[` than `]`, no key of its own) matched by prefix when the keys
        // it starts agree; two that disagree leave it unmatched.
        Scenario {
            cases: cases(&[
                ("t.py::g[log(photon)]", Passed),
                ("t.py::g[log(x)]", Xfailed),
            ]),
            fail_to_pass: ids(&["t.py::g[log("]),
            pass_to_pass: Vec::new(),
        },
        Scenario {
            cases: cases(&[("t.py::g[log(photon)]", Passed), ("t.py::g[log(x)]", Error)]),
            fail_to_pass: ids(&["t.py::g[log("]),
            pass_to_pass: Vec::new(),
        },
        // A folder with a space: the harness keys every test in it by the folder's first word,
        // so the whole id names nothing.
        Scenario {
            cases: cases(&[("my tests/t.py::a", Passed), ("my tests/t.py::b", Passed)]),
            fail_to_pass: ids(&["my"]),
            pass_to_pass: ids(&["my tests/t.py::a"]),
        },
        // A progress marker in a list names no test.
        Scenario {
            cases: cases(&[("t.py::a", Passed)]),
            fail_to_pass: ids(&["t.py::a"]),
            pass_to_pass: ids(&["[100%]"]),
        },
    ]
}

/// Scenarios drawn from ids built to collide, outcomes and lists chosen by a fixed generator.
fn generated(count: usize) -> Vec<Scenario> {
    const IDS: [&str; 12] = [
        "tests/t.py::f[a b]",
        "tests/t.py::f[a c]",
        "tests/t.py::f[a]",
        "tests/t.py::f[b]",
        "tests/t.py::f[x y z]",
        "tests/t.py::f[[a] b]",
        "tests/t.py::g",
        "tests/t.py::h[1-one two]",
        "tests/t.py::h[1-one]",
        "tests/t.py::h[2-two]",
        "tests/dir x/t.py::k",
        "tests/t.py::C::m[p q]",
    ];
    const LISTED: [&str; 10] = [
        "tests/t.py::f[a",
        "tests/t.py::f[b]",
        "tests/t.py::g",
        "tests/t.py::h[1-one",
        "tests/t.py::h[",
        "tests/dir",
        "tests/t.py::C::m[p",
        "tests/t.py::f[x",
        "tests/t.py::f[[a]",
        "tests/t.py::gone",
    ];
    const OUTCOMES: [CaseOutcome; 5] = [Passed, Skipped, Xfailed, Error, Failed];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |below: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % below as u64) as usize
    };
    (0..count)
        .map(|_| {
            let mut cases = BTreeMap::new();
            for id in IDS {
                if next(3) > 0 {
                    cases.insert(id.to_owned(), OUTCOMES[next(OUTCOMES.len())]);
                }
            }
            let mut lists = [Vec::new(), Vec::new()];
            for list in &mut lists {
                *list = LISTED
                    .iter()
                    .filter(|_| next(4) == 0)
                    .map(|id| (*id).to_owned())
                    .collect();
            }
            let [fail_to_pass, pass_to_pass] = lists;
            Scenario {
                cases,
                fail_to_pass,
                pass_to_pass,
            }
        })
        .collect()
}

#[test]
fn given_lists_are_graded_as_swe_benchs_harness_grades_the_same_run() {
    let scenarios: Vec<Scenario> = named().into_iter().chain(generated(300)).collect();
    let theirs = harness(&scenarios);
    let differ: Vec<String> = scenarios
        .iter()
        .zip(&theirs)
        .enumerate()
        .filter(|(_, (scenario, theirs))| mend(scenario) != **theirs)
        .map(|(at, (scenario, theirs))| {
            format!(
                "scenario {at}: {:?}\n  mend {:?}\n  harness {theirs:?}",
                scenario.cases,
                mend(scenario)
            )
        })
        .collect();
    assert_eq!(differ, Vec::<String>::new());
    // The named scenarios as the harness decides them, so each rule is shown to bite.
    let resolved: Vec<bool> = theirs.iter().take(named().len()).map(|(_, r)| *r).collect();
    assert_eq!(resolved, [true, false, false, true, false, false, false]);
}

#[test]
fn a_listed_id_that_stands_for_longer_ones_is_shown_with_them() {
    let given = GivenTests {
        fail_to_pass: ids(&["t.py::t[a"]),
        pass_to_pass: ids(&["t.py::u"]),
        ids: ListedIds::UpToFirstSpace,
        skipped: crate::task::SkippedPassToPass::Kept,
    };
    let graded = Graded::grade(
        &given,
        &cases(&[
            ("t.py::t[a b]", Passed),
            ("t.py::t[a c]", Passed),
            ("t.py::u", Passed),
        ]),
    );
    assert_eq!(
        graded.lines(),
        vec![
            "FAIL_TO_PASS: 1 success, 0 failure".to_owned(),
            "PASS_TO_PASS: 1 success, 0 failure".to_owned(),
            "`t.py::t[a` as SWE-bench's parser spells it: t.py::t[a b], t.py::t[a c]".to_owned(),
        ]
    );
}

/// A log of django's or sympy's own runner, with lists: graded by mend (its reader, then the
/// given lists on whole ids) and by the harness (its parser for that runner, then its grading).
struct RunnerLog {
    reader: crate::task::OutputReader,
    parser: &'static str,
    log: &'static str,
    fail_to_pass: &'static [&'static str],
    pass_to_pass: &'static [&'static str],
}

fn mend_on_log(case: &RunnerLog) -> (BTreeMap<String, Groups>, bool) {
    let cases = case
        .reader
        .read(case.log)
        .map(|report| report.cases)
        .unwrap();
    let scenario = Scenario {
        cases,
        fail_to_pass: ids(case.fail_to_pass),
        pass_to_pass: ids(case.pass_to_pass),
    };
    let report = crate::task::TestReport::Output(case.reader);
    mend_with(&scenario, ListedIds::of(&report))
}

/// Logs in the shape django's `runtests.py --verbosity 2` and sympy's `bin/test -C --verbose`
/// print them: docstring lines as ids, a skip, `FAIL:` headers, one test name in two sympy
/// files (the harness keys both by the bare name: the later line decides), failure headers.
fn runner_logs() -> Vec<RunnerLog> {
    use crate::task::OutputReader::{Django, Sympy};
    vec![
        RunnerLog {
            reader: Django,
            parser: "parse_log_django",
            log: "test_slug (forms_tests.tests.test_fields.SlugFieldTest) ... ok\n\
                  Unicode slugs are accepted. ... ok\n\
                  test_gis (gis_tests.test_geo.GeoTest) ... skipped 'needs GDAL'\n\
                  test_url (forms_tests.tests.test_fields.URLFieldTest) ... FAIL\n\
                  \n======================================================================\n\
                  FAIL: test_url (forms_tests.tests.test_fields.URLFieldTest)\n\
                  ----------------------------------------------------------------------\n\
                  AssertionError: 1 != 2\n\nRan 4 tests in 0.01s\n\nFAILED (failures=1, skipped=1)\n",
            fail_to_pass: &[
                "test_slug (forms_tests.tests.test_fields.SlugFieldTest)",
                "Unicode slugs are accepted.",
            ],
            pass_to_pass: &["test_gis (gis_tests.test_geo.GeoTest)", "[100%]"],
        },
        RunnerLog {
            reader: Django,
            parser: "parse_log_django",
            log: "test_a (app.tests.T.test_a) ... ok\n\
                  test_b (app.tests.T.test_b) ... skipped 'no db'\n\
                  test_c (app.tests.T.test_c) ... ERROR\n\
                  \nRan 3 tests in 0.01s\n\nFAILED (errors=1, skipped=1)\n",
            fail_to_pass: &["test_a (app.tests.T.test_a)", "test_b (app.tests.T.test_b)"],
            pass_to_pass: &["test_c (app.tests.T.test_c)"],
        },
        RunnerLog {
            reader: Sympy,
            parser: "parse_log_sympy",
            log: "sympy/core/tests/test_basic.py[3] \n\
                  test_same ok\n\
                  test_equality ok\n\
                  test_last ok                                                 [OK]\n\
                  sympy/core/tests/test_expr.py[2] \n\
                  test_same F\n\
                  test_other ok                                              [FAIL]\n\
                  \n________________________________________________________________________________\n\
                  ____________ sympy/core/tests/test_expr.py:test_same ____________\n\
                  AssertionError\n\n\
                  ============= tests finished: 4 passed, 1 failed, in 0.05 seconds =============\n",
            fail_to_pass: &["test_same", "test_equality"],
            pass_to_pass: &["sympy/core/tests/test_expr.py:test_same"],
        },
        RunnerLog {
            reader: Sympy,
            parser: "parse_log_sympy",
            log: "sympy/core/tests/test_basic.py[2] \n\
                  test_equality ok\n\
                  test_skip needs numpy s\n\
                  test_last ok                                                 [OK]\n\
                  \n============= tests finished: 2 passed, 1 skipped, in 0.05 seconds =============\n",
            fail_to_pass: &["test_equality"],
            pass_to_pass: &["test_skip"],
        },
    ]
}

#[test]
fn django_and_sympy_logs_are_graded_as_swe_benchs_harness_grades_them() {
    let logs = runner_logs();
    let input = json!(logs
        .iter()
        .map(|case| json!({
            "parser": case.parser,
            "log": case.log,
            "fail_to_pass": case.fail_to_pass,
            "pass_to_pass": case.pass_to_pass,
        }))
        .collect::<Vec<_>>());
    let theirs: Vec<Harness> = crate::test_support::swebench_grade(&input);
    let theirs: Vec<(BTreeMap<String, Groups>, bool)> = theirs
        .into_iter()
        .map(|answer| (answer.tests_status, answer.resolved))
        .collect();
    let mine: Vec<(BTreeMap<String, Groups>, bool)> = logs.iter().map(mend_on_log).collect();
    assert_eq!(mine, theirs);
    assert_eq!(
        theirs
            .iter()
            .map(|(_, resolved)| *resolved)
            .collect::<Vec<_>>(),
        [false, false, false, false]
    );
}
