//! Per-turn context: an optional system hint placed after the conversation in each request, so
//! the model knows where it is (the working directory, the OS, the turn and its budget), what its
//! tools have done so far, and its own TODO list. The hint is a pure function of the session
//! state: it is never stored in the conversation, and a replay rebuilds it exactly.
//!
//! The TODO list is kept through a `todo` tool that the core answers itself: nothing is
//! dispatched to the shell, the list is part of the session state.

use crate::prelude::*;

use alloc::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::schema::{JsonType, ToolSpec};
use crate::wire::Message;

/// The name of the tool the core answers itself.
pub const TODO_TOOL: &str = "todo";

/// What the shell tells the core about the world, once, at the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextConfig {
    /// The name (not the path) of the repository's folder.
    pub workdir: String,
    /// The operating system's name (`linux`, `macos`, ...).
    pub os: String,
}

/// Results so far, per tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolStats {
    /// Counts per tool name, sorted by name.
    pub per_tool: BTreeMap<String, Counts>,
}

/// How one tool's calls ended so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Calls that ran and succeeded.
    pub ok: u32,
    /// Calls that ran and reported an error.
    pub failed: u32,
    /// Calls refused before they ran.
    pub refused: u32,
}

/// One item of the model's TODO list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// What to do.
    pub text: String,
    /// Whether it is done.
    pub done: bool,
}

/// The `todo` tool: the model sends its whole list each time.
pub fn todo_tool() -> ToolSpec {
    ToolSpec::function(
        TODO_TOOL,
        "Replace your TODO list. Send every item each time, as {\"text\": ..., \"done\": true|false}; the list is shown back to you before each turn.",
        &[("items", JsonType::Array, "the whole list, in order")],
        &["items"],
    )
}

/// Reads a `todo` call's items, or says what is wrong with them (for the model).
pub(crate) fn todo_items(arguments: &Map<String, Value>) -> Result<Vec<TodoItem>, String> {
    let items = arguments
        .get("items")
        .and_then(Value::as_array)
        .ok_or("`items` must be an array")?;
    items
        .iter()
        .enumerate()
        .map(|(at, item)| {
            match (
                item.get("text").and_then(Value::as_str),
                item.get("done").and_then(Value::as_bool),
            ) {
                (Some(text), Some(done)) => Ok(TodoItem {
                    text: text.to_owned(),
                    done,
                }),
                _ => Err(format!(
                    "item {at} must be {{\"text\": string, \"done\": boolean}}"
                )),
            }
        })
        .collect()
}

/// The result the model gets for a `todo` call.
pub(crate) fn todo_result(items: &[TodoItem]) -> Value {
    json!({"todo": items.iter().map(|item| json!({"text": item.text, "done": item.done})).collect::<Vec<_>>()})
}

/// The hint for the request of `turn`.
pub fn hint(
    config: &ContextConfig,
    turn: u32,
    max_turns: u32,
    stats: &ToolStats,
    todo: &[TodoItem],
) -> Message {
    let mut text = format!(
        "Context for turn {turn} of {max_turns} (working directory `{}`, OS {}).",
        config.workdir, config.os
    );
    if stats.per_tool.is_empty() {
        text.push_str("\nNo tool calls yet.");
    } else {
        let tools: Vec<String> = stats
            .per_tool
            .iter()
            .map(|(name, counts)| {
                let parts: Vec<String> = [
                    (counts.ok, "ok"),
                    (counts.failed, "failed"),
                    (counts.refused, "refused"),
                ]
                .iter()
                .filter(|(count, _)| *count > 0)
                .map(|(count, word)| format!("{count} {word}"))
                .collect();
                format!("{name} {}", parts.join(", "))
            })
            .collect();
        text.push_str(&format!("\nTool calls so far: {}.", tools.join("; ")));
    }
    if !todo.is_empty() {
        let items: Vec<String> = todo
            .iter()
            .map(|item| format!("[{}] {}", if item.done { "x" } else { " " }, item.text))
            .collect();
        text.push_str(&format!("\nYour TODO list: {}.", items.join("; ")));
    }
    Message::system(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_says_where_the_model_is() {
        let config = ContextConfig {
            workdir: "sample-repo".to_owned(),
            os: "linux".to_owned(),
        };
        let mut stats = ToolStats::default();
        stats.per_tool.insert(
            "read_file".to_owned(),
            Counts {
                ok: 2,
                failed: 0,
                refused: 1,
            },
        );
        let todo = [
            TodoItem {
                text: "read".to_owned(),
                done: true,
            },
            TodoItem {
                text: "fix".to_owned(),
                done: false,
            },
        ];
        assert_eq!(
            hint(&config, 3, 8, &stats, &todo),
            Message::system(
                "Context for turn 3 of 8 (working directory `sample-repo`, OS linux).\nTool calls so far: read_file 2 ok, 1 refused.\nYour TODO list: [x] read; [ ] fix."
            )
        );
        assert_eq!(
            hint(&config, 1, 8, &ToolStats::default(), &[]),
            Message::system("Context for turn 1 of 8 (working directory `sample-repo`, OS linux).\nNo tool calls yet.")
        );
    }
}
