//! Tests of `render`.

use serde_json::json;

use super::{message_line, short_arguments, short_result, tests_text, verdict_line, window_text};
use crate::verdict::check::TestRun;
use crate::verdict::read::summary::Summary;

#[test]
fn the_verdict_line_names_the_sandbox_it_rests_on() {
    assert_eq!(
        [
            verdict_line(true, "bwrap", None),
            verdict_line(true, "network-namespace", Some(true)),
            verdict_line(false, "none", Some(false)),
        ],
        [
            "Verdict: PASS (the final tests pass, sandbox bwrap)".to_owned(),
            "Verdict: PASS (the final tests pass, sandbox network-namespace: the tests could write outside the copy); the replay matched its record".to_owned(),
            "Verdict: FAIL (for the reasons below, sandbox none: the tests could write outside the copy); the replay did NOT match its record".to_owned(),
        ]
    );
}

#[test]
fn a_failing_verdict_names_ten_failing_tests_and_shows_the_end_of_the_output() {
    let run = TestRun {
        exit_code: Some(1),
        summary: Some(Summary {
            passed: 3,
            failed: 12,
            ..Summary::default()
        }),
        failing: (1..=12)
            .map(|n| format!("tests/test_t.py::test_{n:02}"))
            .collect(),
        output_tail: Some((1..=30).map(|n| format!("line {n}\n")).collect()),
        ..TestRun::default()
    };
    let shown_names: String = (1..=10)
        .map(|n| format!("\n    tests/test_t.py::test_{n:02}"))
        .collect();
    let shown_output: String = (6..=30).map(|n| format!("\n    │ line {n}")).collect();
    assert_eq!(
        tests_text("Independent final tests", &run, true),
        format!(
            "Independent final tests: 12 failed · 3 passed\n  failing:{shown_names}\n    and 2 more\n  the end of the output:{shown_output}"
        )
    );
    assert_eq!(
        tests_text("Starting tests", &run, false),
        format!("Starting tests: 12 failed · 3 passed\n  failing:{shown_names}\n    and 2 more")
    );
    let passing = TestRun {
        exit_code: Some(0),
        summary: Some(Summary {
            passed: 4,
            ..Summary::default()
        }),
        ..TestRun::default()
    };
    assert_eq!(
        tests_text("Independent final tests", &passing, true),
        "Independent final tests: 4 passed"
    );
}

#[test]
fn human_output_shortens_long_arguments_and_summarises_results() {
    let Some(arguments) = json!({"path": "a.py", "text": "x".repeat(500)})
        .as_object()
        .cloned()
    else {
        panic!("an object")
    };
    assert_eq!(
        short_arguments(&arguments),
        format!(
            r#"{{"path":"a.py","text":"{}… (500 characters)"}}"#,
            "x".repeat(60)
        )
    );
    let results = [
        short_result(
            "write_file",
            &json!({"path": "a.py", "bytes": 500, "created": true}),
        ),
        short_result(
            "list_files",
            &json!({"files": [], "total": 250, "truncated": true}),
        ),
        short_result(
            "grep",
            &json!({"matches": "", "count": 3, "truncated": false}),
        ),
        short_result("grep", &json!({"error": "bad pattern"})),
    ];
    assert_eq!(
        results,
        [
            "wrote a.py (500 bytes)",
            "250 files, truncated",
            "3 matches",
            "error: bad pattern"
        ]
    );
}

#[test]
fn a_message_heading_says_what_was_asked_on_one_line() {
    let long = format!("{}\nsecond line", "x".repeat(120));
    assert_eq!(
        [
            message_line(
                1,
                Some("frequencies() counts every item as 1; fix it"),
                false
            ),
            message_line(2, None, false),
            message_line(3, Some("now also check countby"), true),
            message_line(4, Some("fix it\nand say why"), false),
            message_line(5, Some(&long), true),
        ],
        [
            "══ message 1: frequencies() counts every item as 1; fix it ══".to_owned(),
            "══ message 2: goes on from where the one before stopped ══".to_owned(),
            "══ message 3, live: now also check countby ══".to_owned(),
            "══ message 4: fix it… ══".to_owned(),
            format!("══ message 5, live: {}… ══", "x".repeat(100)),
        ]
    );
}

#[test]
fn the_window_line_says_what_the_first_request_costs() {
    let why = "the window the server states";
    assert_eq!(
        [
            window_text(8192, why, Some(1229), false),
            window_text(8192, why, Some(1229), true),
            window_text(8192, why, None, false),
        ],
        [
            "Context window: 8192 tokens, the num_ctx of every request (the window the server states)\n\
             First request: about 1229 tokens (15 % of the window; a conservative estimate)"
                .to_owned(),
            "Context window: 8192 tokens, the num_ctx of every request (the window the server states)\n\
             Before your first message: about 1229 tokens (the system prompt, the instructions and \
             the tools: 15 % of the window; a conservative estimate)"
                .to_owned(),
            "Context window: 8192 tokens, the num_ctx of every request (the window the server states)"
                .to_owned(),
        ]
    );
}
