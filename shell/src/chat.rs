//! `mend chat`: an interactive session on one throwaway copy of a repository. Each line the user
//! types is a message in one ongoing conversation (a new core session per message, continued
//! with [`Session::follow_up`]); lines starting with `/` are commands for mend itself. The
//! conversation is recorded after every message (see [`crate::chat_record`]).

use std::io::{BufRead, Write};

use camino::Utf8Path;
use mend_core::{Action, Config, Session};

use crate::changes::{set_sha256, unified_diff};
use crate::chat_record::{ChatEnding, ChatMessage, ChatRecord, CHAT_FORMAT};
use crate::driver::Driver;
use crate::error::{exit, MendError};
use crate::interrupt;
use crate::ollama::client::LiveSource;
use crate::record::{write_json_atomically, ServerFacts, SessionSettings};
use crate::render::{Render, RunEvent};
use crate::run::Connection;
use crate::runner::TestRunner;
use crate::task::Task;
use crate::verify::final_check;
use crate::workspace::Workspace;

pub const CHAT_HELP: &str = "\
Type a message for the model; it works on a throwaway copy of the repository.
  /diff        show what the conversation has changed so far
  /verify      run the task's tests on the copy (the independent check)
  /save PATH   write the change as a patch file (apply it with `git apply` or `patch -p1`)
  /help        this text
Ctrl-C interrupts the model's turn and keeps the conversation; Ctrl-D (end of input) ends it.";

pub struct ChatSetup<'a> {
    pub repo: &'a Utf8Path,
    pub task: &'a Task,
    pub runner: &'a TestRunner,
    pub connection: &'a Connection,
    /// The settings of each message's session; its `task` is replaced by what the user types.
    pub config: Config,
    pub keep_workspace: bool,
    /// Where the conversation is recorded, after every message.
    pub record: &'a Utf8Path,
}

/// A line the user typed.
#[derive(Debug, PartialEq, Eq)]
enum Said<'a> {
    Message(&'a str),
    Diff,
    Verify,
    Save(&'a str),
    Help,
    Unknown(&'a str),
    Nothing,
}

fn parse(line: &str) -> Said<'_> {
    let line = line.trim();
    let Some(command) = line.strip_prefix('/') else {
        return if line.is_empty() {
            Said::Nothing
        } else {
            Said::Message(line)
        };
    };
    let (name, rest) = command
        .split_once(char::is_whitespace)
        .map_or((command, ""), |(name, rest)| (name, rest.trim()));
    match (name, rest) {
        ("diff", "") => Said::Diff,
        ("verify", "") => Said::Verify,
        ("help", "") => Said::Help,
        ("save", path) if !path.is_empty() => Said::Save(path),
        _ => Said::Unknown(line),
    }
}

/// Runs the conversation until the input ends. The original repository is only read.
pub fn chat(
    setup: &ChatSetup,
    input: &mut dyn BufRead,
    render: &mut dyn Render,
) -> Result<u8, MendError> {
    let workspace = Workspace::copy_of(setup.repo, &setup.task.exclude)?;
    render.run_event(&RunEvent::RunStart {
        command: "chat".to_owned(),
        model: setup.config.model.clone(),
        source: setup.connection.described.clone(),
    });
    render.run_event(&RunEvent::sandbox(&setup.runner.sandbox));
    say(&format!(
        "Working on a copy of {} (task file {}).\n{CHAT_HELP}",
        setup.repo, setup.task.origin
    ));
    let server = ServerFacts {
        model_digest: setup.connection.model_digest.clone(),
        server_version: setup.connection.server_version.clone(),
        sandbox: setup.runner.sandbox.name(),
    };
    let mut record = ChatRecord {
        format: CHAT_FORMAT.to_owned(),
        settings: SessionSettings::of(&setup.config, &server, setup.repo),
        test_file_sha256_before: set_sha256(setup.repo, &setup.task.test.files)?,
        source_sha256_before: set_sha256(setup.repo, &setup.task.editable)?,
        messages: Vec::new(),
        ending: None,
    };
    let mut conversation: Option<Session> = None;
    loop {
        prompt();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) => return Err(MendError::harness(format!("cannot read the input: {err}"))),
        }
        match parse(&line) {
            Said::Nothing => {}
            Said::Help => say(CHAT_HELP),
            Said::Unknown(line) => say(&format!(
                "`{line}` is not a command of mend chat; type /help for the list"
            )),
            Said::Diff => {
                let diff = unified_diff(setup.repo, workspace.root(), &setup.task.editable)?;
                if diff.is_empty() {
                    say("No changes yet.");
                } else {
                    render.run_event(&RunEvent::Diff { text: diff });
                }
            }
            Said::Verify => {
                let run = final_check(setup.runner, &setup.task.test, workspace.root())?;
                render.run_event(&RunEvent::TestsAfter { run });
            }
            Said::Save(path) => {
                let diff = unified_diff(setup.repo, workspace.root(), &setup.task.editable)?;
                if diff.is_empty() {
                    say("No changes yet; nothing was written.");
                } else {
                    // A failed write is reported and the conversation goes on: nothing is lost.
                    match crate::patch::write_atomically(Utf8Path::new(path), &diff) {
                        Ok(()) => say(&format!("Wrote the change to {path}.")),
                        Err(err) => say(&format!("mend: {err}")),
                    }
                }
            }
            Said::Message(text) => {
                let (session, first) = message_session(conversation.as_ref(), &setup.config, text)?;
                interrupt::reset();
                let mut source = LiveSource {
                    client: &setup.connection.client,
                };
                let mut driver = Driver {
                    source: &mut source,
                    root: workspace.root(),
                    task: setup.task,
                    runner: setup.runner,
                    observer: render,
                };
                let (transcript, stopped) = driver.drive(session, first)?;
                interrupt::reset();
                if let Some(detail) = transcript.stop.detail.as_deref().filter(|_| {
                    matches!(
                        transcript.stop.reason,
                        mend_core::StopReason::ModelError
                            | mend_core::StopReason::IncompleteModelTurn
                    )
                }) {
                    say(&format!(
                        "mend: {}",
                        crate::run::with_hint(detail, &setup.config.model)
                    ));
                }
                conversation = Some(stopped);
                record.messages.push(ChatMessage {
                    text: text.to_owned(),
                    turns: transcript.turns,
                    tool_calls: transcript.tool_calls,
                    stop: transcript.stop,
                });
                write_json_atomically(setup.record, &record)?;
            }
        }
    }
    let diff = unified_diff(setup.repo, workspace.root(), &setup.task.editable)?;
    if !record.messages.is_empty() {
        // The verdict on the conversation is the tests', taken once more at the end.
        let tests_after = final_check(setup.runner, &setup.task.test, workspace.root())?;
        render.run_event(&RunEvent::TestsAfter {
            run: tests_after.clone(),
        });
        let test_file_sha256_after = set_sha256(workspace.root(), &setup.task.test.files)?;
        if test_file_sha256_after != record.test_file_sha256_before {
            say(&format!(
                "The conversation changed the task's test files ({}): its final tests do not count as a pass.",
                setup.task.test.files.listed("and")
            ));
        }
        record.ending = Some(ChatEnding {
            tests_after,
            test_file_sha256_after,
            source_sha256_after: set_sha256(workspace.root(), &setup.task.editable)?,
            diff: diff.clone(),
        });
        write_json_atomically(setup.record, &record)?;
        say(&format!(
            "The conversation is recorded in {} (replay it with `mend replay {}`).",
            setup.record, setup.record
        ));
    }
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    } else if !diff.is_empty() {
        say("The copy is discarded; its change was not saved (use /save PATH next time).");
    }
    Ok(exit::PASS)
}

/// The session of a typed message: the first starts the conversation with `config`, every
/// later one continues the one before.
pub(crate) fn message_session(
    previous: Option<&Session>,
    config: &Config,
    text: &str,
) -> Result<(Session, Vec<Action>), MendError> {
    match previous {
        None => Session::new(Config {
            task: text.to_owned(),
            ..config.clone()
        })
        .map_err(|err| MendError::usage(format!("invalid configuration: {err}"))),
        Some(previous) => previous
            .follow_up(text)
            .map_err(|err| MendError::harness(format!("cannot go on: {err}"))),
    }
}

fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// The prompt goes to stderr, so that stdout holds only the conversation.
fn prompt() {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "mend> ");
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::{parse, Said};

    #[test]
    fn lines_are_messages_or_commands() {
        let cases = [
            ("fix the bug\n", Said::Message("fix the bug")),
            ("  /diff \n", Said::Diff),
            ("/verify", Said::Verify),
            ("/save out/fix.patch\n", Said::Save("out/fix.patch")),
            ("/save", Said::Unknown("/save")),
            ("/diff now", Said::Unknown("/diff now")),
            ("/quit", Said::Unknown("/quit")),
            ("/help", Said::Help),
            ("   \n", Said::Nothing),
        ];
        for (line, said) in cases {
            assert_eq!(parse(line), said, "{line:?}");
        }
    }
}
