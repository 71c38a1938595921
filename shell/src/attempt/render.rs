//! Output: readable text for people, or one JSON event per line (`--json`, docs/events.md).

use std::io::{self, Write};

use mend_core::{Event, TextCall, ToolStatus};
use serde::Serialize;
use serde_json::Value;

use crate::attempt::driver::Observer;
use crate::attempt::run_event::RunEvent;
use crate::record::settings::RecordedImage;
use crate::record::usage::{Trim, TurnUsage};
use crate::verdict::check::TestRun;
use crate::verdict::grade::given::HeldAndGiven;

/// Shows a run as it happens, as text or JSON lines: the session's events and the shell's own.
pub trait Render: Observer {
    /// Shows one of the shell's events (setup, checks, verdict).
    fn run_event(&mut self, event: &RunEvent);
}

/// The renderer for the chosen output mode.
pub fn renderer(json: bool, show_thinking: bool) -> Box<dyn Render> {
    if json {
        Box::new(JsonLines {
            out: io::stdout(),
            estimate: None,
        })
    } else {
        Box::new(Human {
            out: io::stdout(),
            show_thinking,
            at_line_start: true,
            repairing: None,
        })
    }
}

struct JsonLines {
    out: io::Stdout,
    /// The estimate of the request in flight, for its turn's accounting.
    estimate: Option<(u64, u32)>,
}

/// Remembers the estimate of each request; after a turn, its accounting.
fn usage_after(estimate: &mut Option<(u64, u32)>, event: &Event) -> Option<(u32, TurnUsage)> {
    match event {
        Event::PromptEstimate { tokens, window, .. } => {
            *estimate = Some((*tokens, *window));
            None
        }
        Event::ModelDone { turn, metrics, .. } => {
            Some((*turn, TurnUsage::of(metrics, estimate.take())))
        }
        _ => None,
    }
}

impl JsonLines {
    fn write(&mut self, value: &impl Serialize) {
        let mut out = self.out.lock();
        // A closed stdout (a pipe to `head`) must not abort the run: the record still gets written.
        if let Ok(line) = serde_json::to_string(value) {
            crate::pipe::note_if_closed(writeln!(out, "{line}").and_then(|()| out.flush()));
        }
    }
}

impl Observer for JsonLines {
    fn hooks_ran(&mut self, call_id: &str, tool: &str, runs: &[crate::record::HookRun]) {
        for run in runs {
            self.write(&RunEvent::Hook {
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                run: run.clone(),
            });
        }
    }

    fn event(&mut self, event: &Event) {
        self.write(event);
        if let Some((turn, usage)) = usage_after(&mut self.estimate, event) {
            self.write(&RunEvent::TurnUsage { turn, usage });
        }
    }
}

impl Render for JsonLines {
    fn run_event(&mut self, event: &RunEvent) {
        if let RunEvent::Sandbox {
            warning: Some(warning),
            ..
        } = event
        {
            // Loud on stderr too: a JSON consumer may not look for it.
            eprintln!("mend: WARNING: {warning}");
        }
        self.write(event);
    }
}

/// The end-of-turn reasons of the three protocols; any other is worth a line: servers and proxies
/// add reasons of their own, which end the turn like `stop` but should not pass unseen.
const KNOWN_DONE_REASONS: [&str; 7] = [
    "stop",
    "length",
    "tool_calls",
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
];

struct Human {
    out: io::Stdout,
    show_thinking: bool,
    at_line_start: bool,
    /// The repair request in flight and the turn it repairs: its heading is said already.
    repairing: Option<(u32, u32)>,
}

impl Human {
    fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut out = self.out.lock();
        crate::pipe::note_if_closed(out.write_all(text.as_bytes()).and_then(|()| out.flush()));
        self.at_line_start = text.ends_with('\n');
    }

    fn line(&mut self, text: &str) {
        if !self.at_line_start {
            self.print("\n");
        }
        self.print(&format!("{text}\n"));
    }
}

impl Human {
    /// Calls read from text: a repair's, when one was asked for, else the model's own.
    fn recovered(&mut self, calls: &[TextCall]) {
        if let Some((_, broken)) = self.repairing.take() {
            let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
            self.line(&format!(
                "(turn {broken}'s call, repaired under the schema: {})",
                names.join(", ")
            ));
            return;
        }
        let mut formats: Vec<&str> = calls.iter().map(|call| call.format.name()).collect();
        formats.dedup();
        self.line(&format!(
            "(the model wrote {} call(s) as text ({}); mend reads them as calls)",
            calls.len(),
            formats.join(", ")
        ));
    }

    fn tool_result(&mut self, name: &str, status: ToolStatus, result: &Value) {
        let mark = match status {
            ToolStatus::Ok => "✓",
            ToolStatus::Failed => "✗",
            ToolStatus::Refused => "✗ refused:",
            // A status added to the core after this shell.
            _ => "?",
        };
        if status == ToolStatus::Refused {
            self.line(&format!("→ {name} (refused)"));
        }
        self.line(&format!("  {mark} {}", short_result(name, result)));
    }

    fn sandbox(
        &mut self,
        name: &str,
        warning: Option<&str>,
        image: Option<&RecordedImage>,
        recorded_image: Option<&RecordedImage>,
    ) {
        match warning {
            Some(warning) => {
                eprintln!("mend: WARNING: {warning}");
                self.line(&format!("Sandbox: {name} (see the warning above)"));
            }
            None => self.line(&format!("Sandbox: {name}")),
        }
        if let Some(image) = image {
            self.line(&format!("Image: {}", image.describe()));
        }
        if let Some(recorded) = recorded_image {
            self.line(&format!(
                "Recorded image: {} — not the image this replay runs in, so its tests may differ",
                recorded.describe()
            ));
        }
    }
}

impl Observer for Human {
    fn hooks_ran(&mut self, _call_id: &str, tool: &str, runs: &[crate::record::HookRun]) {
        for run in runs {
            self.line(&crate::record::hook_text::line(tool, run));
        }
    }

    fn event(&mut self, event: &Event) {
        match event {
            Event::ContextTrimmed {
                message,
                name,
                reason,
                bytes_before,
                bytes_after,
                ..
            } => {
                let trim = Trim {
                    message: *message,
                    name: name.clone(),
                    reason: *reason,
                    bytes_before: *bytes_before,
                    bytes_after: *bytes_after,
                };
                self.line(&format!("✂ {}", trim.describe()));
            }
            Event::RepairRequested { turn, broken_turn } => {
                self.repairing = Some((*turn, *broken_turn));
                self.line(&repair_heading(*turn, *broken_turn));
            }
            Event::ModelStart { turn } if self.repairing.is_some_and(|(of, _)| of == *turn) => {}
            Event::ModelStart { turn } => self.line(&format!("── turn {turn} ──")),
            Event::RepairUnusable { broken_turn, .. } => {
                self.repairing = None;
                self.line(&format!(
                    "(the repair gave no usable call: turn {broken_turn}'s text stands as its answer)"
                ));
            }
            Event::RecoveredFromText { calls, .. } => self.recovered(calls),
            Event::ThinkingDelta { text, .. } if self.show_thinking => self.print(text),
            Event::ThinkingDelta { .. } => {}
            Event::TextDelta { text, .. } => self.print(text),
            Event::ModelDone { done_reason, .. } => {
                if let Some(reason) = done_reason
                    .as_deref()
                    .filter(|reason| !KNOWN_DONE_REASONS.contains(reason))
                {
                    self.line(&format!(
                        "(the server ended the turn with an unknown reason `{reason}`)"
                    ));
                }
            }
            Event::ToolStart {
                name, arguments, ..
            } => {
                self.line(&format!("→ {name} {}", short_arguments(arguments)));
            }
            Event::ToolResult {
                name,
                status,
                result,
                ..
            } => self.tool_result(name, *status, result),
            Event::InputRejected { input, reason } => {
                eprintln!("mend: ignored {input:?}: {reason}");
            }
            Event::Stopped(stop) => match &stop.detail {
                Some(detail) => self.line(&format!("Stopped: {} — {detail}", stop.reason)),
                None => self.line(&format!("Stopped: {}", stop.reason)),
            },
            // A newer core's event this renderer does not know yet: the JSONL output has it.
            _ => {}
        }
    }
}

impl Render for Human {
    fn run_event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::RunStart {
                command,
                model,
                source,
            } => {
                self.line(&format!("mend {command}: {model} ({source})"));
            }
            RunEvent::Sandbox {
                name,
                warning,
                image,
                recorded_image,
            } => self.sandbox(
                name,
                warning.as_deref(),
                image.as_ref(),
                recorded_image.as_ref(),
            ),
            RunEvent::ContextWindow {
                tokens,
                why,
                first_request_tokens,
                before_message,
                ..
            } => self.line(&window_text(
                *tokens,
                why,
                *first_request_tokens,
                *before_message,
            )),
            RunEvent::TurnUsage { usage, .. } => self.line(&format!("  ({})", usage.describe())),
            RunEvent::Hook { tool, run, .. } => self.line(&crate::record::hook_text::line(tool, run)),
            RunEvent::TestsBefore { run } => self.line(&tests_text("Starting tests", run, false)),
            RunEvent::TestsAfter { run } => {
                self.line(&tests_text("Independent final tests", run, true))
            }
            RunEvent::TestsOnly {
                run,
                held,
                warnings,
            } => self.tests_only(run, held, warnings),
            RunEvent::Message { number, text, live } => {
                self.line(&message_line(*number, text.as_deref(), *live))
            }
            RunEvent::ChatCommand(command) => self.line(&format!(
                "Typed after message {} (as recorded): {}",
                command.after_messages,
                command.describe()
            )),
            RunEvent::Divergence {
                what,
                expected,
                got,
            } => {
                self.line(&format!(
                    "Divergence: {what}\n  expected: {expected}\n  got:      {got}"
                ));
            }
            RunEvent::Diff { text } => self.line(text.trim_end()),
            RunEvent::WorkspaceKept { path } => self.line(&format!("Workspace kept at {path}")),
            RunEvent::Costs {
                setup_ms,
                copy_ms,
                set_up_ms,
                sandbox_start_ms,
                tests_ms,
                cleanup_ms,
            } => self.line(&format!(
                "Time: setup {setup_ms} ms, copy {copy_ms} ms{}, sandbox start {sandbox_start_ms} ms, tests {tests_ms} ms{}",
                set_up_ms.map_or(String::new(), |ms| format!(", environment set-up {ms} ms")),
                cleanup_ms.map_or(String::new(), |ms| format!(", cleanup {ms} ms"))
            )),
            RunEvent::Verdict { .. } => {
                for line in verdict_lines(event) {
                    self.line(&line);
                }
            }
        }
    }
}

impl Human {
    /// `mend verify`'s run: its outcome, what was put back, and its warnings.
    fn tests_only(&mut self, run: &TestRun, held: &HeldAndGiven, warnings: &[String]) {
        self.line(&tests_text("Tests on a fresh copy", run, true));
        if let Some(runner) = &run.runner {
            self.line(&format!("  graded by {runner}"));
        }
        for line in held.lines() {
            self.line(&format!("  {line}"));
        }
        for warning in warnings {
            self.line(&warning_line(warning));
        }
    }
}

mod text;

pub use text::sandbox_phrase;
#[cfg(test)]
use text::verdict_line;
use text::{message_line, short_result, tests_text, verdict_lines, warning_line, window_text};
pub(crate) use text::{repair_heading, short_arguments};

#[cfg(test)]
mod tests;
