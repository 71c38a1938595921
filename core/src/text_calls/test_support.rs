//! What the text-call readers' tests share: a tool list and the reader's answer as plain values.

use serde_json::Value;

use super::scan::calls_in;
use super::*;
use crate::protocol::CallArguments;
use crate::schema::JsonType;

/// Two tools: `read_file` (a required string `path`, an integer `start_line`) and `run_tests`
/// (no parameters).
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::function(
            "read_file",
            "Read",
            &[
                ("path", JsonType::String, "which file"),
                ("start_line", JsonType::Integer, "from"),
            ],
            &["path"],
        ),
        ToolSpec::function("run_tests", "Run the tests", &[], &[]),
    ]
}

/// Each call found: its name, arguments (an unreadable one as its problem), format and raw text.
pub(super) type Read = Vec<(String, Value, TextCallFormat, String)>;

/// What a text reads as against [`tools`], or `None` when it stays text.
pub(super) fn read(content: &str) -> Option<Read> {
    calls_in(content, &Signs::of(content), &tools(), None).map(|found| {
        found
            .into_iter()
            .map(|Found { call, format, text }| {
                let arguments = match call.arguments {
                    CallArguments::Object { value } => Value::Object(value),
                    CallArguments::Unreadable { problem } => Value::String(problem),
                };
                (call.name, arguments, format, text)
            })
            .collect()
    })
}
