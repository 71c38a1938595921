//! `mend conformance` on a small capture folder written here: each stream is judged against an
//! independent reading of its bytes.

use crate::common::mend;

/// A captures folder: each name is `ollama/…` or `openai/…`.
fn captures(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["ollama", "openai"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    dir
}

const SSE_TWO_CALLS_AT_INDEX_ZERO: &str = concat!(
    r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}"#,
    "\n\n",
    r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","index":0,"type":"function","function":{"name":"g","arguments":"{}"}}]}}]}"#,
    "\n\n",
    r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    "\n\ndata: [DONE]\n\n"
);

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
        ("ollama/a_text.ndjson", TEXT),
        ("ollama/b_same_index.ndjson", SAME_INDEX),
        ("ollama/c_error_mid_stream.ndjson", ERROR_MID_STREAM),
        (
            "ollama/d_error_400.json",
            r#"{"error":"gemma3:1b does not support tools"}"#,
        ),
        (
            "ollama/d_error_400.request.json",
            r#"{"model":"gemma3:1b"}"#,
        ),
        ("openai/e_two_calls.sse", SSE_TWO_CALLS_AT_INDEX_ZERO),
        (
            "openai/f_error_401.json",
            r#"{"error":{"message":"Unauthorized","type":"api_error","param":null,"code":null}}"#,
        ),
    ]);
    let outcome = mend(&["conformance", dir.path().to_str().unwrap()]);
    assert_eq!(
        outcome.stdout,
        "ok   ollama/a_text.ndjson: content 3 chars, thinking 2 chars, calls [], stop assistant_finished\n\
         ok   ollama/b_same_index.ndjson: content 0 chars, thinking 0 chars, calls [f, g], stop max_turns\n\
         ok   ollama/c_error_mid_stream.ndjson: content 2 chars, thinking 0 chars, calls [], stop model_error\n\
         ok   ollama/d_error_400.json: content 0 chars, thinking 0 chars, calls [], stop model_error\n\
         ok   openai/e_two_calls.sse: content 0 chars, thinking 0 chars, calls [f, g], stop max_turns\n\
         ok   openai/f_error_401.json: content 0 chars, thinking 0 chars, calls [], stop model_error\n\
         6 captures, 6 as the server meant, 0 not\n"
    );
    assert_eq!(outcome.code, 0);
}

#[test]
fn a_capture_that_cannot_be_read_fails_the_run() {
    let dir = captures(&[("ollama/broken.ndjson", "{\"message\":\n")]);
    let outcome = mend(&["conformance", dir.path().to_str().unwrap()]);
    assert_eq!(outcome.code, 1);
    assert!(
        outcome
            .stdout
            .starts_with("FAIL ollama/broken.ndjson: the capture itself is not NDJSON"),
        "{}",
        outcome.stdout
    );
}
