//! The family chosen from what the server says of the model: template excerpts written in each
//! family's way (Jinja as llama-server serves it, Go templates as Ollama does), parser names,
//! and templates that name no family or do not parse.

use super::scan::calls_in;
use super::template::index_of;
use super::test_support::tools;
use super::*;

#[test]
fn a_template_names_the_family_whose_markers_it_renders() {
    let templates = [
        // Gemma 4 (Jinja): calls rendered with its own tokens and string marks.
        "{%- for call in message.tool_calls -%}<|tool_call>call:{{ call.function.name }}{ {%- for k, v in call.function.arguments.items() -%}{{ k }}:<|\"|>{{ v }}<|\"|>{%- endfor -%} }<tool_call|>{%- endfor -%}",
        // GLM-4.5: the name, then key/value pairs.
        "{% for tc in m.tool_calls %}<tool_call>{{ tc.name }}\n{% for k, v in tc.arguments.items() %}<arg_key>{{ k }}</arg_key>\n<arg_value>{{ v }}</arg_value>\n{% endfor %}</tool_call>{% endfor %}",
        // Qwen 2.5 / Hermes (Ollama's Go template).
        "{{- range .ToolCalls }}<tool_call>\n{\"name\": \"{{ .Function.Name }}\", \"arguments\": {{ .Function.Arguments }}}\n</tool_call>{{ end }}",
        "{%- if tool_calls %}<minimax:tool_call>{% for c in tool_calls %}<invoke name=\"{{ c.name }}\">{% endfor %}</minimax:tool_call>{% endif %}",
        "{%- if message.tool_calls -%}<TOOLCALL>{{ message.tool_calls | tojson }}</TOOLCALL>{%- endif -%}",
        "{{ '<seed:tool_call>\\n<function=' + tc.name + '>' }}",
        "<|tool_call_start|>[{{ calls | join(', ') }}]<|tool_call_end|>",
        "{%- if message.function_calls %}<function_calls>{{ message.function_calls }}</function_calls>{% endif %}",
        "{{- '<|python_start|>' }}[{{ tool_call.name }}(...)]{{- '<|python_end|>' }}",
        "Environment: ipython\n{{- '<|python_tag|>' + tool_call.name }}",
        "functools[{{ tool_calls | tojson }}]",
        "<|tool_calls_section_begin|>{% for c in calls %}<|tool_call_begin|>functions.{{ c.name }}:{{ loop.index0 }}<|tool_call_argument_begin|>{{ c.arguments }}<|tool_call_end|>{% endfor %}<|tool_calls_section_end|>",
    ];
    let families: Vec<Option<&str>> = templates.iter().map(|t| family_of_template(t)).collect();
    assert_eq!(
        families,
        [
            Some("gemma4"),
            Some("hermes_qwen3_glm"),
            Some("hermes_qwen3_glm"),
            Some("minimax"),
            Some("nemotron"),
            Some("seed_oss"),
            Some("lfm2"),
            Some("olmo3"),
            Some("llama4"),
            Some("llama"),
            Some("functools"),
            Some("kimi"),
        ]
    );
}

#[test]
fn a_template_without_markers_or_that_does_not_parse_names_none() {
    for template in [
        "",
        "{{ .Prompt }}",
        "{% for message in messages %}{{ message.content }}{% endfor %}",
        "{%- if unclosed",
        "\u{0}\u{fffd}{{{{",
    ] {
        assert_eq!(family_of_template(template), None, "{template:?}");
    }
}

#[test]
fn ollamas_parser_names_map_to_families_and_unknown_ones_to_none() {
    let names = [
        "gemma4",
        "qwen3-coder",
        "glm-4.7",
        "olmo3-think",
        "lfm2",
        "harmony",
        "granite",
        "",
    ];
    let families: Vec<Option<&str>> = names.iter().map(|n| family_of_parser(n)).collect();
    assert_eq!(
        families,
        [
            Some("gemma4"),
            Some("hermes_qwen3_glm"),
            Some("hermes_qwen3_glm"),
            Some("olmo3"),
            Some("lfm2"),
            Some("harmony"),
            None,
            None
        ]
    );
    // Every family the tables name has a reader.
    let unread: Vec<&str> = super::template::PARSERS
        .iter()
        .map(|(_, family)| *family)
        .filter(|family| index_of(family).is_none())
        .collect();
    assert_eq!(unread, Vec::<&str>::new());
}

#[test]
fn the_models_family_reads_first_and_any_other_still_reads_after_it() {
    let hunyuan = "<tool_calls>[{\"name\": \"run_tests\", \"arguments\": {}}]</tool_calls>";
    let read = |preferred: Option<&str>| {
        calls_in(
            hunyuan,
            &Signs::of(hunyuan),
            &tools(),
            preferred.and_then(index_of),
        )
        .map(|found| {
            found
                .into_iter()
                .map(|f| (f.call.name, f.format))
                .collect::<Vec<_>>()
        })
    };
    let expected = Some(vec![("run_tests".to_owned(), TextCallFormat::Hunyuan)]);
    // The template named the tagged family, whose reader finds nothing here; a name no reader
    // has is the same as none.
    assert_eq!(
        [
            read(Some("hermes_qwen3_glm")),
            read(Some("no such family")),
            read(None)
        ],
        [expected.clone(), expected.clone(), expected]
    );
}
