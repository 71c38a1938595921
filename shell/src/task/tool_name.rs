//! The tools a task may offer, and the one place their names are spelled: as the model calls
//! them, as the task file lists them, as records keep them. Their schemas are in
//! [`crate::tools::table`].

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolName {
    ListFiles,
    Grep,
    ReadFile,
    WriteFile,
    ReplaceText,
    RunTests,
    Shell,
}

/// Every tool with its name, in the order mend lists them.
const NAMES: [(ToolName, &str); 7] = [
    (ToolName::ListFiles, "list_files"),
    (ToolName::Grep, "grep"),
    (ToolName::ReadFile, "read_file"),
    (ToolName::WriteFile, "write_file"),
    (ToolName::ReplaceText, "replace_text"),
    (ToolName::RunTests, "run_tests"),
    (ToolName::Shell, "shell"),
];

impl ToolName {
    /// Every tool, in the order mend lists them.
    pub const ALL: [ToolName; 7] = [
        ToolName::ListFiles,
        ToolName::Grep,
        ToolName::ReadFile,
        ToolName::WriteFile,
        ToolName::ReplaceText,
        ToolName::RunTests,
        ToolName::Shell,
    ];

    /// The name the model calls it by.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(tool, _)| *tool == self)
            .map_or("", |(_, name)| name)
    }

    /// The tool called `name`, if mend has one.
    pub fn named(name: &str) -> Option<ToolName> {
        NAMES
            .iter()
            .find(|(_, named)| *named == name)
            .map(|(tool, _)| *tool)
    }

    /// `list_files, grep, ... and shell`, for a message that names them all.
    pub fn listed() -> String {
        let names: Vec<&str> = NAMES.iter().map(|(_, name)| *name).collect();
        match names.split_last() {
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ToolName, NAMES};

    #[test]
    fn every_tool_has_one_name_and_every_name_one_tool() {
        let round_trip: Vec<Option<ToolName>> = ToolName::ALL
            .iter()
            .map(|tool| ToolName::named(tool.name()))
            .collect();
        assert_eq!(round_trip, ToolName::ALL.map(Some));
        let tools: Vec<ToolName> = NAMES.iter().map(|(tool, _)| *tool).collect();
        assert_eq!(tools, ToolName::ALL);
        assert_eq!(
            (ToolName::named("todo"), ToolName::listed()),
            (
                None,
                "list_files, grep, read_file, write_file, replace_text, run_tests and shell"
                    .to_owned()
            )
        );
    }
}
