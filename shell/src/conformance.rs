//! `mend conformance DIR`: every recorded Ollama response in `DIR/ollama` fed through mend's
//! decoder and session, and judged against what the server meant (WIRE.md).
//!
//! The judgement comes from an independent reading of the same bytes with plain
//! `serde_json::Value`: the joined `content` and `thinking`, every element of every
//! `tool_calls` array, the last `done_reason`, and for error bodies the `error` text. The session
//! must agree on all of it.

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::{
    Action, Config, Event, Input, Millis, Session, StopReason, ToolOutcome, ToolSpec,
    TransportError,
};
use serde_json::{json, Value};

use crate::error::{exit, MendError};

/// What a capture means, read without mend's decoder.
#[derive(Debug, PartialEq)]
struct Meaning {
    content: String,
    thinking: String,
    /// The calls that run, in order.
    calls: Vec<String>,
    stop: StopReason,
    /// For an error body: the server's message, which the stop must carry.
    error: Option<String>,
}

pub fn conformance(dir: &Utf8Path) -> Result<u8, MendError> {
    let folder = dir.join("ollama");
    let mut files: Vec<Utf8PathBuf> = folder
        .read_dir_utf8()
        .map_err(|err| {
            MendError::usage(format!(
                "cannot read the captures in {folder}: {err} (set CAPTURES=DIR)"
            ))
        })?
        .filter_map(Result::ok)
        .map(|entry| entry.path().to_owned())
        .filter(|path| path.extension() == Some("ndjson") || is_error_body(path))
        .collect();
    files.sort();
    let mut failures = 0;
    for path in &files {
        let name = path.file_name().unwrap_or_default();
        let bytes = fs::read(path)
            .map_err(|err| MendError::harness(format!("cannot read {path}: {err}")))?;
        let (verdict, summary) = match check(path, &bytes) {
            Ok(summary) => ("ok  ", summary),
            Err(problem) => {
                failures += 1;
                ("FAIL", problem)
            }
        };
        println!("{verdict} {name}: {summary}");
    }
    println!(
        "{} captures, {} as the server meant, {failures} not",
        files.len(),
        files.len() - failures
    );
    Ok(if failures == 0 && !files.is_empty() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}

/// Error bodies are `.json` files that are not request bodies (README of the captures).
fn is_error_body(path: &Utf8Path) -> bool {
    path.extension() == Some("json") && !path.as_str().ends_with(".request.json")
}

fn check(path: &Utf8Path, bytes: &[u8]) -> Result<String, String> {
    let meant = if is_error_body(path) {
        error_meaning(bytes)?
    } else {
        stream_meaning(bytes)?
    };
    let got = through_mend(path, bytes, &meant)?;
    let summary = format!(
        "content {} chars, thinking {} chars, calls [{}], stop {}",
        got.content.chars().count(),
        got.thinking.chars().count(),
        got.calls.join(", "),
        got.stop
    );
    if got == meant {
        Ok(summary)
    } else {
        Err(format!(
            "{summary}\n     mend: {got:?}\n     meant: {meant:?}"
        ))
    }
}

fn stream_meaning(bytes: &[u8]) -> Result<Meaning, String> {
    let mut meaning = Meaning {
        content: String::new(),
        thinking: String::new(),
        calls: vec![],
        stop: StopReason::IncompleteModelTurn,
        error: None,
    };
    for line in bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
    {
        let chunk: Value = serde_json::from_slice(line)
            .map_err(|err| format!("the capture itself is not NDJSON: {err}"))?;
        if let Some(error) = chunk["error"].as_str() {
            // A mid-stream error ends the turn; nothing it carried runs (WIRE.md §4).
            meaning.calls.clear();
            meaning.stop = StopReason::ModelError;
            meaning.error = Some(error.to_owned());
            break;
        }
        let message = &chunk["message"];
        meaning
            .content
            .push_str(message["content"].as_str().unwrap_or(""));
        meaning
            .thinking
            .push_str(message["thinking"].as_str().unwrap_or(""));
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            meaning
                .calls
                .push(call["function"]["name"].as_str().unwrap_or("").to_owned());
        }
        if chunk["done"] == json!(true) {
            meaning.stop = match chunk["done_reason"].as_str() {
                Some("length") => {
                    // A cut-off turn runs none of its calls.
                    meaning.calls.clear();
                    StopReason::IncompleteModelTurn
                }
                // One turn, one request: a turn with calls runs them and then spends the budget.
                _ if !meaning.calls.is_empty() => StopReason::MaxTurns,
                _ if meaning.content.trim().is_empty() => StopReason::EmptyResponse,
                _ => StopReason::AssistantFinished,
            };
            break;
        }
    }
    Ok(meaning)
}

fn error_meaning(bytes: &[u8]) -> Result<Meaning, String> {
    let body: Value = serde_json::from_slice(bytes)
        .map_err(|err| format!("the error body is not JSON: {err}"))?;
    let error = body["error"]
        .as_str()
        .ok_or("the error body has no `error` text")?;
    Ok(Meaning {
        content: String::new(),
        thinking: String::new(),
        calls: vec![],
        stop: StopReason::ModelError,
        error: Some(error.to_owned()),
    })
}

/// Feeds the capture to a session that offers every tool the capture calls (accepting any
/// arguments), answers each dispatched call, and reads back what the session assembled.
fn through_mend(path: &Utf8Path, bytes: &[u8], meant: &Meaning) -> Result<Meaning, String> {
    let mut tools: Vec<ToolSpec> = Vec::new();
    for name in &meant.calls {
        if !tools.iter().any(|tool| tool.name() == name) {
            let mut spec = ToolSpec::function(name, "a tool of the capture", &[], &[]);
            spec.function.parameters.additional_properties = None;
            tools.push(spec);
        }
    }
    let config = Config {
        max_turns: 1,
        ..Config::new("capture", "system", "task", tools)
    };
    let (mut session, _) = Session::new(config).map_err(|err| err.to_string())?;
    let mut actions: Vec<Action> = Vec::new();
    if is_error_body(path) {
        let error = TransportError::Http {
            status: 400,
            body: String::from_utf8_lossy(bytes).into_owned(),
        };
        actions.extend(session.handle(Millis(0), Input::TransportFailed { error }));
    } else {
        for line in bytes.split(|byte| *byte == b'\n') {
            if !session.is_streaming() {
                break;
            }
            actions.extend(session.handle(
                Millis(0),
                Input::StreamLine {
                    line: line.to_vec(),
                },
            ));
        }
        if session.is_streaming() {
            actions.extend(session.handle(Millis(0), Input::StreamEnd));
        }
    }
    // Answer each dispatched call in turn, keeping every action in order.
    let mut seen = 0;
    while let Some(action) = actions.get(seen).cloned() {
        seen += 1;
        if let Action::DispatchTool { call_id, .. } = action {
            let outcome = ToolOutcome::Success { value: json!({}) };
            actions.extend(session.handle(Millis(0), Input::ToolFinished { call_id, outcome }));
        }
    }
    let mut streamed = Meaning {
        content: String::new(),
        thinking: String::new(),
        calls: vec![],
        stop: StopReason::ModelError,
        error: None,
    };
    for action in &actions {
        match action {
            Action::Emit(Event::TextDelta { text, .. }) => streamed.content.push_str(text),
            Action::Emit(Event::ThinkingDelta { text, .. }) => streamed.thinking.push_str(text),
            Action::DispatchTool { name, .. } => streamed.calls.push(name.clone()),
            _ => {}
        }
    }
    let stop = session.stopped().ok_or("the session did not stop")?.clone();
    streamed.stop = stop.reason;
    // A completed turn's assembled message must say exactly what was streamed and dispatched.
    if let Some(assistant) = session.conversation().get(2) {
        let assembled_calls: Vec<String> = assistant
            .tool_calls
            .iter()
            .map(|call| call.function.name.clone())
            .collect();
        let assembled = (
            assistant.content.as_str(),
            assistant.thinking.as_deref().unwrap_or(""),
            &assembled_calls,
        );
        if assembled
            != (
                streamed.content.as_str(),
                streamed.thinking.as_str(),
                &streamed.calls,
            )
        {
            return Err(format!(
                "the assembled message {assistant:?} differs from the stream"
            ));
        }
    }
    if stop.reason == StopReason::ModelError {
        // The stop must end with the server's own words.
        let detail = stop.detail.unwrap_or_default();
        streamed.error = match &meant.error {
            Some(message) if detail.ends_with(message.as_str()) => Some(message.clone()),
            _ => Some(detail),
        };
    }
    Ok(streamed)
}
