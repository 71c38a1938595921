//! A field the task file must give and does not, said where it belongs.

use std::ops::Range;

/// A field the task file must give and does not, said where it belongs: a table the file
/// lacks, or a key its table lacks.
pub(super) fn missing_field(
    message: &str,
    text: &str,
    span: Option<Range<usize>>,
) -> Option<String> {
    let name = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    let example = |name: &str| match name {
        "paths" => Some("[paths] with readable = [\"**\"] and editable = [\"src/**\"]"),
        "test" => Some("[test] with command = [\"python\", \"-m\", \"pytest\", \"-q\"]"),
        "command" => Some("command = [\"python\", \"-m\", \"pytest\", \"-q\"]"),
        "readable" => Some("readable = [\"**\"]"),
        "editable" => Some("editable = [\"src/**\"]"),
        _ => None,
    };
    // A table's own name is missing at the top level, whatever line the span starts on.
    let top_level = ["paths", "test"].contains(&name);
    let header = span.filter(|_| !top_level).and_then(|span| {
        let line_start = text[..span.start.min(text.len())]
            .rfind('\n')
            .map_or(0, |at| at + 1);
        let line = text[line_start..].lines().next()?.trim();
        line.starts_with('[').then(|| line.to_owned())
    });
    Some(match (header, example(name)) {
        (Some(header), Some(example)) => {
            format!("{header} needs `{name}`: add {example}")
        }
        (Some(header), None) => format!("{header} needs `{name}`"),
        (None, Some(example)) => format!("the task file has no [{name}] table: add {example}"),
        (None, None) => format!("the task file needs `{name}`"),
    })
}
