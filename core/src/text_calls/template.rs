//! Which family of written calls a model uses, from what its server says of it: the chat
//! template (Ollama's `/api/show` `template`, llama-server's `/props` `chat_template`) holds the
//! family's own markers, as it must to render past calls; Ollama also names the parser it runs
//! for the model (`/api/show` `parser`). The template is only searched, never rendered, so one
//! that does not parse is simply one without markers: the general detector reads for every
//! family, as it does for a model no one named.

use super::scan::{Signs, FAMILIES};

/// The family whose markers the template holds (the most specific first, as the readers'
/// table orders them), or `None`.
pub fn family_of_template(template: &str) -> Option<&'static str> {
    Signs::of(template)
        .first_family()
        .map(|index| FAMILIES[index].name)
}

/// Ollama's parser names (`/api/show` `parser`) and the family each reads, by prefix.
pub(super) const PARSERS: [(&str, &str); 11] = [
    ("gemma4", "gemma4"),
    ("functiongemma", "gemma_tool_code"),
    ("qwen3", "hermes_qwen3_glm"),
    ("glm", "hermes_qwen3_glm"),
    ("nemotron-3", "hermes_qwen3_glm"),
    ("cogito", "deepseek"),
    ("deepseek", "deepseek"),
    ("olmo3", "olmo3"),
    ("lfm2", "lfm2"),
    ("harmony", "harmony"),
    ("ministral", "mistral"),
];

/// The family Ollama's parser `name` reads, or `None` for a parser this table does not know.
pub fn family_of_parser(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    PARSERS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, family)| *family)
}

/// The index in the readers' table of the family called `name`; `None` for a name no reader
/// has (a record from a later mend, a typo), which leaves the general detector.
pub(super) fn index_of(name: &str) -> Option<usize> {
    FAMILIES.iter().position(|family| family.name == name)
}
