//! Bounded exhaustive check: every sequence of up to 7 abstract inputs over 14 kinds (6 for the SSE
//! codecs), every rule on every sequence, for each protocol.
//!
//! The search walks the tree of sequences depth first, cloning the session at each node. Once a
//! session has stopped, each of the 14 inputs is fed to it once and must give no action and leave
//! the state equal; since the state is then the same after any input, every longer sequence below
//! that node is settled by induction instead of being walked again. The test prints both counts.

use crate::support::rules::Checker;
use crate::support::steps::{resolve_for, CallSpec, CallTool, Step, TextForm};
use crate::support::Handled;
use crate::support::{config, start};
use mend_core::{Millis, Protocol, Session};

/// Ollama's protocol is walked to length 7; the SSE codecs, whose steps are several lines each, to
/// length 6 (13⁶ = 4.8 M sequences each), which keeps the whole check well under a minute.
///
/// Each protocol runs with a token budget: Ollama's scripted turn counts 150 tokens, so its budget of
/// 100 stops the session with `budget_exceeded` after turn 1's calls; OpenAI's counts 14, so 20 is
/// crossed by turn 2 and `max_turns` (2) wins; Anthropic's 3 tokens never reach 1000.
/// Anthropic's transport failure is the server's answer to a prompt over its context window (HTTP
/// 400, `prompt is too long`): the session must stop with `context_exceeded`.
const LENGTHS: [(Protocol, u32, u64); 3] = [
    (Protocol::OllamaNdjson, 7, 100),
    (Protocol::OpenaiSse, 6, 20),
    (Protocol::AnthropicSse, 6, 1000),
];
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
        Step::TextCall {
            form: TextForm::Hermes,
            tool: CallTool::ReadFile,
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

/// Feeds one abstract step (one line in NDJSON, the lines of its events in SSE) and checks the
/// rules on every input; returns the session after it.
fn apply(
    protocol: Protocol,
    session: &Session,
    checker: &mut Checker,
    step: &Step,
    depth: u32,
    serial: &mut u32,
) -> Session {
    let mut current = session.clone();
    for fed in resolve_for(protocol, step, checker.running.as_ref(), serial) {
        let before = current.clone();
        let now = Millis(u64::from(depth));
        let actions = current.handled(now, fed.input.clone());
        checker
            .step(&before, &fed, now, &actions, &current)
            .unwrap_or_else(|error| panic!("{protocol:?}, depth {depth}, {step:?}: {error}"));
    }
    current
}

fn explore(
    (protocol, max_length): (Protocol, u32),
    session: &Session,
    checker: &Checker,
    depth: u32,
    serial: u32,
    alphabet: &[Step],
    tally: &mut Tally,
) {
    if depth == max_length {
        return;
    }
    if checker.stops() > 0 {
        for step in alphabet {
            let after = apply(
                protocol,
                session,
                &mut checker.clone(),
                step,
                depth,
                &mut serial.clone(),
            );
            assert!(
                after == *session,
                "{protocol:?}: {step:?} changed a stopped session"
            );
        }
        tally.by_induction += sequences_up_to(alphabet.len() as u64, max_length - depth);
        return;
    }
    for step in alphabet {
        let mut serial = serial;
        let mut next = checker.clone();
        let after = apply(protocol, session, &mut next, step, depth, &mut serial);
        tally.walked += 1;
        explore(
            (protocol, max_length),
            &after,
            &next,
            depth + 1,
            serial,
            alphabet,
            tally,
        );
    }
}

#[test]
fn every_short_input_sequence_keeps_the_rules() {
    let alphabet = alphabet();
    for (protocol, max_length, budget) in LENGTHS {
        let mut config = config(MAX_TURNS);
        config.deadline = Some(DEADLINE);
        config.token_budget = Some(budget);
        config.protocol = protocol;
        let (session, first) = start(config);
        let checker = Checker::start_with_budget(MAX_TURNS, Some(budget), &first)
            .expect("the opening keeps the rules");
        let mut tally = Tally::default();
        explore(
            (protocol, max_length),
            &session,
            &checker,
            0,
            0,
            &alphabet,
            &mut tally,
        );

        let total = sequences_up_to(alphabet.len() as u64, max_length);
        println!(
            "exhaustive ({}): {total} sequences of 1..={max_length} inputs over {} kinds checked: {} walked input by input, {} settled after a stop by induction",
            protocol.name(),
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
}
