//! The conversation as the model saw it: each turn's thinking (folded), text and calls, decoded
//! from the recorded lines with the same protocol the run used, and each call's result.

use mend_core::decode::{CallArguments, LineDecoded, ModelCall};
use mend_core::{Protocol, ToolStatus};
use serde_json::Value;

use super::html::Html;
use super::view::SessionView;
use crate::record::{RecordedCall, RecordedTurn};

/// What one turn streamed, joined.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct TurnContent {
    pub thinking: String,
    pub text: String,
    pub calls: Vec<ModelCall>,
    pub done_reason: Option<String>,
    /// The figures of the `done` chunk.
    pub metrics: Option<mend_core::TurnMetrics>,
    /// A server error line, or a line the protocol could not read: the turn ended there.
    pub problem: Option<String>,
}

pub(crate) fn decode(protocol: Protocol, turn: &RecordedTurn) -> TurnContent {
    let mut decoder = protocol.decoder();
    let mut content = TurnContent::default();
    for line in turn.lines.iter() {
        let bytes = match line
            .map_err(|err| err.to_string())
            .and_then(|line| line.bytes.to_bytes().map_err(|err| err.to_string()))
        {
            Ok(bytes) => bytes,
            Err(problem) => {
                content.problem = Some(problem);
                break;
            }
        };
        match decoder.decode_line(&bytes) {
            Ok(LineDecoded::Blank) => {}
            Ok(LineDecoded::ServerError { message }) => {
                content.problem = Some(format!("server error: {message}"));
                break;
            }
            Ok(LineDecoded::Chunk(deltas)) => {
                content.thinking.push_str(&deltas.thinking);
                content.text.push_str(&deltas.content);
                content.calls.extend(deltas.tool_calls);
                if let Some(done) = deltas.done {
                    content.done_reason = done.reason.or(Some("done".to_owned()));
                    content.metrics = Some(done.metrics);
                    break;
                }
            }
            // A kind of line added to the core after this shell: the page stops where it is.
            Ok(other) => {
                content.problem = Some(format!("a stream line this mend cannot show: {other:?}"));
                break;
            }
            Err(err) => {
                content.problem = Some(err.message);
                break;
            }
        }
    }
    content
}

/// Turns are open when there are few of them; a long run starts folded.
const OPEN_TURNS: usize = 12;

pub(crate) fn draw(protocol: Protocol, session: &SessionView, page: &mut Html) {
    let open = session.turns.len() <= OPEN_TURNS;
    for turn in session.turns {
        let content = decode(protocol, turn);
        let calls: Vec<&RecordedCall> = session
            .calls
            .iter()
            .filter(|call| call.turn == turn.turn)
            .collect();
        page.raw(if open {
            "<details class=\"turn\" open><summary>"
        } else {
            "<details class=\"turn\"><summary>"
        });
        page.element(
            "span",
            "turn-title",
            &format!("Turn {}", session.turn_name(turn.turn)),
        )
        .text(&turn_summary(&content, &calls))
        .raw("</summary>");
        for trim in &turn.trimmed {
            page.element("p", "dim", &format!("✂ {}", trim.describe()));
        }
        if !content.thinking.is_empty() {
            page.raw("<details class=\"thinking\"><summary>thinking <span class=\"dim\">")
                .text(&format!(
                    "({} characters)",
                    content.thinking.chars().count()
                ))
                .raw("</span></summary>")
                .element("pre", "", &content.thinking)
                .raw("</details>");
        }
        if !content.text.is_empty() {
            page.raw("<div class=\"said\">")
                .value(&content.text)
                .raw("</div>");
        }
        if let Some(problem) = &content.problem {
            page.element("p", "problem", problem);
        }
        for call in &calls {
            draw_call(call, content.calls.get(call.index as usize), page);
        }
        if let Some(usage) = usage_line(turn, &content) {
            page.element("p", "dim", &usage);
        }
        page.raw("</details>");
    }
    page.element(
        "p",
        "stop",
        &match &session.stop.detail {
            Some(detail) => format!("Stopped: {} — {detail}", session.stop.reason),
            None => format!("Stopped: {}", session.stop.reason),
        },
    );
}

/// The turn's accounting: as recorded, else (older records) from its `done` chunk.
pub(crate) fn usage_line(turn: &RecordedTurn, content: &TurnContent) -> Option<String> {
    let usage = turn.usage.clone().or_else(|| {
        content
            .metrics
            .as_ref()
            .map(|metrics| crate::record::usage::TurnUsage::of(metrics, None))
    })?;
    Some(usage.describe()).filter(|line| !line.is_empty())
}

fn turn_summary(content: &TurnContent, calls: &[&RecordedCall]) -> String {
    let refused = calls
        .iter()
        .filter(|call| call.status == ToolStatus::Refused)
        .count();
    let mut parts = vec![match calls.len() {
        0 => "no calls".to_owned(),
        1 => "1 call".to_owned(),
        n => format!("{n} calls"),
    }];
    if refused > 0 {
        parts.push(format!("{refused} refused"));
    }
    if let Some(reason) = &content.done_reason {
        parts.push(format!("done: {reason}"));
    }
    format!(" · {}", parts.join(" · "))
}

/// A call with its arguments and result. A refused call's record holds no arguments (they never
/// reached a tool), so the model's own are shown, as it streamed them.
fn draw_call(call: &RecordedCall, streamed: Option<&ModelCall>, page: &mut Html) {
    let blocked = crate::record::hook_text::blocked(&call.hooks).is_some();
    let (class, status) = match call.status {
        _ if blocked => ("call refused", "blocked by a hook"),
        ToolStatus::Ok => ("call ok", "ok"),
        ToolStatus::Failed => ("call failed", "failed"),
        ToolStatus::Refused => ("call refused", "refused"),
        // A status added to the core after this shell.
        _ => ("call", "other"),
    };
    page.raw("<div")
        .attr("class", class)
        .raw("><p class=\"call-head\">");
    page.element("code", "call-name", &call.name)
        .element("span", "status", status)
        .element("span", "dim", &format!("{} ms", call.duration_ms));
    if let Some(recovered) = &call.recovered_from_text {
        page.element(
            "span",
            "dim",
            &format!("written as text ({})", recovered.format.name()),
        );
    }
    page.raw("</p>");
    let arguments = match (call.arguments.is_empty(), streamed) {
        (true, Some(model_call)) if call.status == ToolStatus::Refused => {
            match &model_call.arguments {
                CallArguments::Object { value } => pretty(&Value::Object(value.clone())),
                CallArguments::Unreadable { problem } => format!("(unreadable: {problem})"),
            }
        }
        _ => pretty(&Value::Object(call.arguments.clone())),
    };
    page.raw("<table class=\"call-body\">")
        .row("arguments", &arguments)
        .row("result", &result_text(&call.result));
    if !call.hooks.is_empty() {
        let lines: Vec<String> = call
            .hooks
            .iter()
            .map(|run| crate::record::hook_text::line(&call.name, run))
            .collect();
        page.row("hooks", &lines.join("\n"));
    }
    page.raw("</table></div>");
}

/// A result as a person reads it: its long text fields (a file, pytest's output) unescaped.
fn result_text(result: &Value) -> String {
    match result {
        Value::Null => "(no result: the call was cut)".to_owned(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, value)| match value {
                Value::String(text) => format!("{key}: {text}"),
                other => format!("{key}: {other}"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => pretty(other),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
