//! `mend conformance DIR`: every recorded Ollama response in `DIR/ollama` fed through mend's
//! decoder and session, and judged against what the server meant (docs/design.md, "The wire").
//!
//! The judgement comes from an independent reading of the same bytes with plain
//! `serde_json::Value`: the joined `content` and `thinking`, every element of every
//! `tool_calls` array, the last `done_reason`, and for error bodies the `error` text. The session
//! must agree on all of it.

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::{
    Action, Config, Event, Input, Millis, Protocol, Session, StopReason, StreamLine, ToolOutcome,
    ToolSpec, TransportError, Window,
};
use serde_json::{json, Value};

use crate::error::{exit, MendError};

/// The window the captures are read in: the most `mend run` assumes without a task file's.
const CAPTURE_WINDOW: u32 = 16384;

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

/// The capture folders and the protocol of their streams.
const FOLDERS: [(&str, &str, Protocol); 2] = [
    ("ollama", "ndjson", Protocol::OllamaNdjson),
    ("openai", "sse", Protocol::OpenaiSse),
];

/// `mend conformance DIR`: feeds every recorded response under `DIR` through mend's decoder and session and checks what they made of it; non-zero exit on any disagreement.
pub fn conformance(dir: &Utf8Path) -> Result<u8, MendError> {
    let mut files: Vec<(Utf8PathBuf, Protocol)> = Vec::new();
    for (name, extension, protocol) in FOLDERS {
        let folder = dir.join(name);
        if !folder.is_dir() {
            continue;
        }
        let entries = folder.read_dir_utf8().map_err(|err| {
            MendError::usage(format!(
                "cannot read the captures in {folder}: {err} (set CAPTURES=DIR)"
            ))
        })?;
        let mut found: Vec<Utf8PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path().to_owned())
            .filter(|path| path.extension() == Some(extension) || is_error_body(path))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|path| (path, protocol)));
    }
    if files.is_empty() {
        return Err(MendError::usage(format!(
            "no captures in {dir}/ollama or {dir}/openai (set CAPTURES=DIR)"
        )));
    }
    let mut failures = 0;
    for (path, protocol) in &files {
        let name = path.strip_prefix(dir).unwrap_or(path);
        let bytes = fs::read(path)
            .map_err(|err| MendError::harness(format!("cannot read {path}: {err}")))?;
        let (verdict, summary) = match check(path, *protocol, &bytes) {
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

fn check(path: &Utf8Path, protocol: Protocol, bytes: &[u8]) -> Result<String, String> {
    let meant = match (is_error_body(path), protocol) {
        (true, _) => error_meaning(bytes)?,
        (false, Protocol::OllamaNdjson) => stream_meaning(bytes)?,
        (false, _) => sse_meaning(bytes)?,
    };
    let got = through_mend(path, protocol, bytes, &meant)?;
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

impl Meaning {
    /// Nothing read yet: a turn that never completes is incomplete.
    fn unfinished() -> Meaning {
        Meaning {
            content: String::new(),
            thinking: String::new(),
            calls: vec![],
            stop: StopReason::IncompleteModelTurn,
            error: None,
        }
    }
}

fn stream_meaning(bytes: &[u8]) -> Result<Meaning, String> {
    let mut meaning = Meaning::unfinished();
    for line in bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
    {
        let chunk: Value = serde_json::from_slice(line)
            .map_err(|err| format!("the capture itself is not NDJSON: {err}"))?;
        if let Some(error) = chunk["error"].as_str() {
            // A mid-stream error ends the turn; nothing it carried runs.
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
    // Ollama's native errors are a string; OpenAI-style ones an object with a `message`.
    let error = body["error"]
        .as_str()
        .or_else(|| body["error"]["message"].as_str())
        .ok_or("the error body has no `error` text")?;
    // A prompt over the server's window is its own stop: the fix is the window, not the server.
    let stop = if error.to_ascii_lowercase().contains("context length") {
        StopReason::ContextExceeded
    } else {
        StopReason::ModelError
    };
    Ok(Meaning {
        stop,
        error: Some(error.to_owned()),
        ..Meaning::unfinished()
    })
}

/// Feeds the capture to a session that offers every tool the capture calls (accepting any
/// arguments), answers each dispatched call, and reads back what the session assembled.
fn through_mend(
    path: &Utf8Path,
    protocol: Protocol,
    bytes: &[u8],
    meant: &Meaning,
) -> Result<Meaning, String> {
    let mut config = Config {
        max_turns: 1,
        protocol,
        // The window `mend run` keeps by default: each capture's count is judged against it.
        window: Some(Window::new(CAPTURE_WINDOW)),
        ..Config::new("capture", "system", "task", tools_named(&meant.calls))
    };
    config.options.num_ctx = CAPTURE_WINDOW;
    let mut session = Session::new(config).map_err(|err| err.to_string())?;
    let actions = feed(&mut session, path, bytes);
    // The stop is read from the session once every action is in.
    let mut streamed = Meaning::unfinished();
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
    same_as_assembled(&session, &streamed)?;
    if matches!(
        stop.reason,
        StopReason::ModelError | StopReason::ContextExceeded
    ) {
        // The stop must end with the server's own words.
        let detail = stop.detail.unwrap_or_default();
        streamed.error = match &meant.error {
            Some(message) if detail.ends_with(message.as_str()) => Some(message.clone()),
            _ => Some(detail),
        };
    }
    Ok(streamed)
}

/// A schema for each tool the capture calls, taking any arguments: the capture's calls are
/// checked for arriving whole, not for their arguments.
fn tools_named(names: &[String]) -> Vec<ToolSpec> {
    let mut tools: Vec<ToolSpec> = Vec::new();
    for name in names {
        if !tools.iter().any(|tool| tool.name() == name) {
            let mut spec = ToolSpec::function(name, "a tool of the capture", &[], &[]);
            spec.function.parameters.additional_properties = None;
            tools.push(spec);
        }
    }
    tools
}

/// The capture's bytes as the session's inputs (an error body as the HTTP failure it was),
/// each dispatched call answered in turn; every action, in order.
fn feed(session: &mut Session, path: &Utf8Path, bytes: &[u8]) -> Vec<Action> {
    let mut actions: Vec<Action> = session.drain_actions().collect();
    if is_error_body(path) {
        let error = TransportError::Http {
            status: 400,
            body: String::from_utf8_lossy(bytes).into_owned(),
        };
        session.handle(Millis(0), Input::TransportFailed { error });
    } else {
        for line in bytes.split(|byte| *byte == b'\n') {
            if !session.is_streaming() {
                break;
            }
            let line = StreamLine::new(line.to_vec(), Millis(0));
            session.handle(Millis(0), Input::StreamLine(line));
        }
        if session.is_streaming() {
            session.handle(Millis(0), Input::StreamEnd);
        }
    }
    actions.extend(session.drain_actions());
    let mut seen = 0;
    while let Some(action) = actions.get(seen).cloned() {
        seen += 1;
        if let Action::DispatchTool { call_id, .. } = action {
            let outcome = ToolOutcome::Success { value: json!({}) };
            session.handle(Millis(0), Input::ToolFinished { call_id, outcome });
            actions.extend(session.drain_actions());
        }
    }
    actions
}

/// A completed turn's assembled message must say exactly what was streamed and dispatched.
fn same_as_assembled(session: &Session, streamed: &Meaning) -> Result<(), String> {
    let Some(assistant) = session.conversation().get(2) else {
        return Ok(());
    };
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
    let seen = (
        streamed.content.as_str(),
        streamed.thinking.as_str(),
        &streamed.calls,
    );
    if assembled != seen {
        return Err(format!(
            "the assembled message {assistant:?} differs from the stream"
        ));
    }
    Ok(())
}

/// An SSE capture read by the letter of the OpenAI wire rules (docs/design.md): events split at
/// blank lines, `data:` lines joined, argument fragments joined per call (a new id at a used index
/// is a new call), the turn complete only at `[DONE]`.
fn sse_meaning(bytes: &[u8]) -> Result<Meaning, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|err| format!("the capture is not UTF-8: {err}"))?
        .replace("\r\n", "\n");
    let mut meaning = Meaning::unfinished();
    let mut calls: Vec<(u64, Option<String>, String)> = Vec::new();
    let mut finish: Option<String> = None;
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        if data.is_empty() {
            continue;
        }
        let data = data.join("\n");
        if data.trim() == "[DONE]" {
            meaning.stop = match finish.as_deref() {
                Some("length") => StopReason::IncompleteModelTurn,
                _ if !calls.is_empty() => StopReason::MaxTurns,
                _ if meaning.content.trim().is_empty() => StopReason::EmptyResponse,
                _ => StopReason::AssistantFinished,
            };
            if finish.as_deref() != Some("length") {
                meaning.calls = calls.iter().map(|(_, _, name)| name.clone()).collect();
            }
            return Ok(meaning);
        }
        let chunk: Value = serde_json::from_str(&data)
            .map_err(|err| format!("the capture itself is not SSE of JSON: {err}"))?;
        let delta = &chunk["choices"][0]["delta"];
        meaning
            .content
            .push_str(delta["content"].as_str().unwrap_or(""));
        meaning.thinking.push_str(
            delta["reasoning"]
                .as_str()
                .or_else(|| delta["reasoning_content"].as_str())
                .unwrap_or(""),
        );
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = fragment["index"].as_u64().unwrap_or(0);
            let id = fragment["id"].as_str().map(str::to_owned);
            let name = fragment["function"]["name"].as_str().unwrap_or("");
            match calls.iter_mut().rev().find(|(at, held, _)| {
                *at == index && (id.is_none() || held.is_none() || *held == id)
            }) {
                Some(call) => call.2.push_str(name),
                None => calls.push((index, id, name.to_owned())),
            }
        }
        if let Some(reason) = chunk["choices"][0]["finish_reason"].as_str() {
            finish = Some(reason.to_owned());
        }
    }
    // No [DONE]: the turn never completed, and none of its calls may run.
    Ok(meaning)
}
