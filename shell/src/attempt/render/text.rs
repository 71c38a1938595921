//! The lines the human renderer prints, each made from one event's values: the verdict, the
//! test runs, the context window, a message, a call's arguments and result, shortened.

use serde_json::Value;

use crate::attempt::run_event::RunEvent;
use crate::record::metrics::RunMetrics;
use crate::task::ToolName;
use crate::verdict::check::TestRun;
use crate::verdict::read::summary::Summary;

/// The verdict as text: the headline, the benchmark's groups, the reasons and warnings, the
/// metrics; nothing for another event.
pub(super) fn verdict_lines(event: &RunEvent) -> Vec<String> {
    let RunEvent::Verdict {
        tests_pass,
        reasons,
        warnings,
        sandbox,
        runner,
        replay_matched,
        metrics,
        benchmark,
        ..
    } = event
    else {
        return Vec::new();
    };
    let mut lines = vec![verdict_line(*tests_pass, sandbox, *replay_matched)];
    lines.extend(runner.iter().map(|runner| format!("  graded by {runner}")));
    lines.extend(benchmark.lines().iter().map(|line| format!("  {line}")));
    lines.extend(reasons.iter().map(|reason| format!("  - {reason}")));
    lines.extend(warnings.iter().map(|warning| warning_line(warning)));
    lines.push(metrics_line(metrics));
    lines
}

/// A warning beside a verdict or a run of the tests: a person reads it, it decides nothing.
pub(super) fn warning_line(warning: &str) -> String {
    format!("  ! warning: {warning}")
}

/// The heading of a repair request: a turn of the budget, but not a turn of the model's own.
pub(crate) fn repair_heading(turn: u32, broken_turn: u32) -> String {
    format!(
        "── turn {turn} · repair: turn {broken_turn}'s call asked again under the tools' schema ──"
    )
}

/// A run's metrics, under its verdict.
pub(super) fn metrics_line(metrics: &RunMetrics) -> String {
    format!(
        "Metrics: {} model request(s), {} streamed bytes, model {} ms, tools {} ms{}, verification {} ms{}, tokens {} prompt / {} eval",
        metrics.model_requests,
        metrics.streamed_bytes,
        metrics.model_ms,
        metrics.tool_ms,
        if metrics.hook_ms > 0 {
            format!(", hooks {} ms", metrics.hook_ms)
        } else {
            String::new()
        },
        metrics.verify_ms,
        metrics.outside_the_tests().map_or(String::new(), |text| format!(", {text}")),
        metrics.prompt_tokens,
        metrics.eval_tokens
    )
}

/// How many characters of a message a person is shown in its heading (the record keeps it all).
pub(super) const MESSAGE_SHOWN: usize = 100;

/// The heading of a message of a conversation: its first line, cut, so that a replayed or
/// resumed transcript says what each session was asked.
/// The window of every request, why, and what the first one costs: the lines `mend run` and
/// `mend chat` print before the first turn, worded as `mend task` words them.
pub(super) fn window_text(
    tokens: u32,
    why: &str,
    first: Option<u64>,
    before_message: bool,
) -> String {
    let window = format!("Context window: {tokens} tokens, the num_ctx of every request ({why})");
    let Some(first) = first else {
        return window;
    };
    let share = first * 100 / u64::from(tokens.max(1));
    if before_message {
        format!(
            "{window}\nBefore your first message: about {first} tokens (the system prompt, the \
             instructions and the tools: {share} % of the window; a conservative estimate)"
        )
    } else {
        format!(
            "{window}\nFirst request: about {first} tokens ({share} % of the window; a conservative \
             estimate)"
        )
    }
}

pub(super) fn message_line(number: usize, text: Option<&str>, live: bool) -> String {
    let live = if live { ", live" } else { "" };
    let Some(text) = text else {
        return format!("══ message {number}{live}: goes on from where the one before stopped ══");
    };
    let first = text.lines().next().unwrap_or_default();
    let mut shown: String = first.chars().take(MESSAGE_SHOWN).collect();
    if shown.len() < text.trim_end().len() {
        shown.push('…');
    }
    format!("══ message {number}{live}: {shown} ══")
}

/// The verdict in words, with the sandbox it rests on and, for a replay, whether it matched.
pub(super) fn verdict_line(
    tests_pass: bool,
    sandbox: &str,
    replay_matched: Option<bool>,
) -> String {
    let tests = if tests_pass {
        "PASS (the final tests pass"
    } else {
        "FAIL (for the reasons below"
    };
    let replay = match replay_matched {
        Some(true) => "; the replay matched its record",
        Some(false) => "; the replay did NOT match its record",
        None => "",
    };
    format!("Verdict: {tests}, {}){replay}", sandbox_phrase(sandbox))
}

/// What the verdict rests on, in words: only bubblewrap kept the tests inside the copy.
pub fn sandbox_phrase(sandbox: &str) -> String {
    match sandbox {
        "bwrap" => "sandbox bwrap".to_owned(),
        other => format!("sandbox {other}: the tests could write outside the copy"),
    }
}

/// How many failing tests a person is shown by name; the rest are counted.
pub(super) const FAILING_SHOWN: usize = 10;
/// How many lines of the end of a failing run's output a person is shown (the record keeps
/// more).
pub(super) const OUTPUT_LINES_SHOWN: usize = 25;

/// A test run for a person: the counts, the failing tests by name (the first ten), and with
/// `with_output` the end of the output of a run that did not pass.
pub(super) fn tests_text(title: &str, run: &TestRun, with_output: bool) -> String {
    let mut text = format!("{title}: {}", run.describe());
    if !run.failing.is_empty() {
        text.push_str("\n  failing:");
        for name in run.failing.iter().take(FAILING_SHOWN) {
            text.push_str(&format!("\n    {name}"));
        }
        if run.failing.len() > FAILING_SHOWN {
            text.push_str(&format!(
                "\n    and {} more",
                run.failing.len() - FAILING_SHOWN
            ));
        }
    }
    match run.output_tail.as_deref().map(str::trim_end) {
        Some(tail) if with_output && !run.passed() && !tail.is_empty() => {
            text.push_str("\n  the end of the output:");
            let lines: Vec<&str> = tail.lines().collect();
            for line in &lines[lines.len().saturating_sub(OUTPUT_LINES_SHOWN)..] {
                text.push_str(&format!("\n    │ {line}"));
            }
        }
        _ => {}
    }
    text
}

/// One line about a tool result: what a person needs to follow the run.
/// Arguments as one line of JSON, long strings cut: a `write_file` text would fill the screen.
/// The JSON output and the record keep them whole.
pub(crate) fn short_arguments(arguments: &serde_json::Map<String, Value>) -> String {
    const SHOWN_CHARS: usize = 60;
    let shortened = arguments
        .iter()
        .map(|(key, value)| {
            let value = match value {
                Value::String(text) if text.chars().count() > 2 * SHOWN_CHARS => {
                    Value::String(format!(
                        "{}… ({} characters)",
                        text.chars().take(SHOWN_CHARS).collect::<String>(),
                        text.chars().count()
                    ))
                }
                other => other.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(shortened).to_string()
}

pub(super) fn short_result(name: &str, result: &Value) -> String {
    if let Some(error) = result.get("error").and_then(Value::as_str) {
        return format!("error: {error}");
    }
    let Some(tool) = ToolName::named(name) else {
        return result.to_string();
    };
    match tool {
        ToolName::ReadFile => {
            let path = result.get("path").and_then(Value::as_str).unwrap_or("?");
            let lines = result
                .get("text")
                .and_then(Value::as_str)
                .map_or(0, |text| text.lines().count());
            format!("read {path} ({lines} lines)")
        }
        ToolName::ReplaceText => "replaced 1 occurrence".to_owned(),
        ToolName::Shell => {
            let code = result
                .get("exit_code")
                .map_or_else(|| "?".to_owned(), Value::to_string);
            format!("exit {code}")
        }
        ToolName::WriteFile => {
            let path = result.get("path").and_then(Value::as_str).unwrap_or("?");
            let bytes = result
                .get("bytes")
                .map_or_else(String::new, Value::to_string);
            format!("wrote {path} ({bytes} bytes)")
        }
        ToolName::ListFiles | ToolName::Grep => {
            let count = result
                .get("total")
                .or_else(|| result.get("count"))
                .map_or_else(|| "?".to_owned(), Value::to_string);
            let what = if tool == ToolName::Grep {
                "matches"
            } else {
                "files"
            };
            let more = if result.get("truncated") == Some(&Value::Bool(true)) {
                ", truncated"
            } else {
                ""
            };
            format!("{count} {what}{more}")
        }
        ToolName::RunTests => {
            let code = result
                .get("exit_code")
                .map_or_else(|| "?".to_owned(), Value::to_string);
            let summary = result
                .get("output")
                .and_then(Value::as_str)
                .and_then(Summary::parse)
                .map_or_else(String::new, |summary| format!(" · {}", summary.describe()));
            format!("exit {code}{summary}")
        }
    }
}
