use std::collections::BTreeMap;

use super::seal::Key;
use super::{witness_failure, Heard, Unchecked};
use crate::verdict::read::junit::Report;
use crate::verdict::read::load_failure::{LoadFailure, Loaded};
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::runner::Runner;
use crate::verdict::read::summary::Summary;
use crate::verdict::trust::known::Known;
use crate::verdict::trust::untrusted::{Alarm, AlarmKind, Untrusted};

const KEY: &str = "5eed0fca11ab1e";

/// `texts` as the witness sends them: its opening with the key, then each sealed in turn.
fn sealed(texts: &[String]) -> Vec<String> {
    let key = Key::from_hex(KEY).unwrap();
    let mut lines = vec![format!(r#"{{"event": "start", "key": "{KEY}"}}"#)];
    for (number, text) in (1u64..).zip(texts) {
        lines.push(format!("{} {text}", key.seal(number, text)));
    }
    lines
}

/// What the plugin says for a run of `tests` (id, phase, outcome, xfail), unsealed.
fn texts(tests: &[(&str, &str, &str, bool)], finished: bool) -> Vec<String> {
    let mut lines = vec![format!(r#"{{"event": "collected", "count": {}}}"#, 3)];
    for (id, when, outcome, xfail) in tests {
        lines.push(format!(
            r#"{{"event": "test", "id": "{id}", "when": "{when}", "outcome": "{outcome}", "xfail": {xfail}}}"#
        ));
    }
    if finished {
        lines.push(r#"{"event": "finished", "exitstatus": 1}"#.to_owned());
    }
    lines
}

/// What the plugin sends for a run of `tests`, sealed.
fn said(tests: &[(&str, &str, &str, bool)], finished: bool) -> Vec<String> {
    sealed(&texts(tests, finished))
}

fn cases(list: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
    list.iter()
        .map(|(id, outcome)| ((*id).to_owned(), *outcome))
        .collect()
}

const RUN: [(&str, &str, &str, bool); 6] = [
    ("t::a", "setup", "passed", false),
    ("t::a", "call", "failed", false),
    ("t::b", "setup", "passed", false),
    ("t::b", "call", "skipped", true),
    ("t::c", "setup", "passed", false),
    ("t::c", "teardown", "failed", false),
];

#[test]
fn the_phases_of_each_test_make_its_outcome() {
    let heard = Heard::of(&[said(&RUN, true)]).unwrap();
    assert_eq!(
        heard.cases,
        cases(&[
            ("t::a", CaseOutcome::Failed),
            ("t::b", CaseOutcome::Xfailed),
            ("t::c", CaseOutcome::Error),
        ])
    );
    assert_eq!(heard.check(None, Known::default()), Ok(()));
}

#[test]
fn passes_sent_together_count_as_each_tests_passed_phase() {
    // t::a passed its call, then failed its teardown: the worse phase wins whichever line came
    // first, as it does for phases sent one by one.
    let mut lines = texts(&[("t::a", "teardown", "failed", false)], false);
    lines.insert(
        1,
        r#"{"event": "passed", "ids": ["t::a", "t::g", "t::h"]}"#.to_owned(),
    );
    lines.push(r#"{"event": "passed", "ids": []}"#.to_owned());
    lines.push(r#"{"event": "finished", "exitstatus": 1}"#.to_owned());
    let heard = Heard::of(&[sealed(&lines)]).unwrap();
    assert_eq!(
        heard.cases,
        cases(&[
            ("t::a", CaseOutcome::Error),
            ("t::g", CaseOutcome::Passed),
            ("t::h", CaseOutcome::Passed),
        ])
    );
}

#[test]
fn what_was_heard_is_the_report_counted_as_pytest_counts_it() {
    // t::d fails, then errors in its teardown: pytest counts it as failed and as an error.
    let tests = [
        &RUN[..],
        &[
            ("t::d", "call", "failed", false),
            ("t::d", "teardown", "failed", false),
            ("t::e", "setup", "skipped", false),
            ("t::f", "call", "passed", false),
        ],
    ]
    .concat();
    let heard = Heard::of(&[said(&tests, true)]).unwrap();
    assert_eq!(
        heard.report(),
        Report {
            summary: Summary {
                passed: 1,
                failed: 2,
                errors: 2,
                skipped: 1,
                xfailed: 1,
            },
            failing: vec!["t::a".to_owned(), "t::c".to_owned(), "t::d".to_owned()],
            cases: cases(&[
                ("t::a", CaseOutcome::Failed),
                ("t::b", CaseOutcome::Xfailed),
                ("t::c", CaseOutcome::Error),
                ("t::d", CaseOutcome::Error),
                ("t::e", CaseOutcome::Skipped),
                ("t::f", CaseOutcome::Passed),
            ]),
        }
    );
}

#[test]
fn an_exit_other_than_the_one_pytest_ended_its_session_with_is_altered() {
    let heard = Heard::of(&[said(&RUN, true)]).unwrap();
    assert_eq!(
        [
            heard.check(Some(1), Known::default()),
            heard.check(Some(0), Known::default()),
            heard.check(None, Known::default()),
        ],
        [
            Ok(()),
            Err(Untrusted::ExitAltered {
                session: 1,
                process: 0
            }),
            Ok(()),
        ]
    );
}

#[test]
fn silence_a_second_voice_an_unsealed_line_or_an_unfinished_session_are_untrusted() {
    let forged = vec![r#"{"event": "finished", "exitstatus": 0}"#.to_owned()];
    let mut with_unsealed = said(&RUN, true);
    with_unsealed.insert(3, format!("{} {}", "0".repeat(32), forged[0]));
    let outcomes = [
        Heard::of(&[]),
        Heard::of(&[said(&RUN, true), forged.clone()]),
        Heard::of(&[forged]),
        Heard::of(&[said(&RUN, false)]),
        Heard::of(&[[said(&RUN, true), vec!["not json".to_owned()]].concat()]),
        Heard::of(&[with_unsealed]),
    ];
    let reasons: Vec<Option<Untrusted>> = outcomes.into_iter().map(Result::err).collect();
    assert_eq!(
        reasons,
        [
            Some(Untrusted::Silent),
            Some(Untrusted::SecondVoice),
            Some(Untrusted::SecondVoice),
            Some(Untrusted::StoppedEarly),
            Some(Untrusted::SecondVoice),
            Some(Untrusted::SecondVoice),
        ]
    );
}

#[test]
fn fewer_tests_reported_than_collected_is_a_run_that_stopped_early() {
    let heard = Heard::of(&[said(&RUN[..2], true)]).unwrap();
    assert_eq!(
        heard.check(None, Known::default()),
        Err(Untrusted::FewerThanCollected {
            collected: 3,
            reported: 1
        })
    );
}

#[test]
fn what_reached_into_the_run_is_named_where_it_happened() {
    let mut lines = texts(&RUN, true);
    lines.insert(
        1,
        r#"{"event": "alarm", "kind": "replaced", "what": "_pytest.python.Function.runtest replaced", "where": "pkg/totals.py:12"}"#.to_owned(),
    );
    lines.insert(
        1,
        r#"{"event": "alarm", "kind": "audit", "what": "gc.get_objects", "where": null}"#
            .to_owned(),
    );
    let heard = Heard::of(&[sealed(&lines)]).unwrap();
    let reason = heard.check(None, Known::default()).unwrap_err();
    assert_eq!(
        (reason.clone(), reason.describe()),
        (
            Untrusted::Reached {
                alarms: vec![
                    Alarm {
                        kind: AlarmKind::Audit,
                        what: "gc.get_objects".to_owned(),
                        place: None,
                    },
                    Alarm {
                        kind: AlarmKind::Replaced,
                        what: "_pytest.python.Function.runtest replaced".to_owned(),
                        place: Some("pkg/totals.py:12".to_owned()),
                    },
                ]
            },
            "the code under test reached into the test run: gc.get_objects; the test run's own code was altered while the tests ran: _pytest.python.Function.runtest replaced at pkg/totals.py:12"
                .to_owned()
        )
    );
}

/// A passing session with canaries: `t::a` passes, and the three canaries end as `outcomes`
/// say (`None`: it did not run).
fn with_canaries(outcomes: [Option<&str>; 3], placed: bool) -> Heard {
    let mut lines = vec![r#"{"event": "collected", "count": 1}"#.to_owned()];
    if placed {
        lines.push(
            r#"{"event": "canaries", "pass": "t::c1", "fail": "t::c2", "error": "t::c3"}"#
                .to_owned(),
        );
    }
    let mut run = vec![("t::a", "call", "passed")];
    for (id, outcome) in ["t::c1", "t::c2", "t::c3"].into_iter().zip(outcomes) {
        if let Some(outcome) = outcome {
            let when = if id == "t::c3" { "setup" } else { "call" };
            run.push((id, when, outcome));
        }
    }
    for (id, when, outcome) in run {
        lines.push(format!(
            r#"{{"event": "test", "id": "{id}", "when": "{when}", "outcome": "{outcome}", "xfail": false}}"#
        ));
    }
    lines.push(r#"{"event": "finished", "exitstatus": 0}"#.to_owned());
    Heard::of(&[sealed(&lines)]).unwrap()
}

#[test]
fn canaries_must_end_as_placed_and_a_passing_session_must_run_them() {
    let expected = [Some("passed"), Some("failed"), Some("failed")];
    let checked = |heard: Heard| heard.check(None, Known::default());
    assert_eq!(
        [
            checked(with_canaries(expected, true)),
            checked(with_canaries(
                [Some("passed"), Some("passed"), Some("failed")],
                true
            )),
            checked(with_canaries([Some("passed"), None, Some("failed")], true)),
            checked(with_canaries([None, None, None], false)),
        ],
        [
            Ok(()),
            Err(Untrusted::CanaryAltered {
                expected: "fail".to_owned(),
                got: "passed".to_owned()
            }),
            Err(Untrusted::CanariesMissing),
            Err(Untrusted::CanariesMissing),
        ]
    );
    let heard = with_canaries(expected, true);
    assert_eq!(
        heard.canary_ids().collect::<Vec<_>>(),
        ["t::c1", "t::c2", "t::c3"]
    );
    // No count, id or failing list shows them.
    assert_eq!(
        heard.report(),
        Report {
            summary: Summary {
                passed: 1,
                ..Summary::default()
            },
            failing: Vec::new(),
            cases: cases(&[("t::a", CaseOutcome::Passed)]),
        }
    );
}

#[test]
fn what_the_first_run_saw_from_the_same_file_is_not_held_against_the_final_run() {
    let alarm = |what: &str, place: &str| {
        format!(r#"{{"event": "alarm", "kind": "frame", "what": "{what}", "where": "{place}"}}"#)
    };
    let mut lines = texts(&RUN, true);
    lines.insert(1, alarm("sys._getframe", "pkg/log.py:40"));
    lines.insert(1, alarm("sys._getframe", "pkg/totals.py:3"));
    let heard = Heard::of(&[sealed(&lines)]).unwrap();
    let first_run = |place: &str| Alarm {
        kind: AlarmKind::Frame,
        what: "sys._getframe".to_owned(),
        place: Some(place.to_owned()),
    };
    // The project's own logging read its caller's frame before the change too (at another line
    // now); the read in pkg/totals.py is new.
    assert_eq!(
        heard.check(
            None,
            Known {
                first_run: &[first_run("pkg/log.py:37")],
                written: None,
            }
        ),
        Err(Untrusted::Reached {
            alarms: vec![first_run("pkg/totals.py:3")]
        })
    );
}

const RUNNER_LINE: &str =
    r#"{"event": "runner", "pytest": "9.2.0", "pluggy": "1.7.0", "python": "3.9.18"}"#;

fn runner_92() -> Runner {
    Runner {
        pytest: "9.2.0".to_owned(),
        pluggy: "1.7.0".to_owned(),
        python: "3.9.18".to_owned(),
    }
}

#[test]
fn the_runner_and_the_checks_not_made_are_heard_and_a_pass_still_stands() {
    let mut lines = texts(&RUN, true);
    lines.insert(0, RUNNER_LINE.to_owned());
    lines.insert(
        1,
        r#"{"event": "unchecked", "what": "the audit hook", "why": "Python 3.7.16 has no audit hooks"}"#.to_owned(),
    );
    let heard = Heard::of(&[sealed(&lines)]).unwrap();
    assert_eq!(
        (
            heard.runner.clone(),
            heard
                .unchecked
                .iter()
                .map(Unchecked::describe)
                .collect::<Vec<_>>(),
            heard.check(None, Known::default()),
        ),
        (
            Some(runner_92()),
            vec!["the audit hook (Python 3.7.16 has no audit hooks)".to_owned()],
            Ok(())
        )
    );
}

#[test]
fn a_witness_that_broke_is_named_with_the_versions_it_met() {
    let notice = r#"{"event": "broken", "pytest": "9.2.0", "pluggy": "1.7.0", "python": "3.9.18", "error": "ModuleNotFoundError: No module named '_pytest.python_api'", "where": "_watched_holders, line 314"}"#;
    // The witness named its runner, then failed in a hook: pytest printed where.
    let started = sealed(&[RUNNER_LINE.to_owned()]);
    let printed = LoadFailure {
        what: Loaded::Witness {
            runner: None,
            place: Some("place, line 562".to_owned()),
        },
        error: "AttributeError: 'Module' object has no attribute 'path'".to_owned(),
    };
    let conftest = LoadFailure {
        what: Loaded::Conftest("conftest.py".to_owned()),
        error: "ImportError: x".to_owned(),
    };
    assert_eq!(
        [
            witness_failure(&[started.clone(), vec![notice.to_owned()]], None),
            witness_failure(std::slice::from_ref(&started), Some(printed.clone())),
            witness_failure(&[], Some(printed.clone())),
            witness_failure(&[started], Some(conftest.clone())),
            // An unsealed line that is no notice is no failure of the witness.
            witness_failure(&[vec![RUNNER_LINE.to_owned()]], None),
        ],
        [
            Some(LoadFailure {
                what: Loaded::Witness {
                    runner: Some(Box::new(runner_92())),
                    place: Some("_watched_holders, line 314".to_owned()),
                },
                error: "ModuleNotFoundError: No module named '_pytest.python_api'".to_owned(),
            }),
            Some(LoadFailure {
                what: Loaded::Witness {
                    runner: Some(Box::new(runner_92())),
                    place: Some("place, line 562".to_owned()),
                },
                ..printed.clone()
            }),
            Some(printed),
            Some(conftest),
            None,
        ]
    );
}
