//! Calls written as text, as properties: a recovered call is treated exactly like the same call
//! made natively — the same validation, repetition guard, order of dispatch and results, and
//! stop — and a session that does not read text calls treats the text as the final answer.

use crate::support::rules::Checker;
use crate::support::steps::{resolve_for, CallSpec, CallTool, Step, TextForm};
use crate::support::Handled;
use crate::support::{config, start};
use mend_core::{Action, Event, Millis, Protocol, StopReason, ToolStatus};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Map, Value};

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/core-text-calls.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// One turn: its calls (offered tools only, so the text is unambiguous), the form they are
/// written in when written, and whether each run succeeds.
#[derive(Debug, Clone)]
struct Turn {
    calls: Vec<CallTool>,
    form: TextForm,
    answers: Vec<bool>,
}

fn turn() -> impl Strategy<Value = Turn> {
    let tool = prop_oneof![
        3 => Just(CallTool::ReadFile),
        2 => Just(CallTool::RunTests),
        1 => Just(CallTool::ReadFileMissingPath),
    ];
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
    (
        prop::collection::vec(tool, 1..4),
        form,
        prop::collection::vec(any::<bool>(), 4),
    )
        .prop_map(|(calls, form, answers)| {
            // A bare object is the whole text: one call per turn in that form.
            let calls = if form == TextForm::Bare {
                calls[..1].to_vec()
            } else {
                calls
            };
            Turn {
                calls,
                form,
                answers,
            }
        })
}

/// The steps of a session of `turns`, each turn's calls native or written into its text, with
/// prose before them; the session ends with a text answer.
fn steps(turns: &[Turn], written: bool) -> Vec<Step> {
    let mut steps = Vec::new();
    for turn in turns {
        let prose = if turn.form == TextForm::Bare {
            ""
        } else {
            "Let me check."
        };
        steps.push(Step::Chunk {
            thinking: String::new(),
            content: prose.to_owned(),
            calls: vec![],
        });
        let native: Vec<CallSpec> = turn
            .calls
            .iter()
            .map(|tool| CallSpec {
                tool: *tool,
                with_id: true,
                arguments_as_string: false,
            })
            .collect();
        if written {
            steps.extend(turn.calls.iter().map(|tool| Step::TextCall {
                form: turn.form,
                tool: *tool,
            }));
            steps.push(Step::Done {
                calls: vec![],
                cut_off: false,
            });
        } else {
            steps.push(Step::Done {
                calls: native,
                cut_off: false,
            });
        }
        steps.extend(
            turn.answers
                .iter()
                .map(|ok| if *ok { Step::ToolOk } else { Step::ToolFailed }),
        );
    }
    steps.push(Step::Chunk {
        thinking: String::new(),
        content: "Fixed.".to_owned(),
        calls: vec![],
    });
    steps.push(Step::Done {
        calls: vec![],
        cut_off: false,
    });
    steps
}

/// What a session did with the calls, without the ids and text that tell the two ways apart.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Dispatched(String, Map<String, Value>),
    Result(u32, String, ToolStatus, Value),
    Request(u32),
    Stop(StopReason, Option<String>),
}

/// Runs `steps` under the rules' checker and returns what the session did with the calls, and
/// how many calls it recovered from text.
fn run(protocol: Protocol, text_tool_calls: bool, steps: &[Step]) -> (Vec<Seen>, usize) {
    let mut config = config(12);
    config.protocol = protocol;
    config.text_tool_calls = text_tool_calls;
    let (mut session, first) = start(config);
    let mut checker = Checker::start(12, &first).expect("the opening keeps the rules");
    let (mut seen, mut recovered, mut serial) = (Vec::new(), 0, 0);
    for (now, step) in steps.iter().enumerate() {
        for fed in resolve_for(protocol, step, checker.running.as_ref(), &mut serial) {
            let before = session.clone();
            let at = Millis(now as u64);
            let actions = session.handled(at, fed.input.clone());
            checker
                .step(&before, &fed, at, &actions, &session)
                .unwrap_or_else(|err| panic!("{step:?}: {err}"));
            for action in actions {
                match action {
                    Action::DispatchTool {
                        name, arguments, ..
                    } => seen.push(Seen::Dispatched(name, arguments)),
                    Action::Emit(Event::ToolResult {
                        index,
                        name,
                        status,
                        result,
                        ..
                    }) => {
                        seen.push(Seen::Result(index, name, status, result));
                    }
                    Action::Emit(Event::RecoveredFromText { calls, .. }) => {
                        recovered += calls.len()
                    }
                    Action::SendRequest { turn, .. } => seen.push(Seen::Request(turn)),
                    Action::Stop(stop) => seen.push(Seen::Stop(stop.reason, stop.detail)),
                    _ => {}
                }
            }
        }
    }
    (seen, recovered)
}

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![
        Just(Protocol::OllamaNdjson),
        Just(Protocol::OpenaiSse),
        Just(Protocol::AnthropicSse)
    ]
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn a_call_written_as_text_is_treated_as_the_same_native_call(
        protocol in protocol(),
        turns in prop::collection::vec(turn(), 1..6),
    ) {
        let (native, none) = run(protocol, true, &steps(&turns, false));
        let (written, recovered) = run(protocol, true, &steps(&turns, true));
        prop_assert_eq!(none, 0);
        prop_assert_eq!(&written, &native);
        // Each turn that ran had every call recovered, and every call got its result.
        let results = written.iter().filter(|seen| matches!(seen, Seen::Result(..))).count();
        prop_assert_eq!(recovered, results);
    }

    #[test]
    fn without_text_calls_the_written_calls_are_the_final_answer(
        protocol in protocol(),
        turns in prop::collection::vec(turn(), 1..3),
    ) {
        let (seen, recovered) = run(protocol, false, &steps(&turns, true));
        prop_assert_eq!(recovered, 0);
        prop_assert_eq!(seen, vec![Seen::Stop(StopReason::AssistantFinished, None)]);
    }
}
