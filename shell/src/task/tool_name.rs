//! The tools a task may offer, and the one place their names are spelled: as the model calls
//! them, as the task file lists them, as records keep them. Their schemas are in
//! [`crate::tools::table`].

/// One tool mend can offer the model; a task offers some of them, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolName {
    /// `list_files`: the copy's files the task lets the model read.
    ListFiles,
    /// `grep`: lines matching a pattern across the readable files.
    Grep,
    /// `read_file`: one readable file's text.
    ReadFile,
    /// `write_file`: a whole editable file, new or replaced.
    WriteFile,
    /// `replace_text`: one exact span of an editable file replaced.
    ReplaceText,
    /// `run_tests`: the task's test command on the copy, in the sandbox.
    RunTests,
    /// `shell`: a command of the model's in the sandbox, bounded by `[tools.shell]`.
    Shell,
}

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
        match self {
            ToolName::ListFiles => "list_files",
            ToolName::Grep => "grep",
            ToolName::ReadFile => "read_file",
            ToolName::WriteFile => "write_file",
            ToolName::ReplaceText => "replace_text",
            ToolName::RunTests => "run_tests",
            ToolName::Shell => "shell",
        }
    }

    /// The tool called `name`, if mend has one.
    pub fn named(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|tool| tool.name() == name)
    }

    /// `list_files, grep, ... and shell`, for a message that names them all.
    pub fn listed() -> String {
        let names: Vec<&str> = ToolName::ALL.map(ToolName::name).to_vec();
        match names.split_last() {
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ToolName;

    #[test]
    fn every_tool_has_one_name_and_every_name_one_tool() {
        let round_trip: Vec<Option<ToolName>> = ToolName::ALL
            .iter()
            .map(|tool| ToolName::named(tool.name()))
            .collect();
        assert_eq!(round_trip, ToolName::ALL.map(Some));
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
