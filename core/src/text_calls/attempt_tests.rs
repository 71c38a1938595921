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
