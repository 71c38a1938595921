//! The rules of the core as properties over generated whole sessions (the rules 1–8 of
//! docs/design.md).
//!
//! `PROPTEST_CASES` scales every property (`make proptest-deep` runs 50× the default).
//! Failing seeds are kept in `proptest-regressions/` at the repository root.

use crate::support;
use crate::support::rules::Checker;
use crate::support::steps::{resolve_for, CallSpec, CallTool, Step, TextForm};
use crate::support::Handled;
use crate::support::{config, done, line, start, text};
use mend_core::{Action, Event, Input, Message, Millis, Protocol, Session, StopReason};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::json;

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/core-properties.txt"
        )))),
        ..ProptestConfig::default()
    }
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "\\PC{0,12}",
        1 => Just(String::new()),
        1 => Just(" \n".to_owned()),
        1 => Just("é\u{202f}✓ \\ \"q\"".to_owned()),
    ]
}

fn call_spec() -> impl Strategy<Value = CallSpec> {
    let tool = prop_oneof![
        4 => Just(CallTool::ReadFile),
        3 => Just(CallTool::RunTests),
        1 => Just(CallTool::ReadFileMissingPath),
        1 => Just(CallTool::Unknown),
    ];
    (tool, any::<bool>(), prop::bool::weighted(0.2)).prop_map(
        |(tool, with_id, arguments_as_string)| CallSpec {
            tool,
            with_id,
            arguments_as_string,
        },
    )
}

fn chunk_step() -> impl Strategy<Value = Step> {
    (
        fragment(),
        fragment(),
        prop::collection::vec(call_spec(), 0..2),
    )
        .prop_map(|(thinking, content, calls)| Step::Chunk {
            thinking,
            content,
            calls,
        })
}

/// A call written into the text, in any of the forms small models use.
fn text_call_step() -> impl Strategy<Value = Step> {
    let form = prop_oneof![
        Just(TextForm::Hermes),
        any::<bool>().prop_map(|wrapped| TextForm::Qwen3Coder { wrapped }),
        Just(TextForm::Fenced),
        Just(TextForm::Bare),
        Just(TextForm::Mistral),
        Just(TextForm::MistralJson),
        Just(TextForm::Llama),
        Just(TextForm::Harmony),
        Just(TextForm::GemmaToolCode),
        Just(TextForm::Deepseek),
        Just(TextForm::ToolCallList),
    ];
    let tool = prop_oneof![
        3 => Just(CallTool::ReadFile),
        2 => Just(CallTool::RunTests),
        1 => Just(CallTool::ReadFileMissingPath),
        1 => Just(CallTool::Unknown),
    ];
    (form, tool).prop_map(|(form, tool)| Step::TextCall { form, tool })
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"{\"message\":".to_vec()),
        Just(vec![0xff, 0xfe, b'{']),
        Just(b"[1,2]".to_vec()),
        Just(b"data: {}".to_vec()),
        prop::collection::vec(any::<u8>(), 1..24).prop_filter("not a chunk by chance", |bytes| {
            let chunk_by_chance =
                serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes).is_ok()
                    || bytes.trim_ascii() == b"[DONE]";
            bytes.iter().any(|byte| !byte.is_ascii_whitespace()) && !chunk_by_chance
        }),
    ]
}

/// How a turn's stream ends: mostly a proper `done`, sometimes every way it can break.
fn ending() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => prop::collection::vec(call_spec(), 0..2).prop_map(|calls| Step::Done { calls, cut_off: false }),
        1 => prop::collection::vec(call_spec(), 0..2).prop_map(|calls| Step::Done { calls, cut_off: true }),
        1 => Just(Step::ErrorLine),
        1 => garbage().prop_map(Step::Malformed),
        1 => Just(Step::StreamEnd),
        1 => Just(Step::TransportFailed),
    ]
}

/// Inputs that arrive out of place: the session must reject or absorb them.
fn noise() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::ToolForStranger),
        2 => Just(Step::Blank),
        2 => Just(Step::Deadline),
        2 => Just(Step::StreamEnd),
        2 => Just(Step::ToolOk),
        1 => Just(Step::Cancel),
    ]
}

/// One turn: chunks, an ending, the answers to its calls, and noise anywhere.
fn turn() -> impl Strategy<Value = Vec<Step>> {
    let answers = prop::collection::vec(prop::bool::weighted(0.8), 0..4).prop_map(|answers| {
        answers
            .into_iter()
            .map(|ok| if ok { Step::ToolOk } else { Step::ToolFailed })
            .collect::<Vec<_>>()
    });
    (
        prop::collection::vec(prop_oneof![4 => chunk_step(), 1 => text_call_step()], 0..5),
        ending(),
        answers,
        prop::collection::vec((any::<prop::sample::Index>(), noise()), 0..2),
    )
        .prop_map(|(mut steps, ending, answers, noise)| {
            steps.push(ending);
            steps.extend(answers);
            for (at, step) in noise {
                let position = at.index(steps.len() + 1);
                steps.insert(position, step);
            }
            steps
        })
}

#[derive(Debug, Clone)]
struct Script {
    protocol: Protocol,
    max_turns: u32,
    deadline: Option<u64>,
    token_budget: Option<u64>,
    text_tool_calls: bool,
    steps: Vec<Step>,
}

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![2 => Just(Protocol::OllamaNdjson), 1 => Just(Protocol::OpenaiSse), 1 => Just(Protocol::AnthropicSse)]
}

fn script() -> impl Strategy<Value = Script> {
    (
        protocol(),
        1..5u32,
        prop::option::weighted(0.3, 0..80u64),
        // Around one turn's worth of each protocol's counts (150 Ollama, 14 OpenAI, 3 Anthropic).
        prop::option::weighted(0.3, 0..400u64),
        prop::bool::weighted(0.8),
        prop::collection::vec(turn(), 1..6),
    )
        .prop_map(
            |(protocol, max_turns, deadline, token_budget, text_tool_calls, turns)| Script {
                protocol,
                max_turns,
                deadline,
                token_budget,
                text_tool_calls,
                steps: turns.into_iter().flatten().collect(),
            },
        )
}

struct Run {
    log: Vec<Vec<Action>>,
    final_state: Session,
    checker: Checker,
}

fn script_config(script: &Script) -> mend_core::Config {
    let mut config = config(script.max_turns);
    config.deadline = script.deadline.map(Millis);
    config.token_budget = script.token_budget;
    config.protocol = script.protocol;
    config.text_tool_calls = script.text_tool_calls;
    config
}

/// Drives a whole session through the checker; a session still running at the end is cancelled,
/// so every run must end with exactly one stop.
fn run(script: &Script) -> Result<Run, String> {
    let (mut session, first) = start(script_config(script));
    let mut checker = Checker::start_with_budget(script.max_turns, script.token_budget, &first)?;
    let mut log = vec![first];
    let mut serial = 0;
    let closing = [Step::Cancel];
    for (now, step) in script.steps.iter().chain(&closing).enumerate() {
        for fed in resolve_for(script.protocol, step, checker.running.as_ref(), &mut serial) {
            let before = session.clone();
            let at = Millis(now as u64);
            let actions = session.handled(at, fed.input.clone());
            checker
                .step(&before, &fed, at, &actions, &session)
                .map_err(|err| format!("step {now} {step:?}: {err}"))?;
            log.push(actions);
        }
    }
    if checker.stops() != 1 {
        return Err(format!("{} stops", checker.stops()));
    }
    Ok(Run {
        log,
        final_state: session,
        checker,
    })
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Rules 1–4, 6 and 8 over whole generated sessions.
    #[test]
    fn every_generated_session_keeps_the_rules(script in script()) {
        if let Err(error) = run(&script) {
            prop_assert!(false, "{}", error);
        }
    }

    /// A follow-up (`mend chat`) of any stopped session keeps the whole history, answers every
    /// call that was cut before it ran, and asks with the user's text last.
    #[test]
    fn a_follow_up_keeps_the_history_and_answers_every_call(script in script(), text in "\\PC{1,20}") {
        let run = run(&script).map_err(TestCaseError::fail)?;
        let old = run.final_state.conversation().to_vec();
        let (next, first) = support::taken(run.final_state.follow_up(&text).map_err(|err| TestCaseError::fail(err.to_string()))?);
        let [Action::Emit(Event::ModelStart { turn: 1 }), Action::SendRequest { turn: 1, body, .. }] = first.as_slice() else {
            return Err(TestCaseError::fail(format!("unexpected first actions {first:?}")));
        };
        prop_assert_eq!(&body.messages[..old.len()], &old[..]);
        prop_assert_eq!(body.messages.last().map(|message| message.as_ref()), Some(&Message::user(text.clone())));
        prop_assert_eq!(next.conversation(), &body.messages[..]);
        for (at, message) in body.messages.iter().enumerate() {
            let answers = body.messages[at + 1..]
                .iter()
                .take_while(|later| later.role == mend_core::Role::Tool)
                .count();
            if message.role == mend_core::Role::Assistant {
                prop_assert_eq!(answers, message.tool_calls.len(), "message {}", at);
            }
        }
    }

    /// Rule 7: a clone fed the same inputs does exactly the same.
    #[test]
    fn sessions_are_deterministic(script in script(), split in any::<prop::sample::Index>()) {
        let whole = run(&script).map_err(TestCaseError::fail)?;
        let again = run(&script).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&whole.log, &again.log);
        prop_assert_eq!(&whole.final_state, &again.final_state);
        prop_assert_eq!(whole.checker.requests(), again.checker.requests());

        // A clone taken at any point continues exactly like the original.
        let cut = split.index(script.steps.len() + 1);
        let prefix = Script { steps: script.steps[..cut].to_vec(), ..script.clone() };
        let (mut original, _) = start(script_config(&script));
        let mut running = None;
        let mut serial = 0;
        for (now, step) in prefix.steps.iter().enumerate() {
            for fed in resolve_for(script.protocol, step, running.as_ref(), &mut serial) {
                for action in original.handled(Millis(now as u64), fed.input) {
                    if let Action::DispatchTool { call_id, .. } = action {
                        running = Some(call_id);
                    }
                }
            }
        }
        let mut clone = original.clone();
        for (offset, step) in script.steps[cut..].iter().enumerate() {
            let now = Millis((cut + offset) as u64);
            for fed in resolve_for(script.protocol, step, running.as_ref(), &mut serial) {
                let from_original = original.handled(now, fed.input.clone());
                let from_clone = clone.handled(now, fed.input);
                prop_assert_eq!(&from_original, &from_clone);
                for action in from_original {
                    if let Action::DispatchTool { call_id, .. } = action {
                        running = Some(call_id);
                    }
                }
            }
        }
    }

    /// Rule 5: wherever the text is split into chunks, the assembled message and the actions are
    /// the same, apart from the deltas.
    #[test]
    fn splitting_content_changes_only_the_deltas(
        content in "\\PC{0,40}",
        thinking in "\\PC{0,40}",
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        with_call in any::<bool>(),
    ) {
        let pieces = |text: &str| -> Vec<String> {
            let chars: Vec<char> = text.chars().collect();
            let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(chars.len() + 1)).collect();
            points.push(0);
            points.push(chars.len());
            points.sort_unstable();
            points.windows(2).map(|pair| chars[pair[0]..pair[1]].iter().collect()).collect()
        };
        let call = support::call(Some("call_1"), "run_tests", json!({}));
        let stream = |thinking_parts: Vec<String>, content_parts: Vec<String>| {
            let mut chunks: Vec<serde_json::Value> = thinking_parts.iter().map(|part| support::thinking(part)).collect();
            chunks.extend(content_parts.iter().map(|part| text(part)));
            if with_call {
                chunks.push(support::tool_calls(vec![call.clone()]));
            }
            chunks.push(done());
            chunks
        };
        let whole = stream(vec![thinking.clone()], vec![content.clone()]);
        let split = stream(pieces(&thinking), pieces(&content));
        let without_deltas = |actions: Vec<Action>| -> Vec<Action> {
            actions.into_iter().filter(|action| !matches!(action, Action::Emit(Event::TextDelta { .. } | Event::ThinkingDelta { .. }))).collect()
        };
        let (mut one, _) = start(config(3));
        let (mut other, _) = start(config(3));
        let from_whole = without_deltas(support::feed(&mut one, &whole));
        let from_split = without_deltas(support::feed(&mut other, &split));
        prop_assert_eq!(from_whole, from_split);
        prop_assert_eq!(one.conversation(), other.conversation());
    }

    /// Rule 6: arbitrary bytes never panic; a line that is neither blank nor a JSON object ends
    /// the session with `model_error`.
    #[test]
    fn arbitrary_lines_never_panic(lines in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 1..8)) {
        let (mut session, _) = start(config(2));
        for bytes in lines {
            if !session.is_streaming() {
                break;
            }
            let blank = bytes.iter().all(u8::is_ascii_whitespace);
            let is_object = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes).is_ok();
            let _actions = session.handled(Millis(0), support::raw(&bytes));
            if !blank && !is_object {
                prop_assert_eq!(session.stopped().map(|stop| stop.reason), Some(StopReason::ModelError));
            }
        }
    }
}

#[test]
fn a_session_that_keeps_calling_tools_stops_at_the_budget() {
    // Two different calls in turn, so that the repetition guard has nothing to say.
    let call = |tool| {
        vec![CallSpec {
            tool,
            with_id: true,
            arguments_as_string: false,
        }]
    };
    let turn = [
        Step::Done {
            calls: call(CallTool::RunTests),
            cut_off: false,
        },
        Step::ToolOk,
        Step::Done {
            calls: call(CallTool::ReadFile),
            cut_off: false,
        },
        Step::ToolOk,
    ];
    for protocol in [
        Protocol::OllamaNdjson,
        Protocol::OpenaiSse,
        Protocol::AnthropicSse,
    ] {
        let script = Script {
            protocol,
            max_turns: 3,
            deadline: None,
            token_budget: None,
            text_tool_calls: true,
            steps: turn.iter().cycle().take(12).cloned().collect(),
        };
        let outcome = run(&script).expect("the rules hold");
        let stop = outcome.final_state.stopped().map(|stop| stop.reason);
        assert_eq!(
            (outcome.checker.requests(), outcome.checker.dispatches, stop),
            (3, 3, Some(StopReason::MaxTurns)),
            "{protocol:?}"
        );
    }
    let _ = line; // the builders module is shared with other test crates
}

/// The token budget, as a property: with every turn making one call, the session stops with
/// `budget_exceeded` right after the results of the first turn whose counts go past the budget
/// (each protocol's scripted `done` reports a fixed count), and that turn's call still ran.
#[test]
fn the_turn_past_the_token_budget_runs_its_calls_then_stops() {
    let per_turn = |protocol| match protocol {
        Protocol::OllamaNdjson => 150u64, // prompt_eval_count 120 + eval_count 30
        Protocol::OpenaiSse => 14,        // prompt_tokens 10 + completion_tokens 4
        _ => 3,                           // output_tokens 3
    };
    let mut runner = proptest::test_runner::TestRunner::new(proptest_config());
    runner
        .run(&(protocol(), 0..700u64), |(protocol, budget)| {
            let max_turns = 40;
            // Two different calls in turn, so that the repetition guard has nothing to say.
            let turn = |tool| {
                [
                    Step::Done {
                        calls: vec![CallSpec {
                            tool,
                            with_id: true,
                            arguments_as_string: false,
                        }],
                        cut_off: false,
                    },
                    Step::ToolOk,
                ]
            };
            let steps = [turn(CallTool::RunTests), turn(CallTool::ReadFile)].concat();
            let script = Script {
                protocol,
                max_turns,
                deadline: None,
                token_budget: Some(budget),
                text_tool_calls: true,
                steps: steps.iter().cycle().take(2 * 40).cloned().collect(),
            };
            let outcome = run(&script).map_err(TestCaseError::fail)?;
            let crossing = u32::try_from(budget / per_turn(protocol) + 1).expect("small");
            let expected = if crossing < max_turns {
                (crossing, crossing, Some(StopReason::BudgetExceeded))
            } else {
                (max_turns, max_turns, Some(StopReason::MaxTurns))
            };
            let stop = outcome.final_state.stopped().map(|stop| stop.reason);
            prop_assert_eq!(
                (outcome.checker.requests(), outcome.checker.dispatches, stop),
                expected
            );
            prop_assert_eq!(
                outcome.final_state.tokens_used(),
                u64::from(expected.0) * per_turn(protocol)
            );
            Ok(())
        })
        .expect("the budget stops after the turn that crosses it");
}

/// The repetition guard, as a property: over any sequence of turns that each make one call from a
/// small set, a call is dispatched exactly when its streak of identical calls is below the warning
/// limit, and the session stops with `repeating` exactly when a streak reaches the stop limit.
#[test]
fn identical_calls_in_a_row_are_refused_then_stopped() {
    let limits = mend_core::RepeatLimits::default();
    let mut runner = proptest::test_runner::TestRunner::new(proptest_config());
    let tools = prop::collection::vec(
        prop_oneof![Just(CallTool::RunTests), Just(CallTool::ReadFile)],
        1..14,
    );
    runner
        .run(&tools, |tools| {
            let mut config = config(30);
            config.repeat_limits = limits;
            let (mut session, _) = start(config);
            let (mut streak, mut previous) = (0u32, None);
            for (turn, tool) in tools.iter().enumerate() {
                streak = if previous == Some(*tool) {
                    streak + 1
                } else {
                    1
                };
                previous = Some(*tool);
                let call =
                    support::call(Some(&format!("call_{turn}")), tool.name(), tool.arguments());
                let actions =
                    support::feed(&mut session, &[support::tool_calls(vec![call]), done()]);
                let dispatched = actions.iter().find_map(|action| match action {
                    Action::DispatchTool { call_id, .. } => Some(call_id.clone()),
                    _ => None,
                });
                prop_assert_eq!(
                    dispatched.is_some(),
                    streak < limits.warn_after,
                    "turn {} streak {}",
                    turn,
                    streak
                );
                if let Some(call_id) = dispatched {
                    let outcome = mend_core::ToolOutcome::Success {
                        value: json!({"ok": true}),
                    };
                    let _actions =
                        session.handled(Millis(0), Input::ToolFinished { call_id, outcome });
                }
                let stopped = session.stopped().map(|stop| stop.reason);
                if streak >= limits.stop_after {
                    prop_assert_eq!(stopped, Some(StopReason::Repeating));
                    return Ok(());
                }
                prop_assert_eq!(stopped, None);
            }
            Ok(())
        })
        .unwrap();
}

/// Per-turn context, as a property: with the hint on, every request ends with exactly the hint
/// its turn calls for, computed here from the results the session reported, and the hint never
/// enters the conversation.
#[test]
fn every_request_ends_with_the_hint_of_its_turn() {
    use mend_core::internal::{hint, Counts, ToolStats};
    use mend_core::{ContextConfig, ToolStatus};

    let mut runner = proptest::test_runner::TestRunner::new(proptest_config());
    runner
        .run(&script(), |script| {
            let context = ContextConfig {
                workdir: "sample-repo".to_owned(),
                os: "linux".to_owned(),
            };
            let mut config = config(script.max_turns);
            config.protocol = script.protocol;
            config.context = Some(context.clone());
            let (mut session, first) = start(config);
            let mut stats = ToolStats::default();
            let mut running = None;
            let mut serial = 0;
            let mut actions = first;
            for (now, step) in script.steps.iter().enumerate() {
                for action in &actions {
                    match action {
                        Action::Emit(Event::ToolResult { name, status, .. }) => {
                            let counts: &mut Counts =
                                stats.per_tool.entry(name.clone()).or_default();
                            match status {
                                ToolStatus::Ok => counts.ok += 1,
                                ToolStatus::Failed => counts.failed += 1,
                                ToolStatus::Refused => counts.refused += 1,
                                other => prop_assert!(
                                    false,
                                    "a status the model does not count: {other:?}"
                                ),
                            }
                        }
                        // A repair asks for a broken call again: its request ends with the ask.
                        Action::SendRequest { body, .. } if body.format.is_some() => {}
                        Action::SendRequest { turn, body, .. } => {
                            let expected = hint(&context, *turn, script.max_turns, &stats, &[]);
                            prop_assert_eq!(
                                body.messages.last().map(|m| Message::clone(m)),
                                Some(expected.clone())
                            );
                            prop_assert!(!session.conversation().iter().any(|m| **m == expected));
                        }
                        Action::DispatchTool { call_id, .. } => running = Some(call_id.clone()),
                        _ => {}
                    }
                }
                actions = Vec::new();
                for fed in resolve_for(script.protocol, step, running.as_ref(), &mut serial) {
                    actions.extend(session.handled(Millis(now as u64), fed.input));
                }
            }
            Ok(())
        })
        .unwrap();
}
