use super::*;

use crate::wire::{ToolCall, ToolCallFunction};
use serde_json::json;

fn assistant(text: &str) -> Arc<Message> {
    let Value::Object(arguments) = json!({"path": "a.py"}) else {
        unreachable!()
    };
    assistant_reading(text.to_owned(), None, arguments)
}

/// An assistant message that calls `read_file` with `arguments`.
pub(super) fn assistant_reading(
    content: String,
    thinking: Option<String>,
    arguments: serde_json::Map<String, Value>,
) -> Arc<Message> {
    Arc::new(Message {
        role: Role::Assistant,
        content,
        thinking,
        signed_thinking: Vec::new(),
        tool_calls: vec![ToolCall {
            id: None,
            function: ToolCallFunction {
                index: None,
                name: "read_file".to_owned(),
                arguments,
            },
        }],
        tool_name: None,
        tool_call_id: None,
    })
}

fn result(text: &str) -> Arc<Message> {
    Arc::new(Message::tool_result(
        "read_file",
        None,
        json!({"path": "a.py", "text": text}).to_string(),
    ))
}

/// System, task, then `turns` turns each reading a file of `bytes` bytes.
fn conversation(turns: usize, bytes: usize) -> Vec<Arc<Message>> {
    let mut messages = vec![
        Arc::new(Message::system("You repair code.")),
        Arc::new(Message::user("Fix it.")),
    ];
    for turn in 0..turns {
        messages.push(assistant(&format!("Reading, turn {turn}.")));
        messages.push(result(&"x = 1\n".repeat(bytes / 6)));
    }
    messages
}

#[test]
fn the_first_estimate_counts_three_bytes_a_token() {
    let messages = vec![
        Arc::new(Message::system("a".repeat(288))),
        Arc::new(Message::user("b".repeat(588))),
    ];
    // 288 + 588 + 2 × 12 bytes of template = 900 bytes = 300 tokens.
    assert_eq!(estimate_prompt_tokens(&messages, &[]), 300);
}

#[test]
fn the_oldest_results_are_shortened_first_and_the_last_two_turns_never() {
    let mut messages = conversation(5, 4000);
    let original = messages.clone();
    let mut budget = Budget::default();
    let fit = budget
        .fit(&Window::new(8192), 2048, &mut messages, &[], &[])
        .unwrap();
    // 5 results of 4.7 kB as JSON = 7.8 k tokens at 3 bytes a token: over 75 % of 8192 (6144).
    // Shortening the first two brings it under; the third stays, and so do the last two turns.
    let shortened: Vec<u32> = fit.trimmed.iter().map(|trim| trim.message).collect();
    assert_eq!(shortened, vec![3, 5]);
    for (index, (now, before)) in messages.iter().zip(&original).enumerate() {
        assert_eq!(
            now == before,
            !shortened.contains(&(index as u32)),
            "message {index}"
        );
    }
    let first = &messages[3].content;
    let value: Value = serde_json::from_str(first).expect("a shortened result is still JSON");
    let text = value["text"].as_str().unwrap();
    assert!(text.starts_with("x = 1\nx = 1\n"), "{text}");
    assert!(text.ends_with("x = 1\n"), "{text}");
    assert!(
        text.contains("bytes cut here by mend to fit the context window; call the tool again"),
        "{text}"
    );
    assert_eq!(
        fit.trimmed[0],
        Trimmed {
            message: 3,
            name: "read_file".to_owned(),
            bytes_before: original[3].content.len() as u64,
            bytes_after: first.len() as u64,
        }
    );
    assert!(fit.estimate <= 6144, "{}", fit.estimate);
}

#[test]
fn a_request_that_cannot_fit_is_refused_with_its_sizes() {
    // Two turns only: both are kept whole, and together they are over the whole window.
    let mut messages = conversation(2, 15_000);
    let error = Budget::default()
        .fit(&Window::new(8192), 2048, &mut messages, &[], &[])
        .err()
        .unwrap();
    assert_eq!(
        error,
        WindowError::TooLarge {
            estimate: 11739,
            window: 8192
        }
    );
    assert_eq!(
        error.to_string(),
        "the next request needs about 11739 tokens and the context window holds 8192; nothing \
         older is left to shorten (the system prompt, the task and the last two turns are kept \
         whole): raise num_ctx if the model and the machine allow it"
    );
}

/// Sends `messages` and has the server count `tokens` for them.
fn send_and_count(
    budget: &mut Budget,
    window: &Window,
    messages: &mut [Arc<Message>],
    tokens: u64,
) -> Result<Option<PartialCount>, WindowError> {
    budget.fit(window, 2048, messages, &[], &[])?;
    budget.counted(window, Some(tokens), None)
}

#[test]
fn a_count_that_fell_after_the_prompt_grew_is_a_cut_prompt() {
    let window = Window::new(8192);
    let mut budget = Budget::default();
    let mut messages = conversation(1, 3000);
    // About 3.3 kB at 4 bytes a token: an honest count.
    send_and_count(&mut budget, &window, &mut messages, 830).unwrap();
    messages.push(assistant("Again."));
    messages.push(result(&"y".repeat(14_000)));
    // The prompt grew by 14 kB (at least 2300 tokens) to 17.5 kB, which could not have fitted
    // 8192 tokens at 2 bytes a token: 900 means the front was dropped.
    let error = send_and_count(&mut budget, &window, &mut messages, 900).unwrap_err();
    assert_eq!(
        error,
        WindowError::PromptCut {
            read: 900,
            at_least: 3071,
            estimate: 4499,
            window: 8192
        }
    );
    assert_eq!(
        error.to_string(),
        "the server read 900 prompt tokens where the request held at least 3071 (mend estimated \
         4499): it dropped the front of the prompt to fit, so the model no longer saw the task; \
         mend assumed a window of 8192 tokens: set num_ctx (or --num-ctx) to what the server \
         really holds"
    );
}

#[test]
fn honest_counts_pass_and_calibrate_the_estimate() {
    let window = Window::new(16384);
    let mut budget = Budget::default();
    let mut messages = conversation(1, 3000);
    let first = budget.fit(&window, 2048, &mut messages, &[], &[]).unwrap();
    budget.counted(&window, Some(830), None).unwrap();
    let second = budget.fit(&window, 2048, &mut messages, &[], &[]).unwrap();
    // Calibrated: the count showed ~4.4 bytes a token; the estimate keeps a tenth in hand.
    assert_eq!(
        (first.estimate, second.estimate),
        (1211, 923),
        "{first:?} {second:?}",
        first = first.estimate,
        second = second.estimate
    );
    budget.counted(&window, Some(830), None).unwrap();
}

#[test]
fn a_count_of_the_whole_window_is_a_cut_prompt() {
    let window = Window::new(2048);
    let mut messages = conversation(1, 300);
    let error = send_and_count(&mut Budget::default(), &window, &mut messages, 2048).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the server read 2048 prompt tokens, its whole context window"),
        "{error}"
    );
}

#[test]
fn a_turn_without_a_count_checks_nothing() {
    let window = Window::new(2048);
    let mut messages = conversation(1, 300);
    assert_eq!(
        send_and_count(&mut Budget::default(), &window, &mut messages, 0),
        Ok(None)
    );
}

#[test]
fn a_large_result_is_capped_on_arrival_to_a_quarter_of_the_window() {
    let window = Window::new(4096);
    let value = json!({"path": "big.py", "text": "é".repeat(10_000)});
    let text = value.to_string();
    let (capped, shortened, before) = Budget::cap(&window, &value, &text).unwrap();
    let after = shortened.len();
    assert_eq!(before, text.len() as u64);
    assert_eq!(shortened, capped.to_string());
    assert!(after <= 3072, "{after}");
    assert_eq!(capped["path"], "big.py");
    assert!(capped["text"].as_str().unwrap().starts_with("éé"));
    let small = json!({"text": "small"});
    assert_eq!(Budget::cap(&window, &small, &small.to_string()), None);
}

#[test]
fn server_words_for_a_prompt_over_the_window_are_recognised() {
    for message in [
        "the input length exceeds the context length",
        "prompt too long; exceeded max context length by 12 tokens",
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "the request exceeds the available context size, try increasing it",
    ] {
        assert!(is_context_error(message), "{message}");
    }
    assert!(!is_context_error("model 'x' not found"));
}

#[test]
fn a_cut_keeps_characters_whole() {
    let cut = cut_middle(&"é✓".repeat(100), 301);
    assert!(cut.starts_with("é✓"));
    assert!(cut.ends_with("é✓"));
    assert!(cut.contains("bytes cut here by mend"));
}

#[test]
fn a_long_run_in_a_small_window_shortens_old_results_a_second_time() {
    let mut messages = conversation(24, 4000);
    let fit = Budget::default()
        .fit(&Window::new(8192), 2048, &mut messages, &[], &[])
        .unwrap();
    // 22 results are older than the last two turns: each is shortened to a kilobyte, and from the
    // oldest on once more, until the request fits; each is one shortening.
    let messages: Vec<u32> = fit.trimmed.iter().map(|trim| trim.message).collect();
    assert_eq!(
        messages,
        (0..22).map(|turn| 3 + 2 * turn).collect::<Vec<u32>>()
    );
    assert!(fit.trimmed[0].bytes_after < 600, "{:?}", fit.trimmed[0]);
    assert!(fit.trimmed[21].bytes_after > 600, "{:?}", fit.trimmed[21]);
    assert!(fit.estimate <= 6144, "{}", fit.estimate);
}

#[test]
fn escaped_lengths_are_serde_json_s() {
    for text in [
        "plain",
        "a \"quoted\" \\ path\n\ttab\r",
        "\u{1}\u{8}\u{c}\u{1f} é✓",
        // Longer than a word, with escapes at every offset within one.
        &(0..=127u8).map(char::from).collect::<String>().repeat(3),
        &"abcdefgh\"ijklmno\\pq\n✓é".repeat(9),
    ] {
        assert_eq!(
            escaped_len(text) + 2,
            Value::String(text.to_owned()).to_string().len(),
            "{text:?}"
        );
    }
}

#[test]
fn a_low_count_for_a_request_that_fitted_is_a_count_of_new_tokens() {
    // 3.3 kB against 16384 tokens: at 2 bytes a token it is 1.7 k at most; nothing was cut.
    let window = Window::new(16384);
    let mut budget = Budget::default();
    let mut messages = conversation(1, 3000);
    let partial = send_and_count(&mut budget, &window, &mut messages, 100);
    assert_eq!(
        (partial, budget.observed_milli, budget.counted.clone()),
        (
            Ok(Some(PartialCount {
                tokens: 100,
                cached: 0,
                at_least: 605
            })),
            None,
            None
        )
    );
    // The next turn is judged on its own bytes again, and an honest count calibrates.
    assert_eq!(
        send_and_count(&mut budget, &window, &mut messages, 830),
        Ok(None)
    );
    assert!(budget.observed_milli.is_some());
}

#[test]
fn cached_tokens_given_beside_a_low_count_make_the_whole_prompt() {
    let window = Window::new(16384);
    let mut budget = Budget::default();
    let mut messages = conversation(1, 3000);
    budget.fit(&window, 2048, &mut messages, &[], &[]).unwrap();
    // llama-server's and older Ollama's split: 30 processed anew, 800 from the cache.
    assert_eq!(budget.counted(&window, Some(30), Some(800)), Ok(None));
    assert_eq!(
        budget.counted.as_ref().map(|counted| counted.tokens),
        Some(830)
    );
    // A count that already holds its cached part is read as it is.
    budget.fit(&window, 2048, &mut messages, &[], &[]).unwrap();
    assert_eq!(budget.counted(&window, Some(830), Some(800)), Ok(None));
    assert_eq!(
        budget.counted.as_ref().map(|counted| counted.tokens),
        Some(830)
    );
}

#[test]
fn a_count_a_truncating_server_keeps_is_a_cut_even_when_the_request_might_have_fitted() {
    // 2.5 kB that a 4096-token window holds; a count of 2100 (over half the window) below the
    // floor is what a server keeps of a prompt it cut, not a count of new tokens.
    let window = Window::new(4096);
    let mut budget = Budget::default();
    let mut messages = conversation(1, 2000);
    budget.fit(&window, 1024, &mut messages, &[], &[]).unwrap();
    budget.sent.as_mut().unwrap().plain_bytes = 14_000;
    let error = budget.counted(&window, Some(2100), None).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the server read 2100 prompt tokens where the request held at least 2333"),
        "{error}"
    );
}
