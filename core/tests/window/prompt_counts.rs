//! A prompt count as each server gives it, read against the window: cached tokens added where
//! the server counts them apart, a count of new tokens only noted, and a cut still a stop.

use crate::support::config;
use crate::support::raw;
use crate::support::Handled;
use mend_core::{Action, Config, Event, Input, Millis, Protocol, Session, StopReason, Window};
use serde_json::{json, Value};

/// A first turn in a window of 8192 tokens: the request is about 1.5 kB, so nothing can be cut.
fn windowed(protocol: Protocol) -> Config {
    let mut config = config(4);
    config.protocol = protocol;
    config.options.num_ctx = 8192;
    config.window = Some(Window::new(8192));
    config
}

/// Feeds a whole first turn that answers in text, and returns the events after the last line.
fn first_turn(protocol: Protocol, lines: &[String]) -> (Vec<Event>, Option<StopReason>) {
    let mut session = Session::new(windowed(protocol)).unwrap();
    session.drain_actions().for_each(drop);
    let mut actions = Vec::new();
    for line in lines {
        actions = session.handled(Millis(0), raw(line.as_bytes()));
    }
    actions.extend(session.handled(Millis(0), Input::StreamEnd));
    let events = actions
        .into_iter()
        .filter_map(|action| match action {
            Action::Emit(event @ Event::PromptCountPartial { .. }) => Some(event),
            _ => None,
        })
        .collect();
    (events, session.stopped().map(|stop| stop.reason))
}

fn ollama(counts: Value) -> Vec<String> {
    let mut done = json!({"model": "m", "message": {"role": "assistant", "content": "Done."}, "done": true, "done_reason": "stop", "eval_count": 3});
    for (key, value) in counts.as_object().unwrap() {
        done[key] = value.clone();
    }
    vec![done.to_string()]
}

fn openai(usage: Value, timings: Option<Value>) -> Vec<String> {
    let mut last = json!({"choices": [], "usage": usage});
    if let Some(timings) = timings {
        last["timings"] = timings;
    }
    vec![
        r#"data: {"choices":[{"delta":{"content":"Done."},"finish_reason":"stop"}]}"#.to_owned(),
        String::new(),
        format!("data: {last}"),
        String::new(),
        "data: [DONE]".to_owned(),
        String::new(),
    ]
}

fn anthropic(usage: Value) -> Vec<String> {
    let events = [
        json!({"type": "message_start", "message": {"usage": usage}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Done."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    events
        .iter()
        .flat_map(|event| [format!("data: {event}"), String::new()])
        .collect()
}

fn partial(tokens: u64, cached: u64, at_least: u64) -> Vec<Event> {
    vec![Event::PromptCountPartial {
        turn: 1,
        tokens,
        cached,
        at_least,
    }]
}

#[test]
fn each_servers_count_of_a_cached_prompt_is_read_as_it_means() {
    let finished = Some(StopReason::AssistantFinished);
    for (name, protocol, lines, expected) in cached_prompt_cases(first_request_floor()) {
        assert_eq!(first_turn(protocol, &lines), (expected, finished), "{name}");
    }
}

/// What the first request holds at least: its plain bytes at 6 bytes a token.
fn first_request_floor() -> u64 {
    let (events, _) = first_turn(
        Protocol::OllamaNdjson,
        &ollama(json!({"prompt_eval_count": 1})),
    );
    let Some(Event::PromptCountPartial { at_least, .. }) = events.first() else {
        panic!("{events:?}")
    };
    *at_least
}

/// Each server's way of counting a prompt partly served from its cache, named, with the lines
/// of a first turn that says so and the events the session must make of it.
fn cached_prompt_cases(floor: u64) -> Vec<(&'static str, Protocol, Vec<String>, Vec<Event>)> {
    let whole = floor * 3 / 2;
    vec![
        // Ollama since the cached count: the count holds the cached tokens.
        (
            "ollama, whole count with cached",
            Protocol::OllamaNdjson,
            ollama(json!({"prompt_eval_count": whole, "prompt_eval_cached_count": whole - 20})),
            vec![],
        ),
        // Ollama 0.30 on the llama-server path: only the new tokens, no cached count.
        (
            "ollama 0.30, new tokens only",
            Protocol::OllamaNdjson,
            ollama(json!({"prompt_eval_count": 20})),
            partial(20, 0, floor),
        ),
        // Ollama that counts the new tokens beside the cached ones.
        (
            "ollama, new beside cached",
            Protocol::OllamaNdjson,
            ollama(json!({"prompt_eval_count": 20, "prompt_eval_cached_count": whole - 20})),
            vec![],
        ),
        // Older Ollama: a cache hit leaves the count out; nothing to judge.
        (
            "ollama, count left out",
            Protocol::OllamaNdjson,
            ollama(json!({})),
            vec![],
        ),
        // OpenAI-compatible: prompt_tokens holds the cached ones.
        (
            "openai, whole with cached",
            Protocol::OpenaiSse,
            openai(
                json!({"prompt_tokens": whole, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": whole - 20}}),
                None,
            ),
            vec![],
        ),
        // llama-server: timings split the prompt into processed and cached.
        (
            "llama-server timings",
            Protocol::OpenaiSse,
            openai(
                json!({"prompt_tokens": 20, "completion_tokens": 3}),
                Some(json!({"prompt_n": 20, "cache_n": whole - 20})),
            ),
            vec![],
        ),
        (
            "llama-server, no cache figure",
            Protocol::OpenaiSse,
            openai(
                json!({"prompt_tokens": 20, "completion_tokens": 3}),
                Some(json!({"prompt_n": 20})),
            ),
            partial(20, 0, floor),
        ),
        // Anthropic: input_tokens leaves out what was read from or written to the cache.
        (
            "anthropic cache read",
            Protocol::AnthropicSse,
            anthropic(
                json!({"input_tokens": 20, "cache_read_input_tokens": whole - 40, "cache_creation_input_tokens": 20}),
            ),
            vec![],
        ),
        (
            "anthropic, new tokens only",
            Protocol::AnthropicSse,
            anthropic(json!({"input_tokens": 20})),
            partial(20, 0, floor),
        ),
    ]
}

#[test]
fn a_repeated_first_prompt_served_from_the_cache_runs_on() {
    // The second attempt of an eval task sends the first prompt again; a server that counts only
    // what it processed anew reports a handful of tokens.
    let request = |config: Config| {
        let (_, actions) = crate::support::taken(Session::new(config).unwrap());
        actions.into_iter().find_map(|action| match action {
            Action::SendRequest { body, .. } => Some(body),
            _ => None,
        })
    };
    let config = windowed(Protocol::OllamaNdjson);
    assert_eq!(request(config.clone()), request(config.clone()));
    let (events, stop) = first_turn(
        Protocol::OllamaNdjson,
        &ollama(json!({"prompt_eval_count": 7})),
    );
    let noted: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|event| match event {
            Event::PromptCountPartial { tokens, cached, .. } => Some((*tokens, *cached)),
            _ => None,
        })
        .collect();
    assert_eq!(
        (noted, stop),
        (vec![(7, 0)], Some(StopReason::AssistantFinished))
    );
}

#[test]
fn a_count_of_the_whole_window_is_still_a_cut() {
    let (events, stop) = first_turn(
        Protocol::OllamaNdjson,
        &ollama(json!({"prompt_eval_count": 8192})),
    );
    assert_eq!((events, stop), (vec![], Some(StopReason::ContextExceeded)));
}
