//! Every tool's schema, in one table. A description may name the task's own files and command
//! through placeholders, so the model reads `path_rules.py`, not "the editable file":
//! `{readable}`/`{readable_or}`, `{editable}`/`{editable_or}`, `{command}`, `{shell_timeout}`,
//! and `{protected}`: the protected files the editable globs reach, when they reach any.

use mend_core::{JsonType, ToolSpec};

use crate::task::{Task, ToolName};

/// When a parameter is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Offered {
    Always,
    /// Only when more than one file is editable: otherwise there is nothing to choose.
    WhenSeveralEditable,
    /// Only when the task turns line ranges on (`tools.read_file_line_range`).
    WhenLineRanges,
}

struct Param {
    name: &'static str,
    kind: JsonType,
    required: bool,
    offered: Offered,
    about: &'static str,
}

struct ToolRow {
    name: ToolName,
    about: &'static str,
    params: &'static [Param],
}

const fn param(name: &'static str, kind: JsonType, about: &'static str) -> Param {
    Param {
        name,
        kind,
        required: true,
        offered: Offered::Always,
        about,
    }
}

const fn optional(
    name: &'static str,
    kind: JsonType,
    offered: Offered,
    about: &'static str,
) -> Param {
    Param {
        name,
        kind,
        required: false,
        offered,
        about,
    }
}

/// Capped listings keep one call from flooding the model's context.
pub(crate) const LIST_FILES_CAP: usize = 200;
pub(crate) const GREP_MATCH_CAP: usize = 100;

const TABLE: &[ToolRow] = &[
    ToolRow {
        name: ToolName::ListFiles,
        about: "List the repository's readable files ({readable_or}), sorted; at most 200 are listed.",
        params: &[optional(
            "pattern",
            JsonType::String,
            Offered::Always,
            "only files matching this glob, e.g. `src/**/*.py` (`*` stays in one folder, `**` crosses folders)",
        )],
    },
    ToolRow {
        name: ToolName::Grep,
        about: "Search the readable files for a regular expression; returns at most 100 matching lines as `file:line: text`.",
        params: &[
            param("pattern", JsonType::String, "a regular expression (Rust regex syntax)"),
            optional(
                "path",
                JsonType::String,
                Offered::Always,
                "only files matching this glob",
            ),
        ],
    },
    ToolRow {
        name: ToolName::ReadFile,
        about: "Read one file of the repository. Only {readable} can be read.",
        params: &[
            param("path", JsonType::String, "{readable_or}"),
            optional(
                "start_line",
                JsonType::Integer,
                Offered::WhenLineRanges,
                "the first line to return, counting from 1 (for big files)",
            ),
            optional(
                "end_line",
                JsonType::Integer,
                Offered::WhenLineRanges,
                "the last line to return, inclusive",
            ),
        ],
    },
    ToolRow {
        name: ToolName::WriteFile,
        about: "Create a file or replace its whole text. Only {editable} can be written.{protected}",
        params: &[
            param("path", JsonType::String, "{editable_or}"),
            param("text", JsonType::String, "the complete new text of the file"),
        ],
    },
    ToolRow {
        name: ToolName::ReplaceText,
        about: "Replace one exact occurrence of `old` with `new` in {editable_or}. `old` must occur exactly once.{protected}",
        params: &[
            Param {
                required: true,
                ..optional(
                    "path",
                    JsonType::String,
                    Offered::WhenSeveralEditable,
                    "the file to edit: {editable_or}",
                )
            },
            param("old", JsonType::String, "the exact text to replace, copied from the file"),
            param("new", JsonType::String, "the replacement text"),
        ],
    },
    ToolRow {
        name: ToolName::RunTests,
        about: "Run the repository's test suite ({command}) and return the exit code and the output.",
        params: &[],
    },
    ToolRow {
        name: ToolName::Shell,
        about: "Run a command with `sh -c` in the repository, inside a sandbox without network; returns the exit code and the end of the output. It is stopped after {shell_timeout} s.",
        params: &[param("command", JsonType::String, "the shell command")],
    },
];

/// The tools a session offers: the task's, and the core-answered `todo` tool when the per-turn
/// context is on.
pub fn offered_tools(task: &Task, context: bool) -> Vec<mend_core::ToolSpec> {
    let mut tools = tool_specs(task);
    if context {
        tools.push(mend_core::todo_tool());
    }
    tools
}

fn row(tool: ToolName) -> &'static ToolRow {
    // The table has a row for every ToolName; the test below walks them all.
    TABLE
        .iter()
        .find(|row| row.name == tool)
        .unwrap_or(&TABLE[0])
}

/// The schemas the task offers, in the task's order.
pub(crate) fn tool_specs(task: &Task) -> Vec<ToolSpec> {
    task.tools
        .iter()
        .map(|tool| spec(row(*tool), task))
        .collect()
}

fn spec(row: &ToolRow, task: &Task) -> ToolSpec {
    let offered: Vec<&Param> = row
        .params
        .iter()
        .filter(|param| match param.offered {
            Offered::Always => true,
            Offered::WhenSeveralEditable => task.editable.single_file().is_none(),
            Offered::WhenLineRanges => task.read_file_line_range,
        })
        .collect();
    let abouts: Vec<String> = offered
        .iter()
        .map(|param| fill(param.about, task))
        .collect();
    let properties: Vec<(&str, JsonType, &str)> = offered
        .iter()
        .zip(&abouts)
        .map(|(param, about)| (param.name, param.kind, about.as_str()))
        .collect();
    let required: Vec<&str> = offered
        .iter()
        .filter(|param| param.required)
        .map(|param| param.name)
        .collect();
    ToolSpec::function(
        row.name.name(),
        &fill(row.about, task),
        &properties,
        &required,
    )
}

fn fill(template: &str, task: &Task) -> String {
    template
        .replace("{readable_or}", &task.readable.listed("or"))
        .replace("{readable}", &task.readable.listed("and"))
        .replace("{editable_or}", &task.editable.listed("or"))
        .replace("{editable}", &task.editable.listed("and"))
        .replace("{command}", &task.test.argv.join(" "))
        .replace("{shell_timeout}", &task.shell.timeout.as_secs().to_string())
        .replace("{protected}", &crate::access::protected_note(task))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_exactly_one_row() {
        let rows: Vec<usize> = ToolName::ALL
            .iter()
            .map(|tool| TABLE.iter().filter(|row| row.name == *tool).count())
            .collect();
        assert_eq!((rows, TABLE.len()), (vec![1; 7], 7));
    }
}
