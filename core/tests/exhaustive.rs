//! Bounded exhaustive check: every sequence of up to 7 abstract inputs over 13 kinds, every rule
//! on every sequence.
//!
//! The search walks the tree of sequences depth first, cloning the session at each node. Once a
//! session has stopped, each of the 13 inputs is fed to it once and must give no action and leave
//! the state equal; since the state is then the same after any input, every longer sequence below
//! that node is settled by induction instead of being walked again. The test prints both counts.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

mod support;

use mend_core::{Millis, Session};
use support::rules::Checker;
use support::steps::{CallSpec, CallTool, Fed, Step};
use support::{config, start};

const MAX_LENGTH: u32 = 7;
const MAX_TURNS: u32 = 2;
/// Early enough that `DeadlinePassed` is rejected at some depths and accepted at others.
const DEADLINE: Millis = Millis(4);

fn alphabet() -> Vec<Step> {
    let read = CallSpec {
        tool: CallTool::ReadFile,
        with_id: true,
        arguments_as_string: false,
    };
    let unknown = CallSpec {
        tool: CallTool::Unknown,
        with_id: false,
        arguments_as_string: false,
    };
    vec![
        Step::Chunk {
            thinking: String::new(),
            content: "Let me look.".to_owned(),
            calls: vec![],
        },
        Step::Chunk {
            thinking: String::new(),
            content: String::new(),
            calls: vec![read],
        },
        Step::Chunk {
            thinking: String::new(),
            content: String::new(),
            calls: vec![unknown],
        },
        Step::Done {
            calls: vec![],
            cut_off: false,
        },
        Step::Done {
            calls: vec![],
            cut_off: true,
        },
        Step::ErrorLine,
        Step::Malformed(b"{\"message\":{\"content\":".to_vec()),
        Step::StreamEnd,
        Step::TransportFailed,
        Step::ToolOk,
        Step::ToolFailed,
        Step::Cancel,
        Step::Deadline,
    ]
}

#[derive(Default)]
struct Tally {
    walked: u64,
    by_induction: u64,
}

/// Sequences of length 1..=n over `k` kinds: k + k² + ... + kⁿ.
fn sequences_up_to(k: u64, n: u32) -> u64 {
    (1..=n).map(|length| k.pow(length)).sum()
}

fn explore(
    session: &Session,
    checker: &Checker,
    depth: u32,
    serial: u32,
    alphabet: &[Step],
    tally: &mut Tally,
) {
    if depth == MAX_LENGTH {
        return;
    }
    if checker.stops() > 0 {
        for step in alphabet {
            let mut serial = serial;
            let fed = Fed::resolve(step, checker.running.as_ref(), &mut serial);
            let mut after = session.clone();
            let actions = after.handle(Millis(u64::from(depth)), fed.input.clone());
            let mut checker = checker.clone();
            checker
                .step(session, &fed, &actions, &after)
                .unwrap_or_else(|error| panic!("after the stop: {error}"));
        }
        tally.by_induction += sequences_up_to(alphabet.len() as u64, MAX_LENGTH - depth);
        return;
    }
    for step in alphabet {
        let mut serial = serial;
        let fed = Fed::resolve(step, checker.running.as_ref(), &mut serial);
        let mut after = session.clone();
        let actions = after.handle(Millis(u64::from(depth)), fed.input.clone());
        let mut next = checker.clone();
        next.step(session, &fed, &actions, &after)
            .unwrap_or_else(|error| panic!("depth {depth}, {step:?}: {error}"));
        tally.walked += 1;
        explore(&after, &next, depth + 1, serial, alphabet, tally);
    }
}

#[test]
fn every_short_input_sequence_keeps_the_rules() {
    let alphabet = alphabet();
    let mut config = config(MAX_TURNS);
    config.deadline = Some(DEADLINE);
    let (session, first) = start(config);
    let checker = Checker::start(MAX_TURNS, &first).expect("the opening keeps the rules");
    let mut tally = Tally::default();
    explore(&session, &checker, 0, 0, &alphabet, &mut tally);

    let total = sequences_up_to(alphabet.len() as u64, MAX_LENGTH);
    println!(
        "exhaustive: {total} sequences of 1..={MAX_LENGTH} inputs over {} kinds checked: {} walked input by input, {} settled after a stop by induction",
        alphabet.len(),
        tally.walked,
        tally.by_induction
    );
    assert_eq!(
        tally.walked + tally.by_induction,
        total,
        "every sequence is accounted for"
    );
}
