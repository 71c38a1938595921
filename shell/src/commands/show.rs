//! `mend show RECORD [--html OUT]`: a record as a terminal summary (turns, calls with their
//! status, the stop, the verdict, where the time went), or as one self-contained HTML page.

use camino::Utf8Path;
use mend_core::ToolStatus;

use crate::error::{exit, MendError};
use crate::page::timeline::{seconds, Timeline};
use crate::page::view::Shown;
use crate::record::Record;
use crate::session::render::{sandbox_phrase, short_arguments};

pub fn show(record_path: &Utf8Path, html: Option<&Utf8Path>) -> Result<u8, MendError> {
    if let Some(out) = html {
        let page = crate::page::record_file_page(record_path, None)?;
        crate::page::write_page(out, &page)?;
        println!(
            "Wrote {out} ({} KB): open it in any browser; it loads nothing.",
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
        settings.provider,
        settings
            .repo
            .as_deref()
            .unwrap_or(crate::record::settings::LEGACY_REPO)
    );
    let timeline = Timeline::of(shown);
    let codec = mend_core::Codec::from_provider(&settings.provider).unwrap_or_default();
    if let Some(run) = shown.tests_before {
        out.push_str(&format!(
            "Tests before: {} ({} ms)\n",
            run.describe(),
            run.duration_ms
        ));
    }
    for (number, session) in shown.sessions.iter().enumerate() {
        if shown.sessions.len() > 1 {
            out.push_str(&format!(
                "Message {}: {}\n",
                number + 1,
                first_line(session.prompt)
            ));
        }
        let counts = |status: ToolStatus| {
            session
                .calls
                .iter()
                .filter(|call| call.status == status)
                .count()
        };
        out.push_str(&format!(
            "{} turn(s), {} call(s): {} ok, {} failed, {} refused\n",
            session.turns.len(),
            session.calls.len(),
            counts(ToolStatus::Ok),
            counts(ToolStatus::Failed),
            counts(ToolStatus::Refused)
        ));
        for span in timeline.spans.iter().filter(|span| matches!(span.subject, crate::page::timeline::Subject::Turn { session, .. } if session == number + 1)) {
            out.push_str(&format!("  {}\n", span.label));
            let crate::page::timeline::Subject::Turn { turn, .. } = span.subject else {
                continue;
            };
            if let Some(recorded) = session.turns.iter().find(|recorded| recorded.turn == turn) {
                for trim in &recorded.trimmed {
                    out.push_str(&format!("    ✂ {}\n", trim.describe()));
                }
                let content = crate::page::conversation::decode(codec, recorded);
                if let Some(usage) = crate::page::conversation::usage_line(recorded, &content) {
                    out.push_str(&format!("    {usage}\n"));
                }
            }
            for call in session.calls.iter().filter(|call| call.turn == turn) {
                let status = match call.status {
                    ToolStatus::Ok => "ok",
                    ToolStatus::Failed => "FAILED",
                    ToolStatus::Refused => "REFUSED",
                };
                out.push_str(&format!(
                    "    {} {} — {status}, {} ms\n",
                    call.name,
                    short_arguments(&call.arguments),
                    call.duration_ms
                ));
            }
        }
        out.push_str(&match &session.stop.detail {
            Some(detail) => format!("Stop: {} — {detail}\n", session.stop.reason),
            None => format!("Stop: {}\n", session.stop.reason),
        });
    }
    match &shown.ending {
        Some(ending) => {
            out.push_str(&format!(
                "Tests after: {} ({} ms)\n",
                ending.tests_after.describe(),
                ending.tests_after.duration_ms
            ));
            let verdict = match (ending.passes(), ending.test_files_changed) {
                (true, _) => "PASS (the final tests pass, with the tests the run started with",
                (false, true) => "FAIL (the run changed the test files",
                (false, false) => "FAIL (the final tests fail",
            };
            // Authored records say nothing of the sandbox; a live one names what the verdict
            // rests on.
            let sandbox = settings
                .sandbox
                .as_deref()
                .map_or_else(String::new, |name| format!("; {}", sandbox_phrase(name)));
            out.push_str(&format!("Verdict: {verdict}{sandbox})\n"));
        }
        None => out.push_str("Verdict: none (the chat did not end)\n"),
    }
    let split = timeline.split();
    out.push_str(&format!(
        "Time: model {} · tools {} · tests {} · total {}\n",
        seconds(split.model_ms),
        seconds(split.tools_ms),
        seconds(split.tests_ms),
        seconds(timeline.total_ms)
    ));
    out
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
