//! The page of a real eval (two tasks, k = 4, the scripted model): in chromium, its table is the
//! text report's cell for cell, its bars stand at the exact pass@k, and each attempt links to
//! its own `mend show` page, which links back; a rerun after attempts changed removes the pages
//! no longer linked.

use std::path::PathBuf;

use crate::page_layout::{expected_bars, text_table, EvalPage};
use crate::server::{SeededServer, TURN_TOKENS};
use crate::{fixes, suite_folder};

#[test]
fn the_page_of_a_real_eval_holds_the_text_reports_numbers_and_every_attempts_page() {
    let server = SeededServer::start(fixes());
    let dir = suite_folder(&server.base);
    let suite = dir.path().join("suite.toml").display().to_string();
    let out = dir.path().join("out").display().to_string();
    let ran = crate::common::mend(&["eval", &suite, "--out", &out, "--jobs", "2"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    let text = crate::common::mend(&["eval", "report", &out]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let page = dir.path().join("report/index.html");
    let html = crate::common::mend(&["eval", "report", &out, "--html", page.to_str().unwrap()]);
    assert_eq!(
        (html.code, html.stderr.as_str()),
        (0, ""),
        "the records are all there"
    );
    // The text report, then one line about the pages.
    assert_eq!(
        html.stdout
            .strip_prefix(&text.stdout)
            .map(|rest| rest.lines().count()),
        Some(1),
        "{}",
        html.stdout
    );

    let eval = EvalPage::load(&page);
    assert_eq!(
        eval.loaded.requests,
        vec![format!("file://{}", page.display())]
    );
    assert_eq!(eval.loaded.problems, Vec::<String>::new());
    assert_eq!(eval.table(), text_table(&text.stdout));
    // Why attempts failed: the page says what the text says.
    let why = text
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("why: "))
        .expect("the text report says why attempts failed");
    assert_eq!(
        (
            why,
            std::fs::read_to_string(&page)
                .expect("page")
                .contains(&format!("All tasks: {why}."))
        ),
        (
            "5 failed: assistant_finished 5; 5 claimed success but the tests failed",
            true
        )
    );
    assert_eq!(
        eval.table()[1..],
        [
            ["paginate", "4", "1", "0.250", "0.500", "0.750", "1.000"],
            ["sample", "4", "2", "0.500", "0.833", "1.000", "1.000"],
            ["mean", "8", "3", "0.375", "0.667", "0.875", "1.000"],
        ]
        .map(|row| row.map(str::to_owned).to_vec())
    );
    assert_eq!(
        eval.cards(),
        vec![
            (
                "mean over tasks".to_owned(),
                expected_bars(&[Some(0.375), Some(2.0 / 3.0), Some(0.875), Some(1.0)])
            ),
            (
                "paginate".to_owned(),
                expected_bars(&[Some(0.25), Some(0.5), Some(0.75), Some(1.0)])
            ),
            (
                "sample".to_owned(),
                expected_bars(&[Some(0.5), Some(5.0 / 6.0), Some(1.0), Some(1.0)])
            ),
        ]
    );
    // paginate repairs on attempt 0, sample on even attempts.
    let outcomes = |passes: [bool; 4]| -> Vec<String> {
        passes
            .iter()
            .enumerate()
            .map(|(n, pass)| format!("#{n} {}", if *pass { "pass" } else { "fail" }))
            .collect()
    };
    assert_eq!(
        eval.attempts(),
        vec![
            vec![],
            outcomes([true, false, false, false]),
            outcomes([true, false, true, false]),
        ]
    );
    let attempts = dir.path().join("report/attempts");
    let expected_links: Vec<PathBuf> = ["paginate", "sample"]
        .iter()
        .flat_map(|task| (0..4).map(move |n| format!("{task}-{n}.html")))
        .map(|name| attempts.join(name))
        .collect();
    assert_eq!(eval.links(), expected_links);
    // Each is the attempt's own `mend show` page: the same bytes `mend show --html` writes, with
    // a link back to the report above its heading.
    let shown = dir.path().join("sample-2.html");
    let show = crate::common::mend(&[
        "show",
        &format!("{out}/sample/2.json"),
        "--html",
        shown.to_str().unwrap(),
    ]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    let back = "<nav class=\"back\"><a href=\"../index.html\">← the report</a> · sample attempt 2</nav><h1>";
    assert_eq!(
        std::fs::read_to_string(&expected_links[6]).unwrap(),
        std::fs::read_to_string(&shown)
            .unwrap()
            .replacen("<h1>", back, 1)
    );
    let attempt = EvalPage::load(&expected_links[6]);
    assert_eq!(
        (attempt.links(), attempt.loaded.problems.clone()),
        (vec![page.clone()], Vec::<String>::new())
    );

    // Three passing attempts over two solved tasks: 11 turns' tokens in all.
    let cost = format!(
        "2 of 2 task(s) solved: {:.0} tokens, ",
        (11 * TURN_TOKENS) as f64 / 2.0
    );
    assert!(eval.text().contains(&cost), "{}", eval.text());
    // The digest is a fact; the title is the model's name.
    assert_eq!(
        eval.loaded.inspected["title"],
        format!("mend eval: {}", crate::server::MODEL)
    );

    // Fewer attempts, and a task renamed: a rerun removes the pages it no longer links, and
    // nothing else in the folder.
    let results = std::path::Path::new(&out).join("results.jsonl");
    let kept: String = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .filter(|line| !line.contains("\"task\":\"paginate\",\"attempt\":3,"))
        .map(|line| line.replace("\"task\":\"sample\"", "\"task\":\"sample-renamed\"") + "\n")
        .collect();
    std::fs::write(&results, kept).unwrap();
    std::fs::write(attempts.join("notes-1.html"), "<p>mine</p>").unwrap();
    std::fs::write(attempts.join("README"), "mine").unwrap();
    let again = crate::common::mend(&["eval", "report", &out, "--html", page.to_str().unwrap()]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stdout.lines().last().unwrap_or(""),
        format!(
            "Wrote {} ({} KB) and 7 attempt page(s) in {} (and removed 5 old attempt page(s) it no longer links): open it in any browser; it loads nothing.",
            page.display(),
            std::fs::metadata(&page).unwrap().len().div_ceil(1024),
            attempts.display()
        )
    );
    let mut left: Vec<String> = std::fs::read_dir(&attempts)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut expected_left: Vec<String> = ["README", "notes-1.html"]
        .iter()
        .map(|name| name.to_string())
        .chain((0..3).map(|n| format!("paginate-{n}.html")))
        .chain((0..4).map(|n| format!("sample-renamed-{n}.html")))
        .collect();
    expected_left.sort();
    assert_eq!(left, expected_left);
}
