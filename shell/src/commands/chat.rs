//! `mend chat`: an interactive session on one throwaway copy of a repository. Each line the user
//! types is a message in one ongoing conversation (a new core session per message, continued
//! with [`Session::follow_up`]); lines starting with `/` are commands for mend itself. The
//! conversation is recorded after every message, in the one record format ([`crate::record`]).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use camino::Utf8Path;
use mend_core::{Action, Config, Session};

use crate::commands::run::Connection;
use crate::error::{exit, MendError};
use crate::interrupt;
use crate::provider::client::LiveSource;
use crate::record::target::{RecordFile, RecordTarget};
use crate::record::{Ending, Message, Origin, Record, ServerFacts, SessionSettings, RECORD_FORMAT};
use crate::session::driver::Driver;
use crate::session::render::{Render, RunEvent};
use crate::task::Task;
use crate::verdict::verify::final_check;
use crate::workspace::changes::{set_sha256, unified_diff};
use crate::workspace::runner::TestRunner;
use crate::workspace::sandbox::SandboxChoice;
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
    pub record: RecordTarget,
    /// The `--sandbox` given, kept in the record for replay.
    pub sandbox_choice: SandboxChoice,
}

/// A line the user typed.
#[derive(Debug, PartialEq, Eq)]
enum Said<'a> {
    Message(&'a str),
    Diff,
    Verify,
    Save(&'a str),
    /// `/save` without a path.
    SaveWhere,
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
        ("save", "") => Said::SaveWhere,
        ("save", path) => Said::Save(path),
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
        model_length: setup.connection.model_length,
        sandbox: setup.runner.sandbox.name(),
    };
    let mut record = Record {
        format: RECORD_FORMAT.to_owned(),
        description: None,
        settings: SessionSettings::of(
            &setup.config,
            &server,
            &Origin {
                repo: setup.repo,
                python: &setup.runner.python,
                sandbox_choice: setup.sandbox_choice,
            },
        ),
        test_file_sha256_before: set_sha256(setup.repo, &setup.task.test.files)?,
        source_sha256_before: set_sha256(setup.repo, &setup.task.editable)?,
        messages: Vec::new(),
        tests_before: None,
        ending: None,
        file_sha256_before: BTreeMap::new(),
        metrics: None,
        resumed_from: None,
    };
    let mut record_file = RecordFile::new(setup.record.clone());
    let mut conversation: Option<Session> = None;
    // The last change written by /save, and where: Ctrl-D tells whether the end state is saved.
    let mut saved: Option<(String, String)> = None;
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
            Said::SaveWhere => say(SAVE_USAGE),
            Said::Save(path) => {
                let diff = unified_diff(setup.repo, workspace.root(), &setup.task.editable)?;
                if diff.is_empty() {
                    say("No changes yet; nothing was written.");
                } else {
                    // A failed write is reported and the conversation goes on: nothing is lost.
                    match save(Utf8Path::new(path), &diff) {
                        Ok(()) => {
                            say(&format!("Wrote the change to {path}."));
                            saved = Some((diff, path.to_owned()));
                        }
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
                if transcript.stop.detail.is_some()
                    && matches!(
                        transcript.stop.reason,
                        mend_core::StopReason::ModelError
                            | mend_core::StopReason::IncompleteModelTurn
                    )
                {
                    say(&format!(
                        "mend: {}",
                        crate::commands::outcome::explain_stop(
                            &transcript.stop,
                            &setup.config.model
                        )
                    ));
                }
                conversation = Some(stopped);
                record.messages.push(Message {
                    text: Some(text.to_owned()),
                    max_turns: None,
                    deadline_ms: None,
                    turns: transcript.turns,
                    tool_calls: transcript.tool_calls,
                    stop: transcript.stop,
                });
                record_file.write_json(&record)?;
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
        record.ending = Some(Ending {
            tests_after,
            test_file_sha256_after,
            source_sha256_after: set_sha256(workspace.root(), &setup.task.editable)?,
            diff: diff.clone(),
        });
        let path = record_file.write_json(&record)?;
        say(&format!(
            "The conversation is recorded in {path} (replay it with `mend replay {path}`)."
        ));
    }
    if setup.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    } else if let Some(ending) = discarded(&diff, saved.as_ref()) {
        say(&ending);
    }
    Ok(exit::PASS)
}

const SAVE_USAGE: &str = "/save PATH writes the change as a patch file, e.g. `/save fix.patch`; \
                          the folder must exist (mend creates none)";

/// Writes the patch only into a folder that already exists: a mistyped path must not leave
/// folders behind anywhere on the machine.
fn save(path: &Utf8Path, diff: &str) -> Result<(), MendError> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_str().is_empty() => folder,
        _ => Utf8Path::new("."),
    };
    if !folder.is_dir() {
        return Err(MendError::harness(format!(
            "cannot write {path}: the folder {folder} does not exist (mend creates no folders) — create it or choose another path; nothing was written"
        )));
    }
    if path.is_dir() {
        return Err(MendError::harness(format!(
            "cannot write {path}: it is a folder — name a file, e.g. /save {}",
            path.join("fix.patch")
        )));
    }
    crate::record::patch::write_atomically(path, diff)
}

/// What Ctrl-D says about the discarded copy: nothing when it holds no change, else whether the
/// change is in the last /save's file.
fn discarded(diff: &str, saved: Option<&(String, String)>) -> Option<String> {
    if diff.is_empty() {
        return None;
    }
    Some(match saved {
        Some((saved_diff, path)) if saved_diff == diff => {
            format!("The copy is discarded; its change is saved in {path}.")
        }
        Some((_, path)) => format!(
            "The copy is discarded; it changed since the last /save ({path}), and that later change was not saved."
        ),
        None => "The copy is discarded; its change was not saved (use /save PATH next time).".to_owned(),
    })
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
    use super::{discarded, parse, save, Said};
    use crate::test_support::project;

    #[test]
    fn save_writes_only_into_a_folder_that_exists() {
        let (_dir, root) = project(&[]);
        let nested = root.join("no/such/fix.patch");
        assert_eq!(
            save(&nested, "diff\n").unwrap_err().message,
            format!(
                "cannot write {nested}: the folder {root}/no/such does not exist (mend creates no folders) — create it or choose another path; nothing was written"
            )
        );
        assert!(!root.join("no").exists());
        assert_eq!(
            save(&root, "diff\n").unwrap_err().message,
            format!(
                "cannot write {root}: it is a folder — name a file, e.g. /save {root}/fix.patch"
            )
        );
        save(&root.join("fix.patch"), "diff\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("fix.patch")).unwrap(),
            "diff\n"
        );
    }

    #[test]
    fn the_ending_tells_whether_the_change_was_saved() {
        let saved = ("d1".to_owned(), "fix.patch".to_owned());
        assert_eq!(
            [
                discarded("", None),
                discarded("d1", None),
                discarded("d1", Some(&saved)),
                discarded("d2", Some(&saved)),
            ],
            [
                None,
                Some("The copy is discarded; its change was not saved (use /save PATH next time).".to_owned()),
                Some("The copy is discarded; its change is saved in fix.patch.".to_owned()),
                Some("The copy is discarded; it changed since the last /save (fix.patch), and that later change was not saved.".to_owned()),
            ]
        );
    }

    #[test]
    fn lines_are_messages_or_commands() {
        let cases = [
            ("fix the bug\n", Said::Message("fix the bug")),
            ("  /diff \n", Said::Diff),
            ("/verify", Said::Verify),
            ("/save out/fix.patch\n", Said::Save("out/fix.patch")),
            ("/save", Said::SaveWhere),
            ("/save  \n", Said::SaveWhere),
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
