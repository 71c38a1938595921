//! The eval's page on reports built here: the text report's numbers cell for cell, the cost
//! when nothing passed, and results-file text that never becomes markup.

use super::*;
use crate::eval::report::{render, report};
use crate::eval::results::Row;

fn row(task: &str, attempt: u32, passed: bool, digest: &str) -> Row {
    Row {
        tokens: 120,
        model_ms: 2000,
        tool_ms: 500,
        test_ms: 1500,
        model: digest.to_owned(),
        model_digest: digest.to_owned(),
        k: 3,
        ..Row::example(task, attempt, passed)
    }
}

fn page_of(rows: &[Row]) -> String {
    let report = report(rows);
    let costs = Costs::of(rows);
    let attempts: Vec<AttemptLink> = rows
        .iter()
        .map(|row| AttemptLink {
            task: row.task.clone(),
            attempt: row.attempt,
            passed: row.passed,
            suspect: row.suspect,
            stop: row.stop.clone(),
            turns: row.turns,
            tokens: row.tokens,
            href: Ok(format!("attempts/{}-{}.html", row.task, row.attempt)),
        })
        .collect();
    eval_page(&EvalPage {
        report: &report,
        costs: &costs,
        attempts: &attempts,
        sources: &[Utf8PathBuf::from("out")],
    })
}

/// The cells of every row of the page's table of class `numbers KIND` (`passk`, `why`), tags
/// stripped and references undone.
fn table_cells(page: &str, kind: &str) -> Vec<Vec<String>> {
    let table = page
        .split(&format!("<table class=\"numbers {kind}\">"))
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("the table");
    table
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("</t")
                .filter_map(|cell| cell.rsplit('>').next())
                .filter(|cell| !cell.is_empty())
                .map(|cell| cell.replace("&lt;", "<").replace("&amp;", "&"))
                .collect()
        })
        .collect()
}

#[test]
fn the_table_holds_the_text_reports_numbers_cell_for_cell() {
    let rows = [
        row("alpha", 0, true, "m"),
        row("alpha", 1, false, "m"),
        row("alpha", 2, true, "m"),
        row("beta", 0, false, "m"),
        row("beta", 1, true, "m"),
    ];
    let text = render(&report(&rows));
    // The text's table: its second line (the header) to the line before `cost:`.
    let expected: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with("cost:") && !line.starts_with("why:"))
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect();
    assert_eq!(table_cells(&page_of(&rows), "passk"), expected);
    assert_eq!(
        expected,
        [
            vec!["task", "n", "c", "pass@1", "pass@2", "pass@3"],
            vec!["alpha", "3", "2", "0.667", "1.000", "1.000"],
            vec!["beta", "2", "1", "0.500", "1.000", "-"],
            vec!["mean", "5", "3", "0.583", "1.000", "-"],
        ]
    );
}

#[test]
fn flaky_tasks_are_listed_apart_below_the_mean_on_the_page_as_in_the_text() {
    let flaky = |attempt, passed| Row {
        flaky: true,
        ..row("coin", attempt, passed, "m")
    };
    let rows = [
        row("alpha", 0, true, "m"),
        row("alpha", 1, false, "m"),
        flaky(0, true),
        flaky(1, true),
    ];
    let cells = table_cells(&page_of(&rows), "passk");
    let heading = "flaky tasks (their tests flip between runs of the same tree; not in the mean)";
    assert_eq!(
        cells,
        [
            vec!["task", "n", "c", "pass@1", "pass@2", "pass@3"],
            vec!["alpha", "2", "1", "0.500", "1.000", "-"],
            vec!["mean", "2", "1", "0.500", "1.000", "-"],
            vec![heading],
            vec!["coin", "2", "2", "1.000", "1.000", "-"],
        ]
    );
    assert!(render(&report(&rows)).contains(&format!(
        "{heading}:\ncoin                        2    2     1.000   1.000       -\n"
    )));
}

#[test]
fn with_nothing_passed_the_page_says_no_task_solved() {
    let page = page_of(&[row("alpha", 0, false, "m"), row("alpha", 1, false, "m")]);
    let paragraphs: Vec<&str> = page
        .split("<h2>Cost per solved task</h2>")
        .nth(1)
        .expect("the cost section")
        .split("<p")
        .skip(1)
        .filter_map(|paragraph| paragraph.split('>').nth(1))
        .map(|text| text.trim_end_matches("</p"))
        .collect();
    assert_eq!(
        paragraphs,
        [
            "no task solved: no cost per solved task.",
            "In all 240 tokens and 8.0 s (model + tools + tests, from the results lines); no attempt passed."
        ]
    );
}

#[test]
fn names_from_results_files_are_text_never_markup() {
    let hostile = "</a><script>alert(1)</script><img src=x onerror=alert(2)>\"'";
    let page = page_of(&[
        row(hostile, 0, true, hostile),
        row(hostile, 1, false, hostile),
    ]);
    let escaped = crate::page::html::escape(hostile);
    assert_eq!(
        (
            page.contains("<script"),
            page.contains("<img"),
            page.contains("onerror=alert(2)>"),
            page.matches(escaped.as_str()).count() >= 8,
        ),
        (false, false, false, true)
    );
}

/// The text between `<tag…>` and `</tag>`, for each such element.
fn elements<'p>(page: &'p str, tag: &str) -> Vec<&'p str> {
    page.split(&format!("<{tag}"))
        .skip(1)
        .filter_map(|rest| rest.split_once('>'))
        .filter_map(|(_, rest)| rest.split(&format!("</{tag}>")).next())
        .collect()
}

#[test]
fn the_title_names_the_model_and_only_the_facts_hold_its_digest_shortened() {
    let digest = "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41";
    let named = |model: &str| Row {
        model: model.to_owned(),
        ..row("alpha", 0, true, digest)
    };
    let pages = [page_of(&[named("qwen3:8b")]), page_of(&[named("")])];
    // The document's title (the charts' SVG titles follow it).
    let seen: Vec<(Vec<&str>, Vec<&str>, &str, bool)> = pages
        .iter()
        .map(|page| {
            (
                elements(page, "title")[..1].to_vec(),
                elements(page, "h1"),
                elements(page, "p")[0].split(". ").next().unwrap_or(""),
                page.contains(digest),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                vec!["mend eval: qwen3:8b"],
                vec!["mend eval: qwen3:8b"],
                "Model qwen3:8b (digest 500a1f067a9f)",
                false
            ),
            (
                vec!["mend eval: model 500a1f067a9f"],
                vec!["mend eval: model 500a1f067a9f"],
                "Model digest 500a1f067a9f",
                false
            ),
        ]
    );
    assert_eq!(
        render(&report(&[named("qwen3:8b")]))
            .lines()
            .next()
            .map(|line| line.split("  suite").next()),
        Some(Some("model qwen3:8b (digest 500a1f067a9f)"))
    );
}

#[test]
fn the_page_and_the_text_report_name_the_cost_per_passing_attempt_alike() {
    let rows = [row("alpha", 0, true, "m"), row("alpha", 1, false, "m")];
    let text = render(&report(&rows));
    let page = page_of(&rows);
    assert_eq!(
        (
            text.lines().last(),
            elements(&page, "p")
                .into_iter()
                .filter(|paragraph| paragraph.contains("per passing attempt"))
                .collect::<Vec<_>>(),
            elements(&page, "th").last().copied(),
            [&text, &page].map(|said| said.contains("solved attempt")),
        ),
        (
            Some("cost: 240 tokens, 0.13 minutes in all; 240 tokens and 0.13 minutes per passing attempt"),
            vec!["In all 240 tokens and 8.0 s (model + tools + tests, from the results lines); 240 tokens, 8.0 s per passing attempt."],
            Some("per passing attempt"),
            [false, false]
        )
    );
}

#[test]
fn the_page_and_the_text_report_say_why_attempts_failed_alike() {
    let rows = [
        Row {
            stop: "max_turns".to_owned(),
            why: crate::eval::why::Why {
                invalid_calls: 1,
                ..Default::default()
            },
            ..row("alpha", 0, false, "m")
        },
        row("alpha", 1, false, "m"),
        Row {
            why: crate::eval::why::Why {
                warning: Some("no protected test file".to_owned()),
                ..Default::default()
            },
            ..row("beta", 0, true, "m")
        },
        Row {
            suspect: true,
            ..row("beta", 1, true, "m")
        },
    ];
    let text = render(&report(&rows));
    let page = page_of(&rows);
    let why_table = table_cells(&page, "why");
    let why_lines: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("why:") || line.starts_with("  "))
        .collect();
    assert_eq!(
        (why_lines, why_table),
        (
            vec![
                "why: 2 failed: assistant_finished 1, max_turns 1; 1 claimed success but the tests failed; 1 with calls that fit no tool; 1 suspect pass(es), not counted (the change reaches into the test run); 1 pass(es) with a warning",
                "  alpha                  2 failed: assistant_finished 1, max_turns 1; 1 claimed success but the tests failed; 1 with calls that fit no tool",
                "  beta                   none failed; 1 suspect pass(es), not counted (the change reaches into the test run); 1 pass(es) with a warning",
            ],
            [
                vec!["task", "failed", "stops", "claimed success, tests failed", "calls that fit no tool", "calls a tool refused or failed", "suspect passes, not counted", "passes with a warning"],
                vec!["alpha", "2", "assistant_finished 1, max_turns 1", "1", "1", "0", "0", "0"],
                vec!["beta", "0", "0", "0", "0", "1", "1"],
                vec!["all", "2", "assistant_finished 1, max_turns 1", "1", "1", "0", "1", "1"],
            ]
            .map(|row| row.into_iter().map(str::to_owned).collect::<Vec<_>>())
            .to_vec()
        )
    );
}

#[test]
fn a_suspect_pass_is_linked_as_suspect_and_left_out_of_the_passes() {
    let rows = [
        row("a", 0, true, "m"),
        Row {
            suspect: true,
            ..row("a", 1, true, "m")
        },
    ];
    let page = page_of(&rows);
    let labels: Vec<&str> = page
        .split("class=\"attempt ")
        .skip(1)
        .filter_map(|link| link.split_once("</a>"))
        .filter_map(|(link, _)| link.rsplit('>').next())
        .collect();
    assert_eq!(labels, ["#0 pass", "#1 suspect"]);
    assert_eq!(report(&rows).passed, 1);
}
