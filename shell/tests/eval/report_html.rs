//! `mend eval report --html` pages in a real browser (Debian's chromium, headless): results files
//! with hostile task and model names render as text and run nothing, the pages load nothing,
//! every link leads to an attempt page mend wrote in the attempts folder (and nowhere else) and
//! each of those links back to the report, and the pass@k bars stand where their values say. The
//! same page of a real eval is in `page.rs`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::browser::{assert_inert, load};
use crate::common::{mend, repo_root};
use crate::page_layout::{expected_bars, EvalPage};
use serde_json::json;

/// The markup of a report's page beyond what every page of mend's holds.
const ELEMENTS: [&str; 3] = ["thead", "a", "span"];
const ATTRIBUTES: [&str; 4] = ["data-column", "data-value", "href", "title"];

/// Everything a results file can carry into a name, at once (and a way out of a folder).
const PAYLOADS: [&str; 6] = [
    "</a><script>console.error('pwned-1')</script>",
    "<img src=x onerror=\"console.error('pwned-2')\">",
    "]]><!-- <svg onload=console.error('pwned-3')> -->",
    "\" onmouseover=\"console.error('pwned-4')\" href=\"http://127.0.0.1:9/\"",
    "../../escaped",
    "<style>*{background:url(http://127.0.0.1:9/css)}</style>",
];

fn row(task: &str, attempt: u32, passed: bool, record: &str, digest: &str) -> String {
    json!({
        "task": task, "attempt": attempt, "seed": attempt, "stop": "assistant_finished",
        "passed": passed, "turns": 2, "tokens": 240, "model_ms": 1000, "tool_ms": 100,
        "test_ms": 900, "record": record, "suite_sha256": "s", "task_file_sha256": "t",
        "repo_sha256": "r", "model": digest, "model_digest": digest, "k": 3
    })
    .to_string()
        + "\n"
}

fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.insert(path);
        }
    }
    found
}

#[test]
fn hostile_results_render_as_text_and_every_link_is_an_attempt_page_mend_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (out, site) = (root.join("out"), root.join("site"));
    let hostile = PAYLOADS.join(" | ");
    fs::create_dir_all(out.join("h")).unwrap();
    for attempt in 0..3 {
        fs::copy(
            repo_root().join("fixtures/repair.json"),
            out.join(format!("h/{attempt}.json")),
        )
        .unwrap();
    }
    fs::copy(
        repo_root().join("fixtures/repair.json"),
        root.join("outside.json"),
    )
    .unwrap();
    // Three attempts with records; one whose record is gone; one whose record path leaves the
    // folder (the file exists, but mend must not read it).
    let results: String = [
        row(&hostile, 0, true, "h/0.json", &hostile),
        row(&hostile, 1, false, "h/1.json", &hostile),
        row(&hostile, 2, true, "h/2.json", &hostile),
        row("plain", 0, false, "plain/0.json", &hostile),
        row("plain", 1, false, "../outside.json", &hostile),
    ]
    .concat();
    fs::write(out.join("results.jsonl"), results).unwrap();

    let page = site.join("report.html");
    let outcome = mend(&[
        "eval",
        "report",
        out.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    assert_eq!(
        outcome.stderr.trim_end(),
        format!(
            "mend: 2 attempt(s) have no page, e.g. plain attempt 0: cannot read the record {}: No such file or directory (os error 2) — keep each --out folder whole (the records beside its results files)",
            out.join("plain/0.json").display()
        )
    );

    let eval = EvalPage::load(&page);
    assert_inert(&eval.loaded, &page, &ELEMENTS, &ATTRIBUTES);
    assert_eq!(
        eval.loaded.inspected["title"],
        json!(format!("mend eval: {hostile}"))
    );
    for payload in PAYLOADS {
        assert!(
            eval.text().matches(payload).count() >= 5,
            "{payload} is not shown as text everywhere"
        );
    }

    // Every link is one of the three attempt pages, in the attempts folder beside the page; mend
    // wrote nothing else anywhere.
    let links = eval.links();
    let attempt_pages: BTreeSet<PathBuf> = files_under(&site.join("attempts"));
    assert_eq!(
        links.iter().cloned().collect::<BTreeSet<_>>(),
        attempt_pages
    );
    assert_eq!(links.len(), 3);
    let mut written = files_under(&root);
    written.retain(|path| !path.starts_with(&out));
    let expected: BTreeSet<PathBuf> = [page.clone(), root.join("outside.json")]
        .into_iter()
        .chain(attempt_pages.iter().cloned())
        .collect();
    assert_eq!(written, expected);
    assert_eq!(
        eval.attempts(),
        vec![
            vec![],
            vec![
                "#0 pass".to_owned(),
                "#1 fail".to_owned(),
                "#2 pass".to_owned()
            ],
            vec!["#0 fail".to_owned(), "#1 fail".to_owned()],
        ]
    );

    // pass@k of the hostile task (n 3, c 2): 2/3, 1, 1; of plain (n 2, c 0): 0, 0, and no
    // pass@3 (a dash, no bar); their mean, which has no pass@3 either.
    let third = 2.0 / 3.0;
    assert_eq!(
        eval.cards(),
        vec![
            (
                "mean over tasks".to_owned(),
                expected_bars(&[Some(third / 2.0), Some(0.5), None])
            ),
            (
                hostile.clone(),
                expected_bars(&[Some(third), Some(1.0), Some(1.0)])
            ),
            (
                "plain".to_owned(),
                expected_bars(&[Some(0.0), Some(0.0), None])
            ),
        ]
    );

    // An attempt's page is an ordinary `mend show` page: it too loads and runs nothing. It links
    // back to the report, and names the attempt as text.
    let first = links.first().unwrap();
    let shown = load(first, "JSON.stringify({elements: [], attributes: []})");
    assert_inert(&shown, first, &[], &[]);
    let back = || {
        let attempt = EvalPage::load(first);
        assert_eq!(attempt.loaded.problems, Vec::<String>::new());
        let named = format!("← the report · {hostile} attempt 0");
        (attempt.links(), attempt.text().contains(&named))
    };
    assert_eq!(back(), (vec![page.clone()], true));

    // A report named with what ends an attribute, starts a tag, a fragment and a query: the link
    // back still names that file, and only it.
    let odd = site.join("\"><img src=x onerror=alert(1)> #1?%.html");
    let again = mend(&[
        "eval",
        "report",
        out.to_str().unwrap(),
        "--html",
        odd.to_str().unwrap(),
    ]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(back(), (vec![odd.clone()], true));
}

#[test]
fn a_page_that_cannot_be_written_or_asked_for_with_json_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(&out).unwrap();
    fs::write(
        out.join("results.jsonl"),
        row("plain", 0, true, "plain/0.json", "m"),
    )
    .unwrap();
    let file = dir.path().join("a-file");
    fs::write(&file, "").unwrap();
    let out = out.to_str().unwrap();
    let beside_a_file = file.join("index.html");
    let unwritable = mend(&[
        "eval",
        "report",
        out,
        "--html",
        beside_a_file.to_str().unwrap(),
    ]);
    let both = mend(&["eval", "report", out, "--json", "--html", "x.html"]);
    assert_eq!(
        (
            unwritable.code,
            unwritable.stderr.trim_end().to_owned(),
            both.code,
            both.stderr.lines().next().unwrap_or("").to_owned()
        ),
        (
            6,
            format!(
                "mend: error: cannot create {}/attempts for the attempts' pages: Not a directory (os error 20) — give --html a path in a folder you can write",
                file.display()
            ),
            2,
            "error: the argument '--json' cannot be used with '--html <OUT>'".to_owned()
        )
    );
}
