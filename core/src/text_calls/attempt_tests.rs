//! The general rule for call attempts, tried on forms no reader knows: a reply naming an offered
//! tool with its arguments in any shape is an attempt (so a repair is asked), and prose that only
//! mentions the tool never is.

use super::test_support::{read, tools};
use super::*;

fn attempted(text: &str) -> bool {
    repair::attempted(text, &Signs::of(text), &tools())
}

#[test]
fn a_call_in_a_form_no_reader_knows_is_an_attempt() {
    let mut missed = Vec::new();
    for text in [
        // Anthropic-style XML written as text, without MiniMax's wrapper.
        "<function_calls>\n<invoke name=\"read_file\">\n<parameter name=\"path\">src/a.py</parameter>\n</invoke>\n</function_calls>",
        // Hermes-style with another tag.
        "<function_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.py\"}}</function_call>",
        // A fenced tool_code block with a JSON-ish object after the name.
        "```tool_code\nread_file({\"path\": \"src/a.py\"})\n```",
        // Key/value tags named after the tool (Cline-style).
        "<read_file>\n<path>src/a.py</path>\n</read_file>",
        // ReAct's action lines.
        "Action: read_file\nAction Input: {\"path\": \"src/a.py\"}",
        // Shell-like key=value after the name.
        "read_file path=\"src/a.py\" start_line=3",
        // A special token before the name and an object on the next line.
        "<|call|>read_file\n{\"path\": \"src/a.py\"}",
    ] {
        if read(text).is_some() || !attempted(text) {
            missed.push(text);
        }
    }
    assert_eq!(missed, Vec::<&str>::new());
}

#[test]
fn prose_that_mentions_a_tool_in_these_shapes_is_not_an_attempt() {
    let mut misread = Vec::new();
    for prose in [
        "I used read_file on the path you gave; the tests pass now.",
        "The <read_file> tool takes a path and an optional start_line.",
        "Action: none needed, read_file already showed the bug.",
        "tool: read_file was enough.",
        "Calling read_file with path src/a.py showed the typo; fixed.",
    ] {
        if read(prose).is_some() || attempted(prose) {
            misread.push(prose);
        }
    }
    assert_eq!(misread, Vec::<&str>::new());
}

#[test]
fn a_yaml_like_block_naming_a_tool_with_its_parameters_is_an_attempt() {
    let mut missed = Vec::new();
    for text in [
        "tool: read_file\npath: src/x.py",
        "read_file:\n  path: src/x.py",
        "```yaml\nname: read_file\narguments:\n  path: src/x.py\n  start_line: 3\n```",
        "- tool: read_file\n  args:\n    path: src/x.py",
        "call: read_file\nparameters:\n  start_line: 10\n  path: 'src/x.py'",
        "Action: read_file\nAction Input:\n  path: src/x.py",
        "I'll look at it first.\n\nfunction: read_file\n    path: src/x.py\n",
        // TOML's table and key.
        "[read_file]\npath = \"src/x.py\"",
        // Bare, in a fence without a language, and in Gemma's fence as YAML instead of Python.
        "```\nread_file\npath: src/x.py\n```",
        "```tool_code\nread_file:\n  path: src/x.py\n```",
    ] {
        if read(text).is_some() || !attempted(text) {
            missed.push(text);
        }
    }
    assert_eq!(missed, Vec::<&str>::new());
}

#[test]
fn a_fence_of_prose_or_code_that_names_a_tool_is_not_an_attempt() {
    let mut misread = Vec::new();
    for prose in [
        "Here is my plan:\n```\nI would use read_file to look at the path\n```",
        "```text\nStep 1: read_file to see src/x.py\nStep 2: run_tests\n```",
        "```python\n# read_file returns the text at a path\ndef read_file(path):\n    return open(path).read()\n```",
        "```diff\n-    data = read_file(p)\n+    data = read_file(path)\n```",
        "```console\n$ mend run --tools read_file,run_tests\n4 passed\n```",
        "```markdown\n- read_file: shows a file; give it the path.\n- run_tests: runs the suite.\n```",
        // A JSON object whose `"name"` is not a call, naming the tools in a value.
        "```json\n{\"name\": \"demo\", \"description\": \"offers read_file and run_tests\"}\n```",
        // Gemma's own fence, holding a comment.
        "```tool_code\n# I would use read_file to look at the path first\n```",
        // A fence and a colon, no tool: the fix shown.
        "Fixed:\n```python\ndef parse(line):\n    return line.split(':')\n```",
        // Colons in prose.
        "Summary: read_file showed the bug; the path was wrong.",
        "Note: I used read_file on src/a.py, then run_tests: 4 passed.",
    ] {
        if read(prose).is_some() || attempted(prose) {
            misread.push(prose);
        }
    }
    assert_eq!(misread, Vec::<&str>::new());
}

/// The name is searched for a piece of the text at a time: a call or a mention standing across
/// any cut between pieces, after ASCII or multi-byte prose, is decided as it is alone.
#[test]
fn a_call_across_the_search_pieces_is_decided_as_alone() {
    let mut wrong = Vec::new();
    for filler in ["a ", "é", "a é"] {
        for repeats in 320..560 {
            let prose = filler.repeat(repeats);
            for (tail, expected) in [
                ("read_file path=\"src/a.py\"", true),
                ("read_file(path=\"src/a.py\")", true),
                ("then read_file: it holds the path", false),
            ] {
                let text = format!("{prose} {tail}");
                if attempted(&text) != expected {
                    wrong.push((filler, repeats, tail));
                }
            }
        }
    }
    assert_eq!(wrong, Vec::new());
}
