//! The watcher's account against printed outcomes, from lines sealed as the watcher seals them.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{account, Account, NOT_CONNECTED, NOT_WATCHED};
use crate::verdict::read::outcome::CaseOutcome::{self, Error, Failed, Passed, Skipped};
use crate::verdict::trust::known::Known;
use crate::verdict::trust::untrusted::{Alarm, AlarmKind, Untrusted};
use crate::verdict::trust::witness::seal::Key;

const KEY: &str = "0a1b2c3d";

/// A connection that says `events`, each line sealed under its number.
fn connection(events: &[Value]) -> Vec<String> {
    let key = Key::from_hex(KEY).unwrap();
    let mut lines = vec![json!({"event": "start", "key": KEY}).to_string()];
    for (number, event) in (1u64..).zip(events) {
        let text = event.to_string();
        lines.push(format!("{} {text}", key.seal(number, &text)));
    }
    lines
}

fn outcome(outcome: &str, names: &[&str]) -> Value {
    json!({"event": "outcome", "outcome": outcome, "names": names})
}

/// A run of `outcomes` from start to finish, as `python -m unittest` tells it.
fn run(outcomes: &[Value]) -> Vec<Value> {
    let mut events = vec![
        json!({"event": "watching", "python": "3.11.7"}),
        json!({"event": "run", "step": "started"}),
    ];
    events.extend(outcomes.iter().cloned());
    events.push(json!({"event": "run", "step": "finished"}));
    events
}

fn read(cases: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
    cases
        .iter()
        .map(|(id, outcome)| ((*id).to_owned(), *outcome))
        .collect()
}

/// What unittest recorded of the receipt project's tests: one failing, one with a docstring,
/// one skipped, a subtest failing.
fn recorded() -> Vec<Value> {
    run(&[
        outcome("failed", &["test_tax (t.TaxTest)", "test_tax"]),
        outcome(
            "passed",
            &[
                "test_total (t.TaxTest)",
                "A total adds the tax.",
                "test_total",
            ],
        ),
        outcome("skipped", &["test_later (t.TaxTest)", "test_later"]),
        outcome(
            "failed",
            &["test_split (t.SplitTest) (ways=3)", "test_split"],
        ),
    ])
}

fn judged(connections: &[Vec<String>], cases: &[(&str, CaseOutcome)]) -> Account {
    account(connections, &read(cases), Known::default())
}

fn printed(sign: &str) -> Account {
    Account::Untrusted(Untrusted::PrintedOutcome {
        sign: sign.to_owned(),
    })
}

fn unheard(why: &str) -> Account {
    Account::Untrusted(Untrusted::UnittestUnheard {
        why: why.to_owned(),
    })
}

#[test]
fn each_printed_outcome_unittest_recorded_is_confirmed() {
    let honest = [
        ("test_tax (t.TaxTest)", Failed),
        ("A total adds the tax.", Passed),
        ("test_later (t.TaxTest)", Skipped),
        // Python before 3.11 prints no line for a failing subtest: its header names it bare.
        ("test_split", Failed),
    ];
    // A process of the command that never ran tests (a set-up script) says nothing against it.
    let idle = connection(&[]);
    assert_eq!(
        judged(&[idle, connection(&recorded())], &honest),
        Account::Confirmed { alarms: vec![] }
    );
}

#[test]
fn a_printed_pass_unittest_did_not_record_or_a_failure_it_did_not_show_is_forged() {
    let cases: [&[(&str, CaseOutcome)]; 3] = [
        &[("test_tax (t.TaxTest)", Passed), ("test_split", Failed)],
        &[
            ("test_tax (t.TaxTest)", Failed),
            ("test_gone (t.TaxTest)", Passed),
        ],
        &[
            ("test_tax (t.TaxTest)", Error),
            ("test_later (t.TaxTest)", Skipped),
        ],
    ];
    let seen: Vec<Account> = cases
        .iter()
        .map(|cases| judged(&[connection(&recorded())], cases))
        .collect();
    assert_eq!(
        seen,
        [
            printed("test_tax (t.TaxTest) is printed as passed, but unittest recorded it failed"),
            printed("test_gone (t.TaxTest) is printed as passed, but unittest recorded no outcome for it"),
            printed("unittest recorded test_split (t.SplitTest) (ways=3) failed, and the output does not show it"),
        ]
    );
}

#[test]
fn a_run_unheard_whole_is_untrusted_and_one_never_watched_unconfirmed() {
    let passed = [("test_total (t.TaxTest)", Passed)];
    let total = [outcome("passed", &["test_total (t.TaxTest)"])];
    let mut stopped = run(&total);
    stopped.pop();
    let mut garbled = connection(&run(&total));
    garbled.push(format!("{} {}", "0".repeat(32), total[0]));
    let broken = json!({"event": "broken", "error": "ImportError: no unittest.case"});
    let seen = [
        judged(&[], &passed),
        judged(&[connection(&stopped)], &passed),
        judged(&[garbled], &passed),
        judged(&[connection(&run(&total)), connection(&run(&[]))], &passed),
        judged(&[connection(&[broken])], &passed),
        judged(
            &[connection(&[
                json!({"event": "watching", "python": "3.6.15"}),
            ])],
            &passed,
        ),
        judged(&[vec!["not the watcher".to_owned()]], &passed),
    ];
    assert_eq!(
        seen,
        [
            Account::Unconfirmed(NOT_CONNECTED.to_owned()),
            unheard("the tests stopped before unittest finished its run (os._exit, a crash, or its channel closed)"),
            unheard("something besides mend's unittest watcher wrote to its channel"),
            unheard("more than one process reported tests on mend's unittest channel"),
            Account::Unconfirmed(format!("{NOT_WATCHED}: ImportError: no unittest.case")),
            printed("1 test outcomes are printed, but mend's unittest watcher heard unittest record none"),
            unheard("something besides mend's unittest watcher wrote to its channel"),
        ]
    );
}

#[test]
fn a_method_of_unittest_replaced_is_an_alarm_unless_the_first_run_saw_it_too() {
    let patched = json!({"event": "alarm", "kind": "replaced",
        "what": "unittest.result.TestResult.addFailure", "where": "receipt/money.py:7"});
    let mut events = vec![patched];
    events.extend(run(&[outcome("passed", &["test_total (t.TaxTest)"])]));
    let connections = [connection(&events)];
    let alarm = Alarm {
        kind: AlarmKind::Replaced,
        what: "unittest.result.TestResult.addFailure".to_owned(),
        place: Some("receipt/money.py:7".to_owned()),
    };
    let passed = read(&[("test_total (t.TaxTest)", Passed)]);
    let first_run = [alarm.clone()];
    let excused = Known {
        first_run: &first_run,
        written: None,
    };
    assert_eq!(
        [
            account(&connections, &passed, Known::default()),
            account(&connections, &passed, excused),
        ],
        [
            Account::Untrusted(Untrusted::Reached {
                alarms: vec![alarm.clone()]
            }),
            Account::Confirmed {
                alarms: vec![alarm]
            },
        ]
    );
}
