use std::collections::BTreeMap;

use super::{Doubt, Heard};
use crate::verdict::contract::CaseOutcome;

const REPORT: &str = "<testsuites/>";
/// SHA-256 of `REPORT`.
fn report_digest() -> String {
    crate::atomic::sha256_hex(REPORT.as_bytes())
}

/// What the plugin sends for a run of `tests` (id, phase, outcome, xfail).
fn said(tests: &[(&str, &str, &str, bool)], finished: bool) -> Vec<String> {
    let mut lines = vec![
        r#"{"event": "start"}"#.to_owned(),
        format!(r#"{{"event": "collected", "count": {}}}"#, 3),
    ];
    for (id, when, outcome, xfail) in tests {
        lines.push(format!(
            r#"{{"event": "test", "id": "{id}", "when": "{when}", "outcome": "{outcome}", "xfail": {xfail}}}"#
        ));
    }
    if finished {
        lines.push(r#"{"event": "finished", "exitstatus": 1}"#.to_owned());
        lines.push(format!(
            r#"{{"event": "report", "sha256": "{}"}}"#,
            report_digest()
        ));
    }
    lines
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
    assert_eq!(heard.check(REPORT, &heard.cases.clone(), None), Ok(()));
}

#[test]
fn a_report_that_says_other_than_the_witness_heard_is_altered() {
    let heard = Heard::of(&[said(&RUN, true)]).unwrap();
    let all_passed = cases(&[
        ("t::a", CaseOutcome::Passed),
        ("t::b", CaseOutcome::Passed),
        ("t::c", CaseOutcome::Passed),
    ]);
    assert_eq!(
        [
            heard.check(REPORT, &all_passed, Some(1)),
            heard.check("<testsuites></testsuites>", &heard.cases.clone(), None),
            heard.check(REPORT, &heard.cases.clone(), Some(0)),
        ],
        [
            Err(Doubt::ReportDisagrees {
                heard: "1 xfailed, 1 failed, 1 error".to_owned(),
                reported: "3 passed".to_owned(),
            }),
            Err(Doubt::ReportRewritten),
            Err(Doubt::ExitAltered {
                session: 1,
                process: 0
            }),
        ]
    );
}

#[test]
fn silence_a_second_voice_or_an_unfinished_session_are_doubts() {
    let forged = vec![r#"{"event": "finished", "exitstatus": 0}"#.to_owned()];
    let outcomes = [
        Heard::of(&[]),
        Heard::of(&[said(&RUN, true), forged.clone()]),
        Heard::of(&[forged]),
        Heard::of(&[said(&RUN, false)]),
        Heard::of(&[[said(&RUN, true), vec!["not json".to_owned()]].concat()]),
    ];
    let doubts: Vec<Option<Doubt>> = outcomes.into_iter().map(Result::err).collect();
    assert_eq!(
        doubts,
        [
            Some(Doubt::Silent),
            Some(Doubt::SecondVoice),
            Some(Doubt::SecondVoice),
            Some(Doubt::StoppedEarly),
            Some(Doubt::SecondVoice),
        ]
    );
}

#[test]
fn fewer_tests_reported_than_collected_is_a_run_that_stopped_early() {
    let heard = Heard::of(&[said(&RUN[..2], true)]).unwrap();
    assert_eq!(
        heard.check(REPORT, &heard.cases.clone(), None),
        Err(Doubt::FewerThanCollected {
            collected: 3,
            reported: 1
        })
    );
}

#[test]
fn pytest_altered_during_the_run_is_named() {
    let mut lines = said(&RUN, true);
    lines.insert(
        2,
        r#"{"event": "tampered", "names": ["_pytest.python.Function.runtest"]}"#.to_owned(),
    );
    let heard = Heard::of(&[lines]).unwrap();
    let doubt = heard.check(REPORT, &heard.cases.clone(), None).unwrap_err();
    assert_eq!(
        (doubt.clone(), doubt.describe()),
        (
            Doubt::Tampered {
                names: vec!["_pytest.python.Function.runtest".to_owned()]
            },
            "pytest was altered while the tests ran: _pytest.python.Function.runtest replaced"
                .to_owned()
        )
    );
}
