//! `mend show RECORD [--html OUT]`: a record as a terminal summary (turns, calls with their
//! status, the stop, the verdict, where the time went), or as one self-contained HTML page.

use camino::Utf8Path;
use mend_core::{TextCallFormat, ToolStatus};

use crate::attempt::render::{sandbox_phrase, short_arguments};
use crate::error::{exit, MendError};
use crate::page::timeline::{seconds, Subject, Timeline};
use crate::page::view::{SessionView, Shown};
use crate::record::hook_text as hooks;
use crate::record::metrics::RunMetrics;
use crate::record::Record;
use crate::record::RecordedCall;

/// `mend show RECORD`: the record as a terminal summary, or as one HTML page at `html`.
pub fn show(record_path: &Utf8Path, html: Option<&Utf8Path>) -> Result<u8, MendError> {
    if let Some(out) = html {
        let page = crate::page::record_file_page(record_path, None)?;
        crate::page::write_page(out, &page)?;
        // Said on stderr: the page itself may be going to standard output.
        eprintln!(
            "mend: wrote {out} ({} KB): open it in any browser; it loads nothing.",
            page.len().div_ceil(1024)
        );
        return Ok(exit::PASS);
    }
    let record = Record::read(record_path)?;
    print!("{}", summary(&Shown::of(&record), record_path.as_str()));
    Ok(exit::PASS)
}

/// The terminal summary, one line per turn and per call.
pub fn summary(shown: &Shown, source: &str) -> String {
    let settings = shown.settings;
    let digest = settings
        .model_digest
        .as_deref()
        .map_or_else(String::new, |digest| {
            format!(", digest {}", crate::page::facts::short_digest(digest))
        });
    let mut out = format!(
        "mend {} of {} ({}{digest}) on {} — {source}\n",
        shown.kind,
        settings.model,
        settings.protocol.name(),
        settings
            .repo
            .as_deref()
            .unwrap_or(crate::record::settings::LEGACY_REPO)
    );
    if let Some(image) = &settings.image {
        out.push_str(&format!("Image: {}\n", image.describe()));
    }
    let timeline = Timeline::of(shown);
    let protocol = settings.protocol;
    if let Some(run) = shown.tests_before {
        out.push_str(&format!(
            "Tests before: {} ({} ms)\n",
            run.describe(),
            run.duration_ms
        ));
    }
    out.push_str(&command_lines(shown, 0));
    for (number, session) in shown.sessions.iter().enumerate() {
        if shown.sessions.len() > 1 {
            out.push_str(&format!(
                "Message {}: {}\n",
                number + 1,
                first_line(session.prompt)
            ));
        }
        out.push_str(&session_lines(session, number + 1, &timeline, protocol));
        out.push_str(&command_lines(shown, number + 1));
    }
    out.push_str(&verdict_lines(shown));
    let split = timeline.split();
    out.push_str(&format!(
        "Time: {} · total {}\n",
        split.describe(),
        seconds(timeline.total_ms)
    ));
    if let Some(outside) = shown.metrics.and_then(RunMetrics::outside_the_tests) {
        out.push_str(&format!("Outside the tests: {outside}\n"));
    }
    out
}

/// One session: its counts, a line per turn with a line per call under it, and its stop.
fn session_lines(
    session: &SessionView,
    number: usize,
    timeline: &Timeline,
    protocol: mend_core::Protocol,
) -> String {
    let blocked = |call: &&RecordedCall| hooks::blocked(&call.hooks).is_some();
    let counts = |status: ToolStatus| {
        session
            .calls
            .iter()
            .filter(|call| call.status == status && !blocked(call))
            .count()
    };
    let by_hooks = session.calls.iter().filter(blocked).count();
    let mut out = format!(
        "{} turn(s), {} call(s): {} ok, {} failed, {} refused{}\n",
        session.turns.len(),
        session.calls.len(),
        counts(ToolStatus::Ok),
        counts(ToolStatus::Failed),
        counts(ToolStatus::Refused),
        match by_hooks {
            0 => String::new(),
            count => format!(", {count} blocked by hooks"),
        }
    );
    for span in &timeline.spans {
        let Subject::Turn { session: of, turn } = span.subject else {
            continue;
        };
        if of != number {
            continue;
        }
        out.push_str(&format!("  {}\n", span.label));
        if let Some(recorded) = session.turns.iter().find(|recorded| recorded.turn == turn) {
            for trim in &recorded.trimmed {
                out.push_str(&format!("    ✂ {}\n", trim.describe()));
            }
            let content = crate::page::conversation::decode(protocol, recorded);
            if let Some(usage) = crate::page::conversation::usage_line(recorded, &content) {
                out.push_str(&format!("    {usage}\n"));
            }
        }
        for call in session.calls.iter().filter(|call| call.turn == turn) {
            let status = match (call.status, hooks::blocked(&call.hooks)) {
                (_, Some(_)) => "BLOCKED by a hook",
                (ToolStatus::Ok, None) => "ok",
                (ToolStatus::Failed, None) => "FAILED",
                (ToolStatus::Refused, None) => "REFUSED",
                // A status added to the core after this shell: named as the record spells it.
                _ => "OTHER",
            };
            let written = match call.recovered_from_text.as_ref().map(|text| text.format) {
                Some(TextCallFormat::RepairedByGrammar) => {
                    ", repaired under the tools' schema".to_owned()
                }
                Some(format) => format!(", written as text ({})", format.name()),
                None => String::new(),
            };
            out.push_str(&format!(
                "    {} {} — {status}, {} ms{written}\n",
                call.name,
                short_arguments(&call.arguments),
                call.duration_ms
            ));
            for run in &call.hooks {
                out.push_str(&format!("      {}\n", hooks::line(&call.name, run)));
            }
        }
    }
    out.push_str(&match &session.stop.detail {
        Some(detail) => format!("Stop: {} — {detail}\n", session.stop.reason),
        None => format!("Stop: {}\n", session.stop.reason),
    });
    out
}

/// The tests after and the verdict, naming the sandbox it rests on when the record does.
fn verdict_lines(shown: &Shown) -> String {
    let Some(ending) = &shown.ending else {
        return match shown.harness_error {
            Some(end) => format!(
                "Verdict: none ({})\nCopy kept at: {}\nWhat mend said:\n{}\n",
                end.headline(),
                end.copy,
                indented(&end.message)
            ),
            None => "Verdict: none (the chat did not end)\n".to_owned(),
        };
    };
    let judged = ending.verdict();
    let verdict = match (judged.passed, ending.test_files_changed()) {
        (true, _) => "PASS (the final tests pass, with the tests the run started with",
        (false, true) => "FAIL (the run changed the test files",
        (false, false) => "FAIL (for the reasons below",
    };
    // Authored records say nothing of the sandbox; a live one names what the verdict rests on.
    let sandbox = shown
        .settings
        .sandbox
        .as_deref()
        .map_or_else(String::new, |name| format!("; {}", sandbox_phrase(name)));
    let mut out = format!(
        "Tests after: {} ({} ms)\nVerdict: {verdict}{sandbox})\n",
        ending.after.tests_after.describe(),
        ending.after.tests_after.duration_ms
    );
    for reason in &judged.reasons {
        out.push_str(&format!("  - {reason}\n"));
    }
    for warning in &judged.warnings {
        out.push_str(&format!("  ! warning: {warning}\n"));
    }
    if let Some(contract) = &ending.after.contract {
        out.push_str(&format!("Tests by id: {}\n", contract.tally().describe()));
    }
    out
}

/// `text` with every line indented by two spaces.
fn indented(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The chat commands typed after `messages` messages, a line each.
fn command_lines(shown: &Shown, messages: usize) -> String {
    shown
        .commands
        .iter()
        .filter(|command| command.after_messages == messages)
        .map(|command| format!("Typed {}\n", command.describe()))
        .collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
