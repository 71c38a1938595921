//! The families people run on their own machines (Gemma 4, GLM, MiniMax-M2, Nemotron, Seed-OSS,
//! Hunyuan, Phi-4-mini, the pythonic lists of Llama 4, OLMo 3 and LFM2, Kimi K2): each read from
//! its exact text, prose that only mentions a tool left alone, and a broken call seen as an
//! attempt.

use serde_json::json;

use super::test_support::{read, tools};
use super::TextCallFormat::*;
use super::*;

fn one(
    name: &str,
    arguments: serde_json::Value,
    format: TextCallFormat,
    text: &str,
) -> Option<test_support::Read> {
    Some(vec![(name.to_owned(), arguments, format, text.to_owned())])
}

fn attempted(text: &str) -> bool {
    repair::attempted(text, &Signs::of(text), &tools())
}

#[test]
fn gemma4_writes_bare_keys_and_marked_strings() {
    let text =
        "<|tool_call>call:read_file{path:<|\"|>src/a \"b\".py<|\"|>,start_line:3}<tool_call|>";
    assert_eq!(
        read(text),
        one(
            "read_file",
            json!({"path": "src/a \"b\".py", "start_line": 3}),
            Gemma4,
            text
        )
    );
    let two = "I'll look first.\n<|tool_call>call:read_file{path:<|\"|>a.py<|\"|>}<tool_call|><|tool_call>call:run_tests{}<tool_call|>";
    assert_eq!(
        read(two),
        Some(vec![
            (
                "read_file".to_owned(),
                json!({"path": "a.py"}),
                Gemma4,
                "<|tool_call>call:read_file{path:<|\"|>a.py<|\"|>}<tool_call|>".to_owned()
            ),
            (
                "run_tests".to_owned(),
                json!({}),
                Gemma4,
                "<|tool_call>call:run_tests{}<tool_call|>".to_owned()
            ),
        ])
    );
    // A string holding what looks like a key, a comma and a newline stays one string.
    let tricky = "<|tool_call>call:read_file{path:<|\"|>x,start_line:9\n<|\"|>}<tool_call|>";
    assert_eq!(
        read(tricky),
        one(
            "read_file",
            json!({"path": "x,start_line:9\n"}),
            Gemma4,
            tricky
        )
    );
}

#[test]
fn gemma4_thinking_left_in_the_text_is_not_left_around_its_calls() {
    let call = "<|tool_call>call:run_tests{}<tool_call|>";
    let text = format!(
        "<|channel>thought\nA <tool_call> would be wrong here; {call} is right.<channel|>{call}"
    );
    assert_eq!(read(&text), one("run_tests", json!({}), Gemma4, call));
    // Without its close, the thought is text like any other, and its marker makes it ambiguous.
    let open = format!("<|channel>thought\nuse <tool_call> {call}");
    assert_eq!(read(&open), None);
}

#[test]
fn glm_writes_a_name_and_key_value_pairs_with_or_without_newlines() {
    let glm45 = "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/a.py</arg_value>\n<arg_key>start_line</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";
    assert_eq!(
        read(glm45),
        one(
            "read_file",
            json!({"path": "src/a.py", "start_line": 3}),
            Glm,
            glm45
        )
    );
    let glm47 = "<tool_call>read_file<arg_key>path</arg_key><arg_value>3</arg_value></tool_call>";
    // The schema wants a string: `3` stays text.
    assert_eq!(
        read(glm47),
        one("read_file", json!({"path": "3"}), Glm, glm47)
    );
    let bare = "<tool_call>run_tests</tool_call>";
    assert_eq!(read(bare), one("run_tests", json!({}), Glm, bare));
}

#[test]
fn minimax_writes_invoke_elements_in_one_block() {
    let text = "<minimax:tool_call>\n<invoke name=\"read_file\">\n<parameter name=\"path\">src/a.py</parameter>\n<parameter name=\"start_line\">3</parameter>\n</invoke>\n<invoke name=\"run_tests\">\n</invoke>\n</minimax:tool_call>";
    assert_eq!(
        read(text),
        Some(vec![
            ("read_file".to_owned(), json!({"path": "src/a.py", "start_line": 3}), MiniMax,
             "<invoke name=\"read_file\">\n<parameter name=\"path\">src/a.py</parameter>\n<parameter name=\"start_line\">3</parameter>\n</invoke>".to_owned()),
            ("run_tests".to_owned(), json!({}), MiniMax, "<invoke name=\"run_tests\">\n</invoke>".to_owned()),
        ])
    );
}

#[test]
fn json_lists_after_nemotron_hunyuan_and_phi4_mini_markers() {
    let object = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}";
    for (text, format) in [
        (format!("<TOOLCALL>[{object}]</TOOLCALL>"), ToolCallTags),
        (format!("<tool_calls>[{object}]</tool_calls>"), Hunyuan),
        (format!("functools[{object}]"), Functools),
    ] {
        assert_eq!(
            read(&text),
            one("read_file", json!({"path": "a.py"}), format, object),
            "{text}"
        );
    }
}

#[test]
fn seed_oss_wraps_function_blocks() {
    let text = "<seed:tool_call>\n<function=read_file>\n<parameter=path>src/a.py</parameter>\n<parameter=start_line>3</parameter>\n</function>\n</seed:tool_call>";
    assert_eq!(
        read(text),
        one("read_file", json!({"path": "src/a.py", "start_line": 3}), SeedOss,
            "<function=read_file>\n<parameter=path>src/a.py</parameter>\n<parameter=start_line>3</parameter>\n</function>")
    );
}

#[test]
fn pythonic_lists_bare_or_between_llama4_lfm2_and_olmo3_markers() {
    let bare = "[read_file(path=\"src/a.py\", start_line=3), run_tests()]";
    let both = Some(vec![
        (
            "read_file".to_owned(),
            json!({"path": "src/a.py", "start_line": 3}),
            Pythonic,
            "read_file(path=\"src/a.py\", start_line=3)".to_owned(),
        ),
        (
            "run_tests".to_owned(),
            json!({}),
            Pythonic,
            "run_tests()".to_owned(),
        ),
    ]);
    assert_eq!(read(bare), both);
    assert_eq!(read(&format!("<|python_start|>{bare}<|python_end|>")), both);
    assert_eq!(
        read(&format!(
            "<|tool_call_start|>{bare}<|tool_call_end|>Checking."
        )),
        both
    );
    let olmo3 =
        "<function_calls>read_file(path=\"src/a.py\", start_line=3)\nrun_tests()</function_calls>";
    assert_eq!(read(olmo3), both);
}

#[test]
fn kimi_names_functions_with_an_index() {
    let call = "<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a.py\"}<|tool_call_end|>";
    let text = format!("<|tool_calls_section_begin|>{call}<|tool_calls_section_end|>");
    assert_eq!(
        read(&text),
        one("read_file", json!({"path": "a.py"}), Kimi, call)
    );
}

#[test]
fn prose_that_mentions_a_tool_is_neither_a_call_nor_an_attempt() {
    for prose in [
        // Gemma 4: the word before a name, without arguments.
        "I could call:read_file next, but the file is already open.",
        // GLM: a name on its own line.
        "read_file\nshowed the bug on line 3.",
        // Pythonic: a call written with a bare name as its argument.
        "Next read_file(path) and then run_tests() to see.",
        "The functools module and read_file have nothing in common.",
        // JSON: a quoted name with no object anywhere.
        "The \"read_file\" tool reads a file.",
        // Kimi: an id without its arguments.
        "functions.read_file:0 was enough; tests pass.",
        // MiniMax: the element's words without the element.
        "invoke name read_file once more? No: done.",
        // A longer name that holds an offered one.
        "my_read_file(path=\"a\") is a helper in the repo.",
        // A comparison, not a keyword.
        "read_file(x == 1) is never written.",
    ] {
        assert_eq!((read(prose), attempted(prose)), (None, false), "{prose}");
    }
}

#[test]
fn a_broken_call_in_any_form_is_an_attempt() {
    for broken in [
        // Gemma 4 with its string mark left open.
        "<|tool_call>call:read_file{path:<|\"|>src/a.py}<tool_call|>",
        // GLM with a value left open.
        "<tool_call>read_file<arg_key>path</arg_key><arg_value>a.py</tool_call>",
        "<minimax:tool_call><invoke name=\"read_file\"><parameter name=\"path\">a.py</invoke></minimax:tool_call>",
        "<TOOLCALL>[{\"name\": \"read_file\", \"arguments\": {\"path\": </TOOLCALL>",
        "functools[{\"name\": \"read_file\"",
        // No marker: a name with keyword arguments, or with an object after it.
        "read_file(path=\"src/a.py\"",
        "read_file {\"path\": \"src/a.py\"}",
        "call:read_file{path:\"a.py\"}",
    ] {
        assert_eq!((read(broken), attempted(broken)), (None, true), "{broken}");
    }
}
