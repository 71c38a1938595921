//! The `mend` command: parses the command line, hands it to the command's file under
//! `commands/`, and turns every failure into one clear message and a documented exit code.

use std::process::ExitCode;

use clap::Parser;

use mend::attempt::render::renderer;
use mend::cli::{Cli, Command};
use mend::commands;
use mend::error::MendError;
use mend::setup::repository::repository;

fn main() -> ExitCode {
    mend::pipe::quiet_closed_pipe_panics();
    let cli = Cli::parse();
    // A print to a closed pipe unwinds to here (dropping what it held on the way, temporary
    // copies included) and ends the process by SIGPIPE, as it ends any Unix tool.
    let ended = std::panic::catch_unwind(|| run(cli));
    // A run whose events met a closed pipe went on to write its record; now it ends as the
    // pipe asked.
    if mend::pipe::was_closed() {
        mend::pipe::end_by_sigpipe();
    }
    match ended {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(error)) => {
            eprintln!("mend: error: {error}");
            ExitCode::from(error.exit_code)
        }
        Err(payload) if mend::pipe::is_closed_pipe(payload.as_ref()) => {
            mend::pipe::end_by_sigpipe()
        }
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

fn run(cli: Cli) -> Result<u8, MendError> {
    match cli.command {
        // Where a command's events go is chosen here, with the rest of the command line: a
        // command writes its events to whatever `Render` it is given.
        Command::Run(args) => {
            let mut render = renderer(args.common.json, args.model.thinking);
            commands::run::command(&args, render.as_mut())
        }
        Command::Chat(args) => {
            let mut render = renderer(false, args.model.thinking);
            commands::chat::command(&args, render.as_mut())
        }
        Command::Replay(args) => {
            let mut render = renderer(args.common.json, args.thinking);
            commands::replay::command(&args, render.as_mut())
        }
        Command::Resume(args) => {
            let mut render = renderer(args.common.json, args.thinking);
            commands::resume::command(&args, render.as_mut())
        }
        Command::Verify(args) => {
            let mut render = renderer(args.common.json, false);
            commands::verify::command(&args, render.as_mut())
        }
        Command::Mcp => mend::mcp::command(),
        Command::Export { atif, out } => mend::export::command::command(&atif, out.as_deref()),
        Command::Eval(args) => commands::eval::command(args),
        Command::Apply {
            record,
            repo,
            task_file,
        } => commands::apply::command(&record, repo.as_deref(), task_file.as_deref()),
        Command::Show { record, html } => commands::show::show(&record, html.as_deref()),
        Command::Conformance { captures } => commands::conformance::conformance(&captures),
        Command::Task {
            json,
            repo,
            task_file,
        } => commands::task::command(json, repo.as_deref(), task_file.as_deref()),
        Command::Images {
            action,
            image_cache,
        } => commands::images::command(action, image_cache.as_deref()),
        Command::Init { repo, force } => {
            commands::init::init(&repository(repo.as_deref(), None)?, force)
        }
    }
}
