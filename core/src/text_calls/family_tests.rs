//! Each family's reader on fixtures written in the raw form those models print.

use serde_json::{json, Value};

use super::test_support::{read, Read};
use super::*;

fn calls(list: &[(&str, Value, TextCallFormat, &str)]) -> Option<Read> {
    Some(
        list.iter()
            .map(|(name, arguments, format, text)| {
                (
                    (*name).to_owned(),
                    arguments.clone(),
                    *format,
                    (*text).to_owned(),
                )
            })
            .collect(),
    )
}

#[test]
fn mistral_writes_name_and_args_or_a_json_list() {
    use TextCallFormat::{Mistral, MistralJson};
    let named = "[TOOL_CALLS]read_file[ARGS]{\"path\": \"src/a.py\"}[TOOL_CALLS]run_tests[ARGS]{}";
    assert_eq!(
        read(named),
        calls(&[
            (
                "read_file",
                json!({"path": "src/a.py"}),
                Mistral,
                "[TOOL_CALLS]read_file[ARGS]{\"path\": \"src/a.py\"}"
            ),
            (
                "run_tests",
                json!({}),
                Mistral,
                "[TOOL_CALLS]run_tests[ARGS]{}"
            ),
        ])
    );
    let with_id = "[TOOL_CALLS]run_tests[CALL_ID]a1B2c3D4e[ARGS]{}";
    assert_eq!(
        read(with_id),
        calls(&[("run_tests", json!({}), Mistral, with_id)])
    );
    let list = "[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\", \"start_line\": 3}}, {\"name\": \"run_tests\", \"arguments\": {}}]";
    assert_eq!(
        read(list),
        calls(&[
            (
                "read_file",
                json!({"path": "a.py", "start_line": 3}),
                MistralJson,
                "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\", \"start_line\": 3}}"
            ),
            (
                "run_tests",
                json!({}),
                MistralJson,
                "{\"name\": \"run_tests\", \"arguments\": {}}"
            ),
        ])
    );
}

#[test]
fn llama_writes_a_python_tag_and_objects_separated_by_semicolons() {
    let one =
        "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.py\"}}<|eom_id|>";
    assert_eq!(
        read(one),
        calls(&[(
            "read_file",
            json!({"path": "a.py"}),
            TextCallFormat::Llama,
            "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.py\"}}"
        )])
    );
    let two = "<|python_tag|>{\"name\": \"run_tests\", \"parameters\": {}}; {\"name\": \"read_file\", \"parameters\": {\"path\": \"b.py\"}}";
    assert_eq!(
        read(two),
        calls(&[
            (
                "run_tests",
                json!({}),
                TextCallFormat::Llama,
                "<|python_tag|>{\"name\": \"run_tests\", \"parameters\": {}}"
            ),
            (
                "read_file",
                json!({"path": "b.py"}),
                TextCallFormat::Llama,
                "{\"name\": \"read_file\", \"parameters\": {\"path\": \"b.py\"}}"
            ),
        ])
    );
}

#[test]
fn harmony_reads_calls_on_the_commentary_channel_and_leaves_analysis_as_text() {
    let call = "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"src/a.py\",\"start_line\":10}<|call|>";
    let content =
        format!("<|channel|>analysis<|message|>Need to read the file first.<|end|>{call}");
    assert_eq!(
        read(&content),
        calls(&[(
            "read_file",
            json!({"path": "src/a.py", "start_line": 10}),
            TextCallFormat::Harmony,
            call
        )])
    );
    // The recipient before the channel, and the final `<|call|>` stripped by the server.
    let early = "<|start|>assistant to=functions.run_tests<|channel|>commentary json<|message|>{}";
    assert_eq!(
        read(early),
        calls(&[("run_tests", json!({}), TextCallFormat::Harmony, early)])
    );
}

#[test]
fn gemma_tool_code_reads_python_keyword_arguments() {
    let block = "```tool_code\nread_file(path=\"src/a b.py\", start_line=12, strict=True, lines=[1, 2.5, 'x'], note=None, tags=('a',), flags={'quiet': False})\n```";
    let content = format!("I'll look at the file.\n{block}\n");
    assert_eq!(
        read(&content),
        calls(&[(
            "read_file",
            json!({"path": "src/a b.py", "start_line": 12, "strict": true, "lines": [1, 2.5, "x"], "note": null, "tags": ["a"], "flags": {"quiet": false}}),
            TextCallFormat::GemmaToolCode,
            block
        )])
    );
    let printed = "```tool_code\nprint(default_api.run_tests())\n```";
    assert_eq!(
        read(printed),
        calls(&[(
            "run_tests",
            json!({}),
            TextCallFormat::GemmaToolCode,
            printed
        )])
    );
    let escaped = "```tool_code\nread_file(path='it\\'s\\n\\u00e9.py', start_line=-3)\n```";
    assert_eq!(
        read(escaped),
        calls(&[(
            "read_file",
            json!({"path": "it's\né.py", "start_line": -3}),
            TextCallFormat::GemmaToolCode,
            escaped
        )])
    );
}

#[test]
fn deepseek_reads_both_the_fenced_and_the_bare_shape() {
    let v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.py\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    assert_eq!(
        read(v3),
        calls(&[("read_file", json!({"path": "a.py"}), TextCallFormat::Deepseek, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.py\"}\n```<｜tool▁call▁end｜>")])
    );
    let v31 = "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>run_tests<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"b.py\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    assert_eq!(
        read(v31),
        calls(&[
            ("run_tests", json!({}), TextCallFormat::Deepseek, "<｜tool▁call▁begin｜>run_tests<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
            ("read_file", json!({"path": "b.py"}), TextCallFormat::Deepseek, "<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"b.py\"}<｜tool▁call▁end｜>"),
        ])
    );
}

#[test]
fn phi_and_granite_write_a_list_after_the_tag() {
    let phi = "<|tool_call|>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}]<|/tool_call|>";
    let granite = "<|tool_call|>[{\"name\": \"run_tests\", \"arguments\": {}}]";
    let element = |text: &str| text.to_owned();
    assert_eq!(
        (read(phi), read(granite)),
        (
            calls(&[(
                "read_file",
                json!({"path": "a.py"}),
                TextCallFormat::ToolCallList,
                &element("{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}")
            )]),
            calls(&[(
                "run_tests",
                json!({}),
                TextCallFormat::ToolCallList,
                "{\"name\": \"run_tests\", \"arguments\": {}}"
            )]),
        )
    );
}

#[test]
fn every_familys_near_misses_stay_text() {
    let cases = [
        // Unknown tools.
        "[TOOL_CALLS]format_disk[ARGS]{}",
        "<|python_tag|>{\"name\": \"format_disk\", \"parameters\": {}}",
        "<|channel|>commentary to=functions.format_disk <|constrain|>json<|message|>{}<|call|>",
        "```tool_code\nformat_disk(device=\"sda\")\n```",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>format_disk<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<|tool_call|>[{\"name\": \"format_disk\", \"arguments\": {}}]",
        // Broken arguments.
        "[TOOL_CALLS]read_file[ARGS]{\"path\": ",
        "[TOOL_CALLS]read_file[ARGS][\"a.py\"]",
        "<|python_tag|>{\"name\": \"run_tests\", \"parameters\": {}",
        "<|channel|>commentary to=functions.run_tests <|constrain|>json<|message|>{oops}<|call|>",
        "```tool_code\nread_file(\"a.py\")\n```",
        "```tool_code\nread_file(path=open(\"a.py\"))\n```",
        "```tool_code\nread_file(path=\"a.py\", path=\"b.py\")\n```",
        "```tool_code\nread_file(path=\"a.py\"\n```",
        "```tool_code\n```",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>run_tests{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<|tool_call|>[]",
        "<|tool_call|>[{\"name\": \"run_tests\", \"arguments\": {}}",
        // Two families in one text, or a good call beside a stray sign.
        "[TOOL_CALLS]run_tests[ARGS]{}\n<tool_call>{\"name\": \"run_tests\"}</tool_call>",
        "<|tool_call|>[{\"name\": \"run_tests\", \"arguments\": {}}] then [ARGS]",
        "```tool_code\nrun_tests()\n```\n```json\n{\"name\": \"run_tests\"}\n```",
        "<|python_tag|>{\"name\": \"run_tests\", \"parameters\": {}} <|call|>",
    ];
    for content in cases {
        assert_eq!(read(content), None, "{content}");
    }
}

mod properties {
    use crate::prelude::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::super::scan::calls_in;
    use super::super::test_support::tools;
    use super::super::Signs;
    use super::super::{Found, TextCallFormat};
    use crate::protocol::CallArguments;

    /// Pieces of every family's markers, so generated texts come near real calls.
    const PIECES: [&str; 24] = [
        "[TOOL_CALLS]",
        "[ARGS]",
        "[CALL_ID]",
        "<|python_tag|>",
        "<|eom_id|>",
        "to=functions.",
        "<|message|>",
        "<|call|>",
        "<|channel|>",
        "<|end|>",
        "```tool_code\n",
        "```",
        "(",
        "=",
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>",
        "<|tool_call|>",
        "<tool_call>",
        "{\"name\": \"run_tests\"}",
        "read_file",
        "[",
        "]",
    ];

    fn near_call_text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(PIECES.to_vec()).prop_map(str::to_owned),
                "[a-z\"{}:, ;'()\\[\\]\\\\é]{0,6}",
            ],
            0..12,
        )
        .prop_map(|pieces| pieces.concat())
    }

    /// A value every family can write: JSON's kinds, strings without quotes' escapes that
    /// Python and JSON read differently.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            "[a-zA-Z0-9 _./-]{0,12}".prop_map(Value::String),
            any::<i32>().prop_map(|n| Value::from(i64::from(n))),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(Value::Array)
        })
    }

    fn arguments() -> impl Strategy<Value = Map<String, Value>> {
        prop::collection::btree_map("[a-z_]{1,8}", value(), 0..4)
            .prop_map(|map| map.into_iter().collect())
    }

    /// A Python literal of `value`, as Gemma writes one.
    fn python(value: &Value) -> String {
        match value {
            Value::Null => "None".to_owned(),
            Value::Bool(true) => "True".to_owned(),
            Value::Bool(false) => "False".to_owned(),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(python).collect();
                format!("[{}]", items.join(", "))
            }
            other => other.to_string(),
        }
    }

    /// A value as Gemma 4 writes it: strings between `<|"|>` marks, keys bare.
    fn gemma4(value: &Value) -> String {
        match value {
            Value::String(text) => format!("<|\"|>{text}<|\"|>"),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(gemma4).collect();
                format!("[{}]", items.join(","))
            }
            Value::Object(map) => {
                let pairs: Vec<String> = map
                    .iter()
                    .map(|(key, value)| format!("{key}:{}", gemma4(value)))
                    .collect();
                format!("{{{}}}", pairs.join(","))
            }
            other => other.to_string(),
        }
    }

    /// `name` called with `arguments`, in `format`'s form.
    fn render(format: TextCallFormat, name: &str, arguments: &Map<String, Value>) -> String {
        let args = Value::Object(arguments.clone());
        let object = serde_json::json!({"name": name, "arguments": args});
        match format {
            TextCallFormat::Hermes => format!("<tool_call>\n{object}\n</tool_call>"),
            TextCallFormat::FencedJson => format!("```json\n{object}\n```"),
            TextCallFormat::BareJson => object.to_string(),
            TextCallFormat::Mistral => format!("[TOOL_CALLS]{name}[ARGS]{args}"),
            TextCallFormat::MistralJson => format!("[TOOL_CALLS][{object}]"),
            TextCallFormat::Llama => format!(
                "<|python_tag|>{}",
                serde_json::json!({"name": name, "parameters": args})
            ),
            TextCallFormat::Harmony => format!(
                "<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>"
            ),
            TextCallFormat::GemmaToolCode => {
                let keywords: Vec<String> = arguments
                    .iter()
                    .map(|(key, value)| format!("{key}={}", python(value)))
                    .collect();
                format!("```tool_code\n{name}({})\n```", keywords.join(", "))
            }
            TextCallFormat::Deepseek => format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            ),
            TextCallFormat::ToolCallList => format!("<|tool_call|>[{object}]<|/tool_call|>"),
            TextCallFormat::Gemma4 => format!("<|tool_call>call:{name}{}<tool_call|>", gemma4(&args)),
            TextCallFormat::Kimi => format!(
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
            ),
            TextCallFormat::ToolCallTags => format!("<TOOLCALL>[{object}]</TOOLCALL>"),
            TextCallFormat::Hunyuan => format!("<tool_calls>[{object}]</tool_calls>"),
            TextCallFormat::Functools => format!("functools[{object}]"),
            TextCallFormat::Pythonic => {
                let keywords: Vec<String> = arguments
                    .iter()
                    .map(|(key, value)| format!("{key}={}", python(value)))
                    .collect();
                format!("[{name}({})]", keywords.join(", "))
            }
            // Their parameters are typed by the schema: the session-level properties cover them.
            TextCallFormat::Qwen3Coder
            | TextCallFormat::Glm
            | TextCallFormat::MiniMax
            | TextCallFormat::SeedOss
            | TextCallFormat::RepairedByGrammar => String::new(),
        }
    }

    type ReadBack = (String, Map<String, Value>, TextCallFormat);

    const FORMATS: [TextCallFormat; 16] = [
        TextCallFormat::Gemma4,
        TextCallFormat::Kimi,
        TextCallFormat::ToolCallTags,
        TextCallFormat::Hunyuan,
        TextCallFormat::Functools,
        TextCallFormat::Pythonic,
        TextCallFormat::Hermes,
        TextCallFormat::FencedJson,
        TextCallFormat::BareJson,
        TextCallFormat::Mistral,
        TextCallFormat::MistralJson,
        TextCallFormat::Llama,
        TextCallFormat::Harmony,
        TextCallFormat::GemmaToolCode,
        TextCallFormat::Deepseek,
        TextCallFormat::ToolCallList,
    ];

    fn config() -> ProptestConfig {
        ProptestConfig {
            failure_persistence: Some(alloc::boxed::Box::new(
                proptest::test_runner::FileFailurePersistence::Direct(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../proptest-regressions/core-text-call-families.txt"
                )),
            )),
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_text_reads_without_panicking(text in prop_oneof![any::<String>(), near_call_text()]) {
            let _ = calls_in(&text, &Signs::of(&text), &tools(), None);
            let _ = Signs::of(&text).may_hold_calls();
        }

        #[test]
        fn a_call_rendered_in_each_familys_form_reads_back(
            format in prop::sample::select(FORMATS.to_vec()),
            name in prop::sample::select(vec!["read_file", "run_tests"]),
            arguments in arguments(),
        ) {
            let text = render(format, name, &arguments);
            let found = calls_in(&text, &Signs::of(&text), &tools(), None);
            let read: Option<Vec<ReadBack>> = found.map(|found| {
                found.into_iter().map(|Found { call, format, .. }| {
                    let CallArguments::Object { value } = call.arguments else { unreachable!() };
                    (call.name, value, format)
                }).collect()
            });
            prop_assert_eq!(read, Some(vec![(name.to_owned(), arguments, format)]), "{}", text);
        }
    }
}
