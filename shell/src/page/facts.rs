//! The verdict, the tests before and after, and what the run was made with: model, digest,
//! server, sandbox and every setting.

use mend_core::{Stop, StopReason};

use super::html::Html;
use super::view::Shown;
use crate::record::stop::explain_stop;
use crate::record::HarnessEnd;
use crate::verdict::check::TestRun;
use crate::verdict::grade::contract::{Contract, Transition};

/// Hex digits of a model digest people are shown; the whole one is in the record.
const DIGEST_CHARS: usize = 12;

/// A model digest as people are shown it: a hex digest (an optional `sha256:` before it) cut to
/// its first 12 digits; anything else (`protocol:name`, where the server gave none) whole.
pub(crate) fn short_digest(digest: &str) -> &str {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    if hex.len() > DIGEST_CHARS && hex.chars().all(|digit| digit.is_ascii_hexdigit()) {
        &hex[..DIGEST_CHARS]
    } else {
        digest
    }
}

pub(crate) fn verdict(shown: &Shown, page: &mut Html) {
    let Some(ending) = &shown.ending else {
        let why = shown.harness_error.map_or(
            "the conversation never ended (no independent final test run)",
            HarnessEnd::headline,
        );
        page.element("p", "verdict unknown", &format!("No verdict: {why}."));
        return;
    };
    let verdict = ending.verdict();
    let (class, text) = if verdict.passed {
        (
            "verdict pass",
            "PASS — the independent final tests pass, and they are the tests the run started with"
                .to_owned(),
        )
    } else {
        (
            "verdict fail",
            format!(
                "FAIL — {}",
                verdict.reasons.first().map_or("", String::as_str)
            ),
        )
    };
    let stopped = match shown.sessions.last() {
        Some(session) if !verdict.passed => why_stopped(session.stop, &shown.settings.model),
        _ => None,
    };
    match stopped {
        Some(stopped) => page.element("p", class, &format!("{text}. {stopped}")),
        None => page.element("p", class, &text),
    };
    // The headline says the first reason; the rest (or a pass's caveat) follow it.
    let rest = if verdict.passed {
        &verdict.reasons[..]
    } else {
        verdict.reasons.get(1..).unwrap_or_default()
    };
    for reason in rest {
        page.element("p", "verdict-reason", reason);
    }
    for warning in &verdict.warnings {
        page.element("p", "verdict-warning", &format!("Warning: {warning}"));
    }
}

/// What a failing verdict adds about the stop, unless the model finished: the stop that left
/// the work undone, in words.
fn why_stopped(stop: &Stop, model: &str) -> Option<String> {
    let words = match stop.reason {
        StopReason::AssistantFinished => return None,
        StopReason::ModelError | StopReason::IncompleteModelTurn => explain_stop(stop, model),
        _ => stop.detail.clone().unwrap_or_default(),
    };
    Some(if words.is_empty() {
        format!("The run stopped with {}", stop.reason)
    } else {
        format!("The run stopped with {}: {words}", stop.reason)
    })
}

pub(crate) fn tests(shown: &Shown, page: &mut Html) {
    page.raw("<table class=\"facts\">");
    match shown.tests_before {
        Some(run) => test_rows("tests before", run, page),
        None => match shown.harness_error {
            Some(end) => page
                .row("tests before", "(none: mend could not run them)")
                .row("what mend said", &end.message)
                .row("copy kept at", &end.copy),
            None => page.row("tests before", "(a chat has no check before it starts)"),
        },
    };
    match &shown.ending {
        Some(ending) => {
            test_rows("tests after", &ending.after.tests_after, page).row(
                "test files",
                if ending.test_files_changed() {
                    "CHANGED by the run"
                } else {
                    "unchanged"
                },
            );
            if let Some(contract) = &ending.after.contract {
                contract_rows(contract, page);
            }
            if !ending.after.written_by_tests.is_empty() {
                page.row(
                    "written while the tests ran (left out)",
                    &ending.after.written_by_tests.join("\n"),
                );
            }
        }
        None if shown.harness_error.is_some() => {
            page.row("tests after", "(none: the run ended before its loop)");
        }
        None => {
            page.row("tests after", "(none: the chat did not end)");
        }
    };
    page.raw("</table>");
}

/// A test run's outcome, then the failing tests and the output's end when the record has them.
fn test_rows<'p>(name: &str, run: &TestRun, page: &'p mut Html) -> &'p mut Html {
    page.row(name, &test_run(run));
    if let Some(runner) = &run.runner {
        page.row("graded by", &runner.to_string());
    }
    if !run.failing.is_empty() {
        page.row("failing tests", &run.failing.join("\n"));
    }
    if let Some(tail) = &run.output_tail {
        page.row("end of output", tail);
    }
    page
}

/// The contract by test id: every failing-before test, and the passing-before ones that broke.
fn contract_rows(contract: &Contract, page: &mut Html) {
    let lines = |transitions: &mut dyn Iterator<Item = &Transition>| {
        transitions
            .map(Transition::describe)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let tally = contract.tally();
    page.row("by id", &tally.describe());
    page.row("fail to pass", &lines(&mut contract.fail_to_pass.iter()));
    let broken = lines(&mut contract.pass_to_pass.iter().filter(|t| !t.kept()));
    let kept = tally.still_passing;
    let pass_to_pass = if broken.is_empty() {
        format!("{kept} still pass")
    } else {
        format!("{kept} still pass; broken:\n{broken}")
    };
    page.row("pass to pass", &pass_to_pass);
    if !contract.added.is_empty() {
        page.row("added by the change", &lines(&mut contract.added.iter()));
    }
}

fn test_run(run: &TestRun) -> String {
    let exit = run
        .exit_code
        .map_or_else(|| "timed out".to_owned(), |code| format!("exit {code}"));
    format!("{} ({exit}, {} ms)", run.describe(), run.duration_ms)
}

pub(crate) fn settings(shown: &Shown, page: &mut Html) {
    let settings = shown.settings;
    let missing = |value: Option<&String>| {
        value
            .cloned()
            .unwrap_or_else(|| "(not recorded)".to_owned())
    };
    page.raw("<table class=\"facts\">")
        .row("model", &settings.model)
        .row("model digest", &missing(settings.model_digest.as_ref()))
        .row("protocol", settings.protocol.name())
        .row("server version", &missing(settings.server_version.as_ref()))
        .row("sandbox", &missing(settings.sandbox.as_ref()))
        .row(
            "sandbox asked for",
            &missing(settings.sandbox_choice.as_ref()),
        )
        .row("python", &missing(settings.python.as_ref()))
        .row(
            "image",
            &settings.image.as_ref().map_or_else(
                || "none (this machine's files)".to_owned(),
                |image| image.describe(),
            ),
        )
        .row(
            "repository",
            settings
                .repo
                .as_deref()
                .unwrap_or(crate::record::settings::LEGACY_REPO),
        )
        .row("max turns", &settings.max_turns.to_string())
        .row("think", &settings.think.to_string())
        .row("keep alive", &format!("{} s", settings.keep_alive))
        .row("options", &json(&settings.options))
        .row(
            "context",
            &settings
                .context
                .as_ref()
                .map_or_else(|| "off".to_owned(), json),
        )
        .row("system prompt", &settings.system_prompt);
    if let Some(metrics) = shown.metrics {
        if let Some(outside) = metrics.outside_the_tests() {
            page.row("outside the tests", &outside);
        }
        page.row("metrics", &json(metrics));
    }
    page.raw("</table>");
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
