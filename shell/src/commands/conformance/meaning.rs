//! What a capture means, read without mend's decoder: plain `serde_json::Value`s and the wire
//! rules by the letter (docs/design.md, "The wire").

use mend_core::StopReason;
use serde_json::{json, Value};

use super::error::CaptureError;

/// What a capture means, read without mend's decoder.
#[derive(Debug, PartialEq)]
pub(super) struct Meaning {
    pub content: String,
    pub thinking: String,
    /// The calls that run, in order.
    pub calls: Vec<String>,
    pub stop: StopReason,
    /// For an error body: the server's message, which the stop must carry.
    pub error: Option<String>,
}

impl Meaning {
    /// Nothing read yet: a turn that never completes is incomplete.
    pub(super) fn unfinished() -> Meaning {
        Meaning {
            content: String::new(),
            thinking: String::new(),
            calls: vec![],
            stop: StopReason::IncompleteModelTurn,
            error: None,
        }
    }
}

/// An Ollama NDJSON capture, line by line.
pub(super) fn stream_meaning(bytes: &[u8]) -> Result<Meaning, CaptureError> {
    let mut meaning = Meaning::unfinished();
    for line in bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
    {
        let chunk: Value = serde_json::from_slice(line).map_err(CaptureError::NotNdjson)?;
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

/// An error body: Ollama's `error` string or OpenAI's `error.message`.
pub(super) fn error_meaning(bytes: &[u8]) -> Result<Meaning, CaptureError> {
    let body: Value = serde_json::from_slice(bytes).map_err(CaptureError::ErrorBodyNotJson)?;
    // Ollama's native errors are a string; OpenAI-style ones an object with a `message`.
    let error = body["error"]
        .as_str()
        .or_else(|| body["error"]["message"].as_str())
        .ok_or(CaptureError::ErrorBodyWithoutText)?;
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

/// An SSE capture read by the letter of the OpenAI wire rules (docs/design.md): events split at
/// blank lines, `data:` lines joined, argument fragments joined per call (a new id at a used index
/// is a new call), the turn complete only at `[DONE]`.
pub(super) fn sse_meaning(bytes: &[u8]) -> Result<Meaning, CaptureError> {
    let text = std::str::from_utf8(bytes)
        .map_err(CaptureError::NotUtf8)?
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
        let chunk: Value = serde_json::from_str(&data).map_err(CaptureError::NotSseJson)?;
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
