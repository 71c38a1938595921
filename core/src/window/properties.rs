//! The budget's running totals against a measure from scratch: every request of a generated
//! conversation (thinking, calls, results of any size, follow-up messages, a per-turn hint,
//! servers that count or do not) is sent with exactly the sizes, estimate and floor that
//! measuring the whole request again gives, and shortened exactly as a scan from the first
//! result would shorten it.
#![allow(clippy::unwrap_used)] // tests may panic on broken invariants

use super::*;

use std::boxed::Box;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::json;

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/core-window-budget.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// One turn of a generated conversation.
#[derive(Debug, Clone)]
struct Turn {
    text: usize,
    thinking: Option<usize>,
    results: Vec<usize>,
    /// A user message after the results (a follow-up in `mend chat`).
    user: bool,
    hint: Option<usize>,
    /// What the server counts for the request, in bytes a token, or no count.
    bytes_per_token: Option<u64>,
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        0usize..300,
        prop::option::of(0usize..2_000),
        prop::collection::vec(
            prop_oneof![3 => 0usize..2_000, 2 => 2_000usize..12_000],
            0..3,
        ),
        prop::bool::weighted(0.1),
        prop::option::of(0usize..400),
        prop::option::of(3u64..6),
    )
        .prop_map(
            |(text, thinking, results, user, hint, bytes_per_token)| Turn {
                text,
                thinking,
                results,
                user,
                hint,
                bytes_per_token,
            },
        )
}

fn assistant(turn: &Turn, index: usize) -> Arc<Message> {
    let Value::Object(arguments) = json!({"path": format!("f{index}.py"), "limit": index}) else {
        unreachable!("an object literal")
    };
    super::tests::assistant_reading(
        "t".repeat(turn.text),
        turn.thinking.map(|bytes| "r".repeat(bytes)),
        arguments,
    )
}

fn result(bytes: usize) -> Arc<Message> {
    let text = "line = \"é\"\n".repeat(bytes / 12);
    Arc::new(Message::tool_result(
        "read_file",
        Some("call_1"),
        json!({"path": "a.py", "text": text}).to_string(),
    ))
}

/// The old way, kept as the reference: every request scans the results from the first.
fn reference_shorten(
    conversation: &mut [Arc<Message>],
    fits: impl Fn(u64) -> bool,
    mut all: u64,
) -> Vec<Trimmed> {
    let assistants: Vec<usize> = (0..conversation.len())
        .filter(|at| conversation[*at].role == Role::Assistant)
        .collect();
    let (Some(first), Some(kept)) = (
        assistants.first(),
        assistants.len().checked_sub(2).map(|at| assistants[at]),
    ) else {
        return Vec::new();
    };
    let mut trimmed: Vec<Trimmed> = Vec::new();
    for keep in [TRIMMED_KEEP_BYTES, MIN_CUT_BYTES] {
        for (index, message) in conversation.iter_mut().enumerate().take(kept).skip(*first) {
            if fits(all) {
                return trimmed;
            }
            if message.role != Role::Tool {
                continue;
            }
            let Some(shortened) = shorten_message(message, keep) else {
                continue;
            };
            let (before, after) = (message.content.len(), shortened.content.len());
            all -= (before - after) as u64;
            match trimmed.iter_mut().find(|trim| trim.message == index as u32) {
                Some(earlier) => earlier.bytes_after = after as u64,
                None => trimmed.push(Trimmed {
                    message: index as u32,
                    name: "read_file".to_owned(),
                    bytes_before: before as u64,
                    bytes_after: after as u64,
                }),
            }
            *message = Arc::new(shortened);
        }
    }
    trimmed
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn each_request_is_measured_as_from_scratch(
        turns in prop::collection::vec(turn(), 1..24),
        tokens in 1_024u32..40_000,
        trim_percent in 20u8..=100,
    ) {
        let window = Window { tokens, trim_percent };
        let tools = [crate::context::todo_tool()];
        let tools_size = measure::tools_bytes(&tools);
        let mut budget = Budget::default();
        let mut conversation = vec![
            Arc::new(Message::system("You repair code.")),
            Arc::new(Message::user("Fix it.")),
        ];
        let mut reference = conversation.clone();
        for (index, turn) in turns.iter().enumerate() {
            for message in core::iter::once(assistant(turn, index))
                .chain(turn.results.iter().map(|bytes| result(*bytes)))
                .chain(turn.user.then(|| Arc::new(Message::user("And the docs."))))
            {
                conversation.push(Arc::clone(&message));
                reference.push(message);
            }
            let hint: Vec<Arc<Message>> =
                turn.hint.iter().map(|bytes| Arc::new(Message::user("h".repeat(*bytes)))).collect();
            let ratio = budget.bytes_per_token_milli();
            let counted = budget.counted.clone();
            let fitted = budget.fit(&window, 512, &mut conversation, &hint, &tools);

            let fixed = tools_size + Size::of(&hint).all;
            let limit = window.trim_above(512);
            let all = Size::of(&reference).all;
            let expected_trims = if tokens_of(fixed + all, ratio) > limit {
                reference_shorten(&mut reference, |all| tokens_of(fixed + all, ratio) <= limit, all)
            } else {
                Vec::new()
            };
            prop_assert_eq!(&conversation, &reference);
            let whole = Size::of(&conversation);
            let hint_size = Size::of(&hint);
            let estimate = tokens_of(tools_size + hint_size.all + whole.all, ratio);
            let Ok(fit) = fitted else {
                prop_assert!(estimate > u64::from(tokens));
                return Ok(());
            };
            prop_assert_eq!(&fit.trimmed, &expected_trims);
            let grew_from = counted.filter(|_| expected_trims.is_empty()).map(|counted| {
                let appended = Size::of(&conversation[counted.conversation_len..]).plain;
                ((counted.tokens - counted.tokens.min(counted.hint_bytes)) * 7 / 8, appended + hint_size.plain)
            });
            let expected = Sent {
                bytes: tools_size + hint_size.all + whole.all,
                plain_bytes: tools_size + hint_size.plain + whole.plain,
                estimate,
                conversation_len: conversation.len(),
                conversation_plain: whole.plain,
                hint_bytes: hint_size.plain,
                grew_from,
            };
            prop_assert_eq!(fit.estimate, estimate);
            prop_assert_eq!(budget.sent.as_ref(), Some(&expected));
            let count = turn.bytes_per_token.map(|per| expected.bytes / per);
            if budget.counted(&window, count, None).is_err() {
                return Ok(());
            }
        }
    }
}
