//! What the user asked mend itself during a chat, between messages: `/verify` (the tests on the
//! change so far) and `/save PATH` (the change written as a patch), each with its outcome and its
//! place in the conversation. The end of a chat is decided from them (was the last change
//! saved?), so the record keeps them; replay and `mend show` tell them where they happened.

use serde::{Deserialize, Serialize};

use crate::verdict::check::TestRun;

/// One command, after `after_messages` messages of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatCommand {
    /// How many messages the conversation had when the command was typed.
    pub after_messages: usize,
    /// Which command it was and what came of it.
    #[serde(flatten)]
    pub asked: Asked,
}

/// The command and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Asked {
    /// `/verify`: the tests on the original plus the tools' change, and whether the verdict
    /// passed.
    Verify {
        /// The run of the tests on the copy as it stood.
        tests: Box<TestRun>,
        /// Whether the verdict on that run was a PASS.
        passed: bool,
    },
    /// `/save PATH`.
    Save {
        /// Where the user asked the change to be written.
        path: String,
        /// What the write did.
        saved: Saved,
    },
}

/// What `/save` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Saved {
    /// The change was written; its digest tells which change it was.
    Written {
        /// SHA-256 of the written diff.
        diff_sha256: String,
    },
    /// There was no change to write: nothing was written.
    NoChange,
    /// The write failed (a folder that does not exist, say); nothing was written.
    Failed {
        /// Why, as the user was told.
        error: String,
    },
}

impl ChatCommand {
    /// The command and its outcome in a line, as `mend show` and a replay tell it.
    pub fn describe(&self) -> String {
        match &self.asked {
            Asked::Verify { tests, passed } => format!(
                "/verify: {} — {}",
                tests.describe(),
                if *passed { "PASS" } else { "FAIL" }
            ),
            Asked::Save { path, saved } => match saved {
                Saved::Written { .. } => format!("/save {path}: the change was written"),
                Saved::NoChange => format!("/save {path}: no change yet, nothing written"),
                Saved::Failed { error } => format!("/save {path}: not written — {error}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Asked, ChatCommand, Saved};
    use crate::verdict::check::TestRun;
    use crate::verdict::read::summary::Summary;

    #[test]
    fn each_command_keeps_its_place_and_outcome_through_json_and_in_words() {
        let tests = TestRun {
            exit_code: Some(1),
            summary: Some(Summary {
                passed: 3,
                failed: 1,
                ..Summary::default()
            }),
            duration_ms: 420,
            ..TestRun::default()
        };
        let commands = [
            ChatCommand {
                after_messages: 1,
                asked: Asked::Verify {
                    tests: Box::new(tests.clone()),
                    passed: false,
                },
            },
            ChatCommand {
                after_messages: 2,
                asked: Asked::Save {
                    path: "fix.patch".to_owned(),
                    saved: Saved::Written {
                        diff_sha256: "ab12".to_owned(),
                    },
                },
            },
            ChatCommand {
                after_messages: 0,
                asked: Asked::Save {
                    path: "early.patch".to_owned(),
                    saved: Saved::NoChange,
                },
            },
            ChatCommand {
                after_messages: 2,
                asked: Asked::Save {
                    path: "no/such/fix.patch".to_owned(),
                    saved: Saved::Failed {
                        error: "the folder no/such does not exist".to_owned(),
                    },
                },
            },
        ];
        let json = serde_json::to_value(&commands).unwrap();
        assert_eq!(
            json[1],
            serde_json::json!({
                "after_messages": 2, "command": "save", "path": "fix.patch",
                "saved": {"outcome": "written", "diff_sha256": "ab12"}
            })
        );
        let back: Vec<ChatCommand> = serde_json::from_value(json).unwrap();
        assert_eq!(back, commands);
        assert_eq!(
            commands
                .iter()
                .map(ChatCommand::describe)
                .collect::<Vec<_>>(),
            [
                format!("/verify: {} — FAIL", tests.describe()),
                "/save fix.patch: the change was written".to_owned(),
                "/save early.patch: no change yet, nothing written".to_owned(),
                "/save no/such/fix.patch: not written — the folder no/such does not exist"
                    .to_owned(),
            ]
        );
    }
}
