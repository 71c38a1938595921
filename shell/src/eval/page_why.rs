//! The report page's "Why attempts failed" section: per task, the failed attempts by the loop's
//! stop, those whose model claimed success, those with calls that fit no tool or that a tool
//! refused, and the passes the verdict warns about; the same counts as the text report's `why`.

use super::report::Report;
use super::why::WhyCounts;
use crate::page::html::Html;

pub(crate) fn why_section(report: &Report, page: &mut Html) {
    page.raw("<section><h2>Why attempts failed</h2>");
    page.element(
        "p",
        "description",
        &format!("All tasks: {}.", report.why.line()),
    );
    page.raw("<table class=\"numbers why\"><thead><tr>");
    for heading in [
        "task",
        "failed",
        "stops",
        "claimed success, tests failed",
        "calls that fit no tool",
        "calls a tool refused or failed",
        "suspect passes, not counted",
        "passes with a warning",
    ] {
        page.element("th", "", heading);
    }
    page.raw("</tr></thead><tbody>");
    for task in report.tasks.iter().chain(&report.flaky_tasks) {
        row(page, &task.task, &task.why);
    }
    row(page, "all", &report.why);
    page.raw("</tbody></table>");
    page.element(
        "p",
        "dim",
        "A model that ends on its own says it is done: when the final tests then fail, it claimed a success it did not have. A suspect pass passed, but its change reaches into the test run, so it is not counted as a pass; a pass with a warning counts, but a person should look at it (each attempt's page says why).",
    );
    page.raw("</section>");
}

fn row(page: &mut Html, name: &str, why: &WhyCounts) {
    let stops: Vec<String> = why
        .stops
        .iter()
        .map(|(stop, count)| format!("{stop} {count}"))
        .collect();
    page.raw("<tr>").element("td", "name", name);
    for cell in [
        why.failed.to_string(),
        stops.join(", "),
        why.claimed_success.to_string(),
        why.with_invalid_calls.to_string(),
        why.with_failed_calls.to_string(),
        why.suspect_passes.to_string(),
        why.warned_passes.to_string(),
    ] {
        page.element("td", "", &cell);
    }
    page.raw("</tr>");
}
