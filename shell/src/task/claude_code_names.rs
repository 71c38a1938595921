//! Claude Code's names for mend's tools: what a Claude Code hook's matcher names, read by the
//! hooks' matching (task/hooks.rs) and the Claude Code translation (task/claude_code.rs).

/// Each of mend's tools with the Claude Code tools that do its work, the first being the one a
/// Claude Code hook is told of (`tool_name`). `run_tests` has none: it runs the task's own
/// command, which no Claude Code tool stands for.
pub const CLAUDE_CODE_TOOLS: [(&str, &[&str]); 6] = [
    ("write_file", &["Write"]),
    ("replace_text", &["Edit", "MultiEdit"]),
    ("read_file", &["Read"]),
    ("shell", &["Bash"]),
    ("grep", &["Grep"]),
    ("list_files", &["Glob", "LS"]),
];

/// The Claude Code names of mend's `tool`.
pub fn names_of(tool: &str) -> &'static [&'static str] {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|(mend, _)| *mend == tool)
        .map_or(&[], |(_, names)| *names)
}

/// Every tool name a matcher can meet: mend's own and Claude Code's for them.
pub fn every_tool_name() -> Vec<&'static str> {
    super::ToolName::ALL
        .iter()
        .map(|tool| tool.name())
        .chain(
            CLAUDE_CODE_TOOLS
                .iter()
                .flat_map(|(_, names)| names.iter().copied()),
        )
        .collect()
}
