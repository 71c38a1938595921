//! `mend eval report DIR... --html OUT`: the report as one self-contained page, made with the
//! same parts as `mend show`'s (document, policy, stylesheet, escaping, charts): the pass@k
//! table with the text report's numbers, a pass@k-against-k chart for the suite and per task,
//! the cost per solved task, and a link to every attempt's own page.

use camino::Utf8PathBuf;

use super::attempt_pages::AttemptLink;
use super::cost::{Costs, PerSolved};
use super::report::{cell, model_named, Report};
use crate::page::bars::{self, Column};
use crate::page::facts::short_digest;
use crate::page::html::Html;
use crate::page::timeline::seconds;
use crate::page::{document_end, document_start};

pub(crate) struct EvalPage<'a> {
    pub report: &'a Report,
    pub costs: &'a Costs,
    pub attempts: &'a [AttemptLink],
    /// The folders the results were read from.
    pub sources: &'a [Utf8PathBuf],
}

pub(crate) fn eval_page(eval: &EvalPage) -> String {
    let report = eval.report;
    let mut page = Html::new();
    // The name people know the model by; its digest is in the facts below.
    let title = if report.model.is_empty() {
        format!("mend eval: model {}", short_digest(&report.model_digest))
    } else {
        format!("mend eval: {}", report.model)
    };
    document_start(&title, &mut page);
    page.element("h1", "", &title);
    page.element(
        "p",
        "description",
        &format!(
            "Model {}. {} task(s), {} attempt(s), {} passed. Suite sha256 {}; results from {}.",
            model_named(report),
            report.tasks.len() + report.flaky_tasks.len(),
            report.attempts,
            report.passed,
            report.suite_sha256,
            eval.sources
                .iter()
                .map(|dir| dir.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );

    page.raw("<section><h2>pass@k</h2>");
    table(report, &mut page);
    page.element(
        "p",
        "dim",
        "pass@k: the chance that at least one of k attempts drawn from the n made passes (the unbiased estimator); - where k exceeds n.",
    );
    page.raw("</section>");
    super::page_why::why_section(report, &mut page);
    page.raw("<section><h2>pass@k against k</h2><div class=\"cards\">");
    card("mean over tasks", &report.mean_pass_at, &[], &mut page);
    let flaky = report.flaky_tasks.iter().map(|task| (task, " (flaky)"));
    for (task, mark) in report.tasks.iter().map(|task| (task, "")).chain(flaky) {
        let attempts: Vec<&AttemptLink> = eval
            .attempts
            .iter()
            .filter(|attempt| attempt.task == task.task)
            .collect();
        card(
            &format!("{}{mark}", task.task),
            &task.pass_at,
            &attempts,
            &mut page,
        );
    }
    page.raw("</div></section><section><h2>Cost per solved task</h2>");
    cost(eval.costs, &mut page);
    page.raw("</section>");
    document_end(&mut page);
    page.finish()
}

/// The text report's table, cell for cell (the same [`cell`] formats both).
fn table(report: &Report, page: &mut Html) {
    page.raw("<table class=\"numbers passk\"><thead><tr>")
        .element("th", "", "task")
        .element("th", "", "n")
        .element("th", "", "c");
    for k in 1..=report.k {
        page.element("th", "", &format!("pass@{k}"));
    }
    page.raw("</tr></thead><tbody>");
    for task in &report.tasks {
        row(page, &task.task, task.n, task.c, &task.pass_at, "name");
    }
    row(
        page,
        "mean",
        report.mean_counts().0,
        report.mean_counts().1,
        &report.mean_pass_at,
        "name mean",
    );
    if !report.flaky_tasks.is_empty() {
        // Flaky tasks are listed apart, below the mean that leaves them out.
        page.raw("<tr>").element(
            "th",
            "",
            "flaky tasks (their tests flip between runs of the same tree; not in the mean)",
        );
        page.raw("</tr>");
        for task in &report.flaky_tasks {
            row(page, &task.task, task.n, task.c, &task.pass_at, "name");
        }
    }
    page.raw("</tbody></table>");
}

fn row(page: &mut Html, name: &str, n: u64, c: u64, values: &[Option<f64>], class: &'static str) {
    page.raw("<tr>")
        .element("td", class, name)
        .element("td", "", &n.to_string())
        .element("td", "", &c.to_string());
    for value in values {
        page.element("td", "", &cell(*value));
    }
    page.raw("</tr>");
}

/// One chart of pass@1..k, and the task's attempts as links to their pages.
fn card(name: &str, pass_at: &[Option<f64>], attempts: &[&AttemptLink], page: &mut Html) {
    page.raw("<div class=\"card\">").element("h3", "", name);
    let columns: Vec<Column> = pass_at
        .iter()
        .enumerate()
        .map(|(index, value)| Column {
            label: (index + 1).to_string(),
            value: *value,
            title: match value {
                Some(value) => format!("{name}: pass@{} = {}", index + 1, cell(Some(*value))),
                None => format!("{name}: pass@{} needs {} attempts", index + 1, index + 1),
            },
        })
        .collect();
    bars::draw(&format!("pass@k against k: {name}"), &columns, page);
    if !attempts.is_empty() {
        page.raw("<p class=\"attempts\">attempts: ");
        for attempt in attempts {
            link(attempt, page);
            page.raw(" ");
        }
        page.raw("</p>");
    }
    page.raw("</div>");
}

fn link(attempt: &AttemptLink, page: &mut Html) {
    let outcome = match (attempt.passed, attempt.suspect) {
        (true, true) => "suspect",
        (true, false) => "pass",
        (false, _) => "fail",
    };
    let label = format!("#{} {outcome}", attempt.attempt);
    let about = format!(
        "{} attempt {}: {outcome}, stop {}, {} turn(s), {} tokens",
        attempt.task, attempt.attempt, attempt.stop, attempt.turns, attempt.tokens
    );
    let class = if attempt.passed && !attempt.suspect {
        "attempt pass"
    } else {
        "attempt fail"
    };
    match &attempt.href {
        Ok(href) => {
            page.raw("<a")
                .attr("class", class)
                .attr("href", href)
                .attr("title", &about)
                .raw(">")
                .text(&label)
                .raw("</a>");
        }
        Err(problem) => {
            page.raw("<span")
                .attr("class", "attempt missing")
                .attr("title", &format!("{about}; no page: {problem}"))
                .raw(">")
                .text(&label)
                .raw("</span>");
        }
    }
}

fn cost(costs: &Costs, page: &mut Html) {
    let solved = costs.tasks_solved();
    let summary = match costs.per_solved_task() {
        Some(per) => format!(
            "{solved} of {} task(s) solved: {} per solved task.",
            costs.tasks.len(),
            spent(per)
        ),
        None => "no task solved: no cost per solved task.".to_owned(),
    };
    page.element("p", "", &summary);
    // In the same units as the lines around it (not the text report's minutes).
    let per_attempt = match costs.per_passing_attempt() {
        Some(per) => format!("{} per passing attempt", spent(per)),
        None => "no attempt passed".to_owned(),
    };
    page.element(
        "p",
        "dim",
        &format!(
            "In all {} tokens and {} (model + tools + tests, from the results lines); {per_attempt}.",
            costs.tokens,
            duration(costs.ms)
        ),
    );
    page.raw("<table class=\"numbers cost\"><thead><tr>");
    for heading in [
        "task",
        "attempts",
        "passed",
        "tokens",
        "time",
        "per passing attempt",
    ] {
        page.element("th", "", heading);
    }
    page.raw("</tr></thead><tbody>");
    for task in &costs.tasks {
        page.raw("<tr>")
            .element("td", "name", &task.task)
            .element("td", "", &task.attempts.to_string())
            .element("td", "", &task.passed.to_string())
            .element("td", "", &task.tokens.to_string())
            .element("td", "", &duration(task.ms))
            .element(
                "td",
                "",
                &task
                    .per_passing_attempt()
                    .map_or_else(|| "not solved".to_owned(), spent),
            )
            .raw("</tr>");
    }
    page.raw("</tbody></table>");
}

fn spent(per: PerSolved) -> String {
    format!(
        "{:.0} tokens, {}",
        per.tokens,
        duration(per.ms.round() as u64)
    )
}

/// Seconds under a minute, else minutes: a suite's cost runs to hours.
fn duration(ms: u64) -> String {
    if ms < 60_000 {
        seconds(ms)
    } else {
        format!("{:.1} min", ms as f64 / 60_000.0)
    }
}

#[cfg(test)]
#[path = "page_tests.rs"]
mod tests;
