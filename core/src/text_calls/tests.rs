use serde_json::{json, Value};

use super::test_support::{read, tools, Read};
use super::*;
use crate::protocol::CallArguments;

fn one(name: &str, arguments: Value, format: TextCallFormat, text: &str) -> Option<Read> {
    Some(vec![(name.to_owned(), arguments, format, text.to_owned())])
}

#[test]
fn hermes_blocks_are_read_with_the_prose_around_them() {
    let block = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/a.py\"}}\n</tool_call>";
    let content = format!("I will read the file first.\n{block}");
    assert_eq!(
        read(&content),
        one(
            "read_file",
            json!({"path": "src/a.py"}),
            TextCallFormat::Hermes,
            block
        )
    );
}

#[test]
fn qwen3_coder_blocks_are_read_wrapped_or_not_with_typed_parameters() {
    let block = "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a b.py\n</parameter>\n<parameter=start_line>\n12\n</parameter>\n</function>\n</tool_call>";
    assert_eq!(
        read(block),
        one(
            "read_file",
            json!({"path": "src/a b.py", "start_line": 12}),
            TextCallFormat::Qwen3Coder,
            block
        )
    );
    let bare = "<function=run_tests>\n</function>";
    assert_eq!(
        read(bare),
        one("run_tests", json!({}), TextCallFormat::Qwen3Coder, bare)
    );
    // A value the schema wants as an integer but that is no JSON stays text: validation says so.
    let wrong = "<function=read_file><parameter=path>a.py</parameter><parameter=start_line>twelve</parameter></function>";
    assert_eq!(
        read(wrong),
        one(
            "read_file",
            json!({"path": "a.py", "start_line": "twelve"}),
            TextCallFormat::Qwen3Coder,
            wrong
        )
    );
}

#[test]
fn fenced_and_bare_objects_are_read_and_llama_parameters_too() {
    let block = "```json\n{\"name\": \"run_tests\", \"arguments\": {}}\n```";
    let content = format!("Now the tests:\n\n{block}\n");
    assert_eq!(
        read(&content),
        one("run_tests", json!({}), TextCallFormat::FencedJson, block)
    );
    let bare = "{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.py\"}}";
    assert_eq!(
        read(&format!("\n{bare}\n")),
        one(
            "read_file",
            json!({"path": "a.py"}),
            TextCallFormat::BareJson,
            bare
        )
    );
    let stringified = "{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a.py\\\"}\"}";
    assert_eq!(
        read(stringified),
        one(
            "read_file",
            json!({"path": "a.py"}),
            TextCallFormat::BareJson,
            stringified
        )
    );
}

#[test]
fn several_calls_keep_their_order_across_tagged_forms() {
    let first =
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}</tool_call>";
    let second = "<function=run_tests></function>";
    let content = format!("{first}\n{second}");
    assert_eq!(
        read(&content),
        Some(vec![
            (
                "read_file".to_owned(),
                json!({"path": "a.py"}),
                TextCallFormat::Hermes,
                first.to_owned()
            ),
            (
                "run_tests".to_owned(),
                json!({}),
                TextCallFormat::Qwen3Coder,
                second.to_owned()
            ),
        ])
    );
}

#[test]
fn anything_ambiguous_stays_text() {
    let cases = [
        // Plain prose, and prose that talks about a call.
        "The fix is done.",
        "I would call read_file on {path}.",
        // An unknown tool, in every form.
        "<tool_call>{\"name\": \"format_disk\", \"arguments\": {}}</tool_call>",
        "<function=format_disk></function>",
        "```json\n{\"name\": \"format_disk\", \"arguments\": {}}\n```",
        "{\"name\": \"format_disk\", \"arguments\": {}}",
        // Unclosed or broken blocks.
        "<tool_call>{\"name\": \"run_tests\", \"arguments\": {}}",
        "<tool_call>{\"name\": \"run_tests\", \"arguments\": {}</tool_call>",
        "<function=read_file><parameter=path>a.py</function>",
        "<function=read_file><parameter=path>a.py</parameter>",
        "```json\n{\"name\": \"run_tests\", \"arguments\": {}}\n",
        // A good call next to a broken one, or next to another form.
        "<tool_call>{\"name\": \"run_tests\"}</tool_call> <tool_call>{\"name\": 3}</tool_call>",
        "<tool_call>{\"name\": \"run_tests\"}</tool_call>\n```json\n{\"name\": \"run_tests\"}\n```",
        "```json\n{\"name\": \"run_tests\"}\n```\n{\"name\": \"run_tests\"}",
        "<tool_call>{\"name\": \"run_tests\"}</tool_call></tool_call>",
        // A fenced call next to code of another language, or a block that is no call.
        "```python\nx = 1\n```\n```json\n{\"name\": \"run_tests\"}\n```",
        "```json\n{\"a\": 1}\n```",
        // Extra keys, both argument keys, arguments that are not an object, prose after an object.
        "{\"name\": \"run_tests\", \"arguments\": {}, \"id\": 1}",
        "{\"name\": \"run_tests\", \"arguments\": {}, \"parameters\": {}}",
        "{\"name\": \"read_file\", \"arguments\": [\"a.py\"]}",
        "{\"name\": \"run_tests\"} and then I stop",
        // A parameter given twice.
        "<function=read_file><parameter=path>a</parameter><parameter=path>b</parameter></function>",
    ];
    for content in cases {
        assert_eq!(read(content), None, "{content}");
    }
}

#[test]
fn the_early_out_lets_prose_through_untouched() {
    let verdicts: Vec<bool> = [
        "All four tests pass now.",
        "",
        "x < y",
        "  {\"a\"",
        "use `f`",
    ]
    .iter()
    .map(|content| Signs::of(content).may_hold_calls())
    .collect();
    assert_eq!(verdicts, [false, false, true, true, true]);
}

/// A sign and whether it alone marks an attempted call.
type SignMarks = (&'static str, bool);

#[test]
fn the_repair_decision_turns_prose_away_in_one_pass_and_misses_no_sign() {
    let tools = tools();
    let attempted = |text: &str| repair::attempted(text, &Signs::of(text), &tools);
    // Every family's sign that only a call carries marks an attempt, even in prose; a code
    // fence and a call object's `"name"` open text of any kind, and mark none alone.
    let (marking, opening): (Vec<SignMarks>, Vec<SignMarks>) = scan::FAMILIES
        .iter()
        .flat_map(|family| {
            family
                .signs
                .iter()
                .map(|sign| (*sign, family.signs_mark_calls))
        })
        .chain([("\"name\"", false)])
        .partition(|(_, marks)| *marks);
    let decided: Vec<(&str, bool)> = marking
        .iter()
        .chain(&opening)
        .map(|(sign, _)| (*sign, attempted(&format!("Done {sign} it is."))))
        .collect();
    let expected: Vec<(&str, bool)> = marking.iter().chain(&opening).copied().collect();
    assert_eq!(decided, expected);
    assert_eq!(
        opening.iter().map(|(sign, _)| *sign).collect::<Vec<_>>(),
        ["```tool_code", "```", "\"name\""]
    );
    let decided: Vec<(bool, bool)> = [
        "All four tests pass now; the path rule is fixed.",
        "",
        "It sends to=functions.run_tests next",
        "run_tests({\"verbose\": true",
        "I'd say \"done\" and mean it.",
        "read_file('src/a.py')",
    ]
    .iter()
    .map(|text| (Signs::of(text).argument(), attempted(text)))
    .collect();
    assert_eq!(
        decided,
        [
            (false, false),
            (false, false),
            (true, true),
            (true, true),
            (true, false),
            (true, true)
        ]
    );
}

#[test]
fn recovery_numbers_the_calls_and_gives_them_ids_only_without_native_calls() {
    let content = "<tool_call>{\"name\": \"run_tests\", \"arguments\": {}}</tool_call>";
    let mut assembly = TurnAssembly {
        content: content.to_owned(),
        ..TurnAssembly::default()
    };
    let calls = recover(3, &mut assembly, &Signs::of(content), &tools(), None);
    let expected_call = ModelCall {
        id: Some("text_3_0".to_owned()),
        index: None,
        name: "run_tests".to_owned(),
        arguments: CallArguments::Object {
            value: serde_json::Map::new(),
        },
    };
    assert_eq!(
        (calls, assembly.calls.clone(), assembly.content.as_str()),
        (
            Some(vec![TextCall {
                index: 0,
                name: "run_tests".to_owned(),
                format: TextCallFormat::Hermes,
                text: content.to_owned(),
            }]),
            vec![expected_call.clone()],
            content
        )
    );
    // Native calls win: the text is not read again.
    let before = assembly.clone();
    assert_eq!(
        (
            recover(3, &mut assembly, &Signs::of(content), &tools(), None),
            assembly
        ),
        (None, before)
    );
}
