//! `mend chat`: an interactive session on one throwaway copy of a repository. Each line the user
//! types is a message in one ongoing conversation (a new core session per message, continued
//! with [`Session::follow_up`]); lines starting with `/` are commands for mend itself. The
//! task's Stop hooks run each time the model finishes, as in a run. The conversation is recorded
//! after every message, in the one record format ([`crate::record`]).

mod said;
mod save;

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::time::{Duration, SystemTime};

use camino::Utf8Path;
use mend_core::{Config, Session, StopReason};

use crate::atomic::sha256_hex;
use crate::attempt::driver::{drive, start};
use crate::attempt::render::Render;
use crate::attempt::run_event::RunEvent;
use crate::attempt::stop_rounds::until_stop_hooks_agree;
use crate::attempt::{check_at_end, written_by_tools};
use crate::cli::args::ChatArgs;
use crate::cli::CHAT_HELP;
use crate::commands::finish::send_trace;
use crate::commands::run::announce;
use crate::error::{exit, MendError};
use crate::exec::sandbox::SandboxChoice;
use crate::exec::set_up::SetUp;
use crate::interrupt;
use crate::provider::client::LiveSource;
use crate::provider::connect::{api_key, connect, server_base, Connection};
use crate::provider::window::WindowChoice;
use crate::record::chat_command::{Asked, Saved};
use crate::record::stop::explain_stop;
use crate::record::target::record_target;
use crate::record::target::{RecordFile, RecordTarget};
use crate::record::{ChatCommand, Record, SessionSettings, RECORD_FORMAT};
use crate::setup::Recorded;
use crate::setup::Setup;
use crate::telemetry::Telemetry;
use crate::tools::ToolContext;
use crate::verdict::grade::ending::Ending;
use crate::workspace::changes::{set_sha256, unified_diff_except};
use crate::workspace::final_tree::LoopCopy;
use crate::workspace::Workspace;
use said::{parse, Said};
use save::{discarded, save, SAVE_USAGE};

/// What `mend chat` starts with: the copy's setup, the checked server, the sessions' settings and where the conversation is recorded.
pub struct ChatSetup<'a> {
    /// What each check works with: the repository, its task, the runner, the held-out tests.
    pub attempt: Setup<'a>,
    /// The model server, already checked.
    pub connection: &'a Connection,
    /// The settings of each message's session; its `task` is replaced by what the user types.
    pub config: Config,
    /// The window of every request, and why.
    pub window: WindowChoice,
    /// Where the conversation is recorded, after every message.
    pub record: RecordTarget,
    /// The `--sandbox` given, kept in the record for replay.
    pub sandbox_choice: SandboxChoice,
    /// Where the conversation's trace goes at its end (`--otel`, `[telemetry]`).
    pub telemetry: Option<Telemetry>,
}

/// `mend chat` from the command line: the repository, its task, a checked connection to the
/// server, then [`chat`] on standard input.
pub fn command(args: &ChatArgs, render: &mut dyn Render) -> Result<u8, MendError> {
    interrupt::install();
    let resolved = args.setup.resolve(Recorded::default())?;
    let (repo, task) = (&resolved.repo, &resolved.task);
    // The prompt of each message's session is what the user types.
    let config = args.model.session_config(task, repo, "");
    // What needs no server first: a wrong record path is said before the server is asked.
    let telemetry = crate::telemetry::config::chosen(args.otel.as_deref(), &task.telemetry);
    let record = record_target(args.record.as_deref(), &resolved.records, "chat-")?;
    let connection = connect(
        &server_base(args.model.server.host.as_deref(), config.protocol),
        Duration::from_secs(args.model.server.read_timeout),
        config.protocol,
        api_key(config.protocol),
        &config.model,
    )?;
    let (config, window) = connection.settle(config);
    let setup = ChatSetup {
        attempt: resolved.setup(args.setup.keep_workspace),
        connection: &connection,
        config,
        window,
        record,
        sandbox_choice: resolved.sandbox_choice,
        telemetry,
    };
    chat(&setup, &mut std::io::stdin().lock(), render)
}

/// Runs the conversation until the input ends. The original repository is only read.
pub fn chat(
    setup: &ChatSetup,
    input: &mut dyn BufRead,
    render: &mut dyn Render,
) -> Result<u8, MendError> {
    let mut chat = Conversation::start(setup, render)?;
    loop {
        prompt();
        let mut line = String::new();
        interrupt::at_prompt(true);
        let read = input.read_line(&mut line);
        interrupt::at_prompt(false);
        match read {
            Ok(0) => {
                // Ctrl-D leaves the cursor after the prompt: what follows starts its own line.
                eprintln!();
                break;
            }
            Ok(_) => {}
            Err(err) => return Err(MendError::harness(format!("cannot read the input: {err}"))),
        }
        chat.act(parse(&line), render)?;
    }
    chat.end(render)?;
    Ok(exit::PASS)
}

/// One conversation on one copy: what it has recorded, and where it can go on from.
struct Conversation<'s> {
    setup: &'s ChatSetup<'s>,
    workspace: Workspace,
    record: Record,
    record_file: RecordFile,
    /// The last message's stopped session, which the next one continues.
    session: Option<Session>,
    /// The last change written by /save, and where: Ctrl-D tells whether the end state is saved.
    saved: Option<(String, String)>,
    /// When the conversation began, for its trace.
    started: SystemTime,
}

impl<'s> Conversation<'s> {
    fn start(setup: &'s ChatSetup<'s>, render: &mut dyn Render) -> Result<Self, MendError> {
        let workspace = Workspace::copy_of(
            setup.attempt.repo,
            &setup.attempt.task.exclude,
            &setup.attempt.task.history,
        )?;
        let settled = (&setup.config, &setup.window);
        announce(render, "chat", settled, setup.connection);
        render.run_event(&RunEvent::sandbox(setup.attempt.runner));
        say(&format!(
            "Working on a copy of {} (task file {}).\n{CHAT_HELP}",
            setup.attempt.repo, setup.attempt.task.origin
        ));
        Ok(Conversation {
            setup,
            workspace,
            record: empty_record(setup)?,
            record_file: RecordFile::new(setup.record.clone()),
            session: None,
            saved: None,
            started: SystemTime::now(),
        })
    }

    fn diff(&self) -> Result<String, MendError> {
        let attempt = &self.setup.attempt;
        let set_up = attempt.runner.set_up.as_ref().map(SetUp::written);
        unified_diff_except(
            attempt.repo,
            self.workspace.root(),
            &attempt.task.editable,
            &set_up.unwrap_or_default(),
        )
    }

    /// Does what a typed line says.
    fn act(&mut self, said: Said, render: &mut dyn Render) -> Result<(), MendError> {
        match said {
            Said::Nothing => {}
            Said::Help => say(CHAT_HELP),
            Said::Unknown(line) => say(&format!(
                "`{line}` is not a command of mend chat; type /help for the list"
            )),
            Said::Diff => match self.diff()? {
                diff if diff.is_empty() => say("No changes yet."),
                diff => render.run_event(&RunEvent::Diff { text: diff }),
            },
            Said::Verify => {
                // Reported as it ends; the tests run on the original plus the tools' change.
                let ending = self.check_at_end(render)?;
                let passed = ending.verdict(&self.record.test_file_sha256_before).passed;
                self.remember(Asked::Verify {
                    tests: Box::new(ending.tests_after),
                    passed,
                })?;
            }
            Said::SaveWhere => say(SAVE_USAGE),
            Said::Save(path) => {
                let saved = self.save(path)?;
                self.remember(Asked::Save {
                    path: path.to_owned(),
                    saved,
                })?;
            }
            Said::Message(text) => self.message(text, render)?,
        }
        Ok(())
    }

    fn save(&mut self, path: &str) -> Result<Saved, MendError> {
        let diff = self.diff()?;
        if diff.is_empty() {
            say("No changes yet; nothing was written.");
            return Ok(Saved::NoChange);
        }
        // A failed write is reported and the conversation goes on: nothing is lost.
        Ok(match save(Utf8Path::new(path), &diff) {
            Ok(()) => {
                say(&format!("Wrote the change to {path}."));
                let diff_sha256 = sha256_hex(diff.as_bytes());
                self.saved = Some((diff, path.to_owned()));
                Saved::Written { diff_sha256 }
            }
            Err(err) => {
                say(&format!("mend: {err}"));
                Saved::Failed { error: err.message }
            }
        })
    }

    /// Keeps a command and its outcome in the record at its place; the file is written again
    /// once the conversation has a message to replay (the first message writes it otherwise).
    fn remember(&mut self, asked: Asked) -> Result<(), MendError> {
        self.record.commands.push(ChatCommand {
            after_messages: self.record.messages.len(),
            asked,
        });
        if !self.record.messages.is_empty() {
            self.record_file.write_json(&self.record)?;
        }
        Ok(())
    }

    /// One message: a session continuing the conversation, run live, then recorded.
    fn message(&mut self, text: &str, render: &mut dyn Render) -> Result<(), MendError> {
        let setup = self.setup;
        let started = message_session(self.session.as_ref(), &setup.config, text)?;
        interrupt::reset();
        let mut source = LiveSource {
            client: &setup.connection.client,
        };
        let bench = ToolContext::new(
            self.workspace.root(),
            setup.attempt.task,
            setup.attempt.runner,
        );
        let first = drive(bench, &mut source, render, started)?;
        // The Stop hooks as in a run: one that blocks sends the model back to work.
        let before = self.record.messages.len();
        let (transcript, messages, stopped) = until_stop_hooks_agree(
            bench,
            &mut source,
            render,
            Some(text.to_owned()),
            first,
            before,
        )?;
        interrupt::reset();
        let stop = &transcript.stop;
        let failed = matches!(
            stop.reason,
            StopReason::ModelError | StopReason::IncompleteModelTurn
        );
        if failed && stop.detail.is_some() {
            say(&format!(
                "mend: {}",
                explain_stop(stop, &setup.config.model)
            ));
        }
        self.session = Some(stopped);
        self.record.messages.extend(messages);
        self.record_file.write_json(&self.record)?;
        Ok(())
    }

    /// The independent check (reported as it ends) on a fresh copy of the original with what the
    /// tools of every message wrote; a chat has no check before it, so no contract.
    fn check_at_end(&self, render: &mut dyn Render) -> Result<Ending, MendError> {
        let setup = self.setup;
        let written = written_by_tools(
            self.record
                .messages
                .iter()
                .flat_map(|message| &message.tool_calls),
        );
        // The conversation goes on in its copy: the final tests get a fresh one, deleted here.
        let loop_copy = LoopCopy::GoesOn(self.workspace.root());
        check_at_end(&setup.attempt, loop_copy, &written, None, None, render)
            .map(|(ending, _tree)| ending)
    }

    /// The input ended: the independent check once more (when anything was asked), the record
    /// completed, and what becomes of the copy.
    fn end(mut self, render: &mut dyn Render) -> Result<(), MendError> {
        let setup = self.setup;
        let diff = self.diff()?;
        if !self.record.messages.is_empty() {
            // The verdict on the conversation is the tests', taken once more at the end.
            let ending = self.check_at_end(render)?;
            if ending.test_file_sha256_after != self.record.test_file_sha256_before {
                say(&format!(
                    "The conversation changed the task's test files ({}): its final tests do not count as a pass.",
                    setup.attempt.task.test.files.listed("and")
                ));
            }
            self.record.ending = Some(ending);
            let path = self.record_file.write_json(&self.record)?;
            say(&format!(
                "The conversation is recorded in {path} (replay it with `mend replay {path}`)."
            ));
            let started = (self.started, self.started);
            send_trace(setup.telemetry.as_ref(), &self.record, started);
        }
        if setup.attempt.keep_workspace {
            render.run_event(&RunEvent::WorkspaceKept {
                path: self.workspace.keep().to_string(),
            });
        } else if let Some(ending) = discarded(&diff, self.saved.as_ref()) {
            say(&ending);
        }
        Ok(())
    }
}

/// The record of a conversation before its first message: the settings and the hashes of the
/// original it started from.
fn empty_record(setup: &ChatSetup) -> Result<Record, MendError> {
    let server = setup
        .connection
        .server_facts(setup.attempt.runner.sandbox.name());
    let origin = setup.attempt.origin(setup.sandbox_choice);
    Ok(Record {
        format: RECORD_FORMAT.to_owned(),
        description: None,
        settings: SessionSettings::of(&setup.config, &server, &origin),
        test_file_sha256_before: set_sha256(setup.attempt.repo, &setup.attempt.task.test.files)?,
        source_sha256_before: set_sha256(setup.attempt.repo, &setup.attempt.task.editable)?,
        messages: Vec::new(),
        tests_before: None,
        ending: None,
        file_sha256_before: BTreeMap::new(),
        metrics: None,
        resumed_from: None,
        commands: Vec::new(),
        harness_error: None,
    })
}

/// The session of a typed message: the first starts the conversation with `config`, every
/// later one continues the one before.
pub(crate) fn message_session(
    previous: Option<&Session>,
    config: &Config,
    text: &str,
) -> Result<Session, MendError> {
    match previous {
        None => start(Config {
            task: text.to_owned(),
            ..config.clone()
        }),
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
    let _ = write!(err, "{}", interrupt::PROMPT);
    let _ = err.flush();
}
