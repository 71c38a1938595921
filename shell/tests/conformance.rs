//! `mend conformance` on a small capture folder written here: each stream is judged against an
//! independent reading of its bytes.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

mod common;

use common::mend;

fn captures(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ollama")).unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join("ollama").join(name), body).unwrap();
    }
    dir
}

const TEXT: &str = concat!(
    r#"{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}"#,
    "\n",
    r#"{"message":{"role":"assistant","content":"Hi"},"done":false}"#,
    "\n",
    r#"{"message":{"role":"assistant","content":"!"},"done_reason":"stop","done":true,"eval_count":2}"#,
    "\n"
);

const SAME_INDEX: &str = concat!(
    r#"{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","function":{"index":0,"name":"f","arguments":{"x":1}}}]},"done":false}"#,
    "\n",
    r#"{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_b","function":{"index":0,"name":"g","arguments":{}}}]},"done":true,"done_reason":"stop"}"#,
    "\n"
);

const ERROR_MID_STREAM: &str = concat!(
    r#"{"message":{"role":"assistant","content":"so"},"done":false}"#,
    "\n",
    r#"{"error":"an error was encountered while running the model"}"#,
    "\n"
);

#[test]
fn every_capture_is_read_as_the_server_meant_it() {
    let dir = captures(&[
        ("a_text.ndjson", TEXT),
        ("b_same_index.ndjson", SAME_INDEX),
        ("c_error_mid_stream.ndjson", ERROR_MID_STREAM),
        (
            "d_error_400.json",
            r#"{"error":"gemma3:1b does not support tools"}"#,
        ),
        ("d_error_400.request.json", r#"{"model":"gemma3:1b"}"#),
    ]);
    let outcome = mend(&["conformance", dir.path().to_str().unwrap()]);
    assert_eq!(
        outcome.stdout,
        "ok   a_text.ndjson: content 3 chars, thinking 2 chars, calls [], stop assistant_finished\n\
         ok   b_same_index.ndjson: content 0 chars, thinking 0 chars, calls [f, g], stop max_turns\n\
         ok   c_error_mid_stream.ndjson: content 2 chars, thinking 0 chars, calls [], stop model_error\n\
         ok   d_error_400.json: content 0 chars, thinking 0 chars, calls [], stop model_error\n\
         4 captures, 4 as the server meant, 0 not\n"
    );
    assert_eq!(outcome.code, 0);
}

#[test]
fn a_capture_that_cannot_be_read_fails_the_run() {
    let dir = captures(&[("broken.ndjson", "{\"message\":\n")]);
    let outcome = mend(&["conformance", dir.path().to_str().unwrap()]);
    assert_eq!(outcome.code, 1);
    assert!(
        outcome
            .stdout
            .starts_with("FAIL broken.ndjson: the capture itself is not NDJSON"),
        "{}",
        outcome.stdout
    );
}
