//! The one pass over a text decides as the searches it replaced did, one a sign a family: the
//! earlier code is kept here as the reference, and generated texts near every sign compared.

use proptest::prelude::*;

use super::repair;
use super::scan::FAMILIES;
use super::Signs;
use crate::prelude::*;
use crate::schema::ToolSpec;

const OBJECT_SIGN: &str = "\"name\"";

/// What the searches decided: may hold calls, holds an argument start, looks like a call, the
/// first family claiming it (its index), attempted.
type Decisions = (bool, bool, bool, Option<usize>, bool);

fn by_searches(text: &str, tools: &[ToolSpec]) -> Decisions {
    let has_sign = |index: usize| FAMILIES[index].signs.iter().any(|sign| text.contains(sign));
    let may_hold = text.trim_start().starts_with('{')
        || text.bytes().any(|b| b == b'<' || b == b'`' || b == b'[');
    let argument = text
        .bytes()
        .any(|b| matches!(b, b'{' | b'"' | b'=' | b':' | b'\'' | b'<'));
    let looks = text.contains(OBJECT_SIGN) || (0..FAMILIES.len()).any(has_sign);
    let marked =
        (0..FAMILIES.len()).any(|index| FAMILIES[index].signs_mark_calls && has_sign(index));
    let first = (0..FAMILIES.len()).find(|index| has_sign(*index));
    // How a name's neighbours are told from prose is the same function either way; what is
    // compared is what the pass hands it, and where the one search finds the name: here each
    // question searches the whole text for it, without the presence test first.
    let brace = text.contains('{');
    let attempted = marked
        || (argument
            && tools.iter().any(|tool| {
                word_places(text, tool.name()).any(|(at, before)| {
                    repair::arguments_after(&text[at + tool.name().len()..], before, brace)
                }) || word_places(text, tool.name()).any(|(at, _)| {
                    let end = at + tool.name().len();
                    !text[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                        && repair::keys_after(text, end, tool)
                })
            }));
    (may_hold, argument, looks, first, attempted)
}

/// Where `name` stands in `text` not preceded by a letter, digit or `_`, with the byte before it.
fn word_places<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = (usize, Option<u8>)> + 'a {
    text.match_indices(name).filter_map(|(at, _)| {
        let before = at.checked_sub(1).map(|before| text.as_bytes()[before]);
        (!before.is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_'))
            .then_some((at, before))
    })
}

fn by_one_pass(text: &str, tools: &[ToolSpec]) -> Decisions {
    let signs = Signs::of(text);
    let first = signs.first_family();
    (
        signs.may_hold_calls(),
        signs.argument(),
        signs.looks_like_a_call(),
        first,
        repair::attempted(text, &signs, tools),
    )
}

/// mend's own seven tools, whose names the one pass finds together, and one whose name has
/// bytes no word has, searched for on its own.
fn tools() -> Vec<ToolSpec> {
    use crate::schema::JsonType::String as Text;
    let with = |name: &str, keys: &[&str]| {
        let keys: Vec<(&str, crate::schema::JsonType, &str)> =
            keys.iter().map(|key| (*key, Text, "a key")).collect();
        ToolSpec::function(name, "a tool", &keys, &[])
    };
    vec![
        with("run_tests", &[]),
        with("read_file", &["path"]),
        with("list_files", &["pattern"]),
        with("grep", &["pattern", "path"]),
        with("write_file", &["path", "text"]),
        with("replace_text", &["path", "old", "new"]),
        with("shell", &["command"]),
        with("fs.read-file", &["path"]),
    ]
}

/// Every sign whole and cut short, the repair decision's pieces, and prose: texts that hold
/// signs, almost hold them, and hold them across the pass's blocks.
fn near_sign_text() -> impl Strategy<Value = String> {
    let mut pieces: Vec<String> = FAMILIES
        .iter()
        .flat_map(|family| family.signs.iter())
        .chain([&OBJECT_SIGN])
        .flat_map(|sign| {
            let cut: String = sign.chars().take(sign.chars().count() - 1).collect();
            [(*sign).to_owned(), cut]
        })
        .collect();
    pieces.extend(
        [
            "\"run_tests\"",
            "run_tests(",
            "read_file",
            "read_file ",
            "<path>",
            "\"path\":",
            "path=",
            "path: ",
            "path:\n",
            "{",
            "\"",
            "=",
            ":",
            "'",
            "\n",
        ]
        .map(str::to_owned),
    );
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(pieces),
            "[a-z \"{}:;()<>`=|\\[\\]é｜▁]{0,8}",
            "[a-z ]{0,40}",
        ],
        0..16,
    )
    .prop_map(|pieces| pieces.concat())
}

/// Texts of tool names, their keys in every shape, and what stands around them: the repair
/// decision's own vocabulary, dense enough that most texts name a tool near a key.
fn tool_text() -> impl Strategy<Value = String> {
    let pieces = [
        "read_file",
        "run_tests",
        "xread_file",
        "read_filex",
        " ",
        "\n",
        "<path>",
        "<path ",
        "\"path\":",
        "\"path\">",
        "path=",
        "path ==",
        "path: ",
        "path:\n",
        "(",
        "{",
        "\"",
        "'",
        ":",
        "=",
        "x",
        "grep",
        "shell",
        "write_file",
        "fs.read-file",
        "<command>",
        "command=",
        "old: ",
        "\"text\":",
    ];
    // Blanks and words long enough to put a key just within the reach after a name, or just
    // beyond it.
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(pieces.to_vec()).prop_map(str::to_owned),
            1 => "[a-z ]{55,70}",
            1 => " {1,70}",
        ],
        0..12,
    )
    .prop_map(|pieces| pieces.concat())
}

/// Failures kept beside the other properties' (at the repository's root), not in `core/`.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../proptest-regressions/core-text-call-signs.txt"
            )),
        )),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_one_pass_decides_as_the_searches_did(text in near_sign_text()) {
        prop_assert_eq!(by_one_pass(&text, &tools()), by_searches(&text, &tools()), "{:?}", text);
    }

    #[test]
    fn and_on_texts_naming_tools_near_their_keys(text in tool_text()) {
        prop_assert_eq!(by_one_pass(&text, &tools()), by_searches(&text, &tools()), "{:?}", text);
    }

    #[test]
    fn on_any_text_too(text in any::<String>()) {
        prop_assert_eq!(by_one_pass(&text, &tools()), by_searches(&text, &tools()), "{:?}", text);
    }
}

#[test]
fn every_sign_is_found_at_every_place_in_a_block() {
    let tools = tools();
    let missed: Vec<(usize, &str)> = FAMILIES
        .iter()
        .flat_map(|family| family.signs.iter().copied())
        .chain([OBJECT_SIGN])
        .flat_map(|sign| (0..70).map(move |before| (before, sign)))
        .filter(|(before, sign)| {
            let text = format!("{}{sign}{}", "x".repeat(*before), "y".repeat(70 - before));
            let decided = by_one_pass(&text, &tools);
            decided != by_searches(&text, &tools) || !decided.2
        })
        .collect();
    assert_eq!(missed, Vec::new());
}

#[test]
fn a_key_is_found_at_every_distance_after_every_name() {
    let tools = tools();
    let keys = [
        "<path>",
        "\"pattern\":",
        "command=",
        "old: ",
        "text:\n",
        "{",
        "(path=",
    ];
    let texts: Vec<String> = tools
        .iter()
        .flat_map(|tool| {
            keys.iter().flat_map(move |key| {
                (0..80).flat_map(move |gap| {
                    [" ", ":", "x", "é"].map(|fill| {
                        let filler = fill.repeat(gap);
                        format!("see {} {filler}{key} end", tool.name())
                    })
                })
            })
        })
        .collect();
    let attempted = texts
        .iter()
        .filter(|text| by_searches(text, &tools).4)
        .count();
    // Keys near a name are attempts, beyond the reach they are not: both kinds are compared.
    assert!(attempted > 0 && attempted < texts.len());
    let missed: Vec<&String> = texts
        .iter()
        .filter(|text| by_one_pass(text, &tools) != by_searches(text, &tools))
        .collect();
    assert_eq!(missed, Vec::<&String>::new());
}
