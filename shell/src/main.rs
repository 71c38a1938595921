//! The `mend` command: parses the command line, runs the command, and turns every failure into
//! one clear message and a documented exit code.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use mend::attempt::Setup;
use mend::cli::{Cli, Command, CommonArgs};
use mend::error::{exit, MendError};
use mend::render::{renderer, RunEvent};
use mend::replay::{replay, ReplayOptions};
use mend::run::{api_key, default_record_path, server_base, RunOptions};
use mend::verify::independent_check;
use mend::workspace::Workspace;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("mend: error: {error}");
            ExitCode::from(error.exit_code)
        }
    }
}

fn run(cli: Cli) -> Result<u8, MendError> {
    match cli.command {
        Command::Run(args) => {
            mend::interrupt::install();
            let runner = args.common.runner()?;
            let options = RunOptions {
                model: &args.model,
                codec: args.provider.codec(),
                base: server_base(args.host.as_deref(), args.provider.codec()),
                api_key: api_key(args.provider.codec()),
                max_turns: args.max_turns,
                task: args.task.as_deref(),
                record: args.record.clone().unwrap_or_else(default_record_path),
                read_timeout: Duration::from_secs(args.read_timeout),
                deadline: args.deadline.map(Duration::from_secs),
                think: !args.no_think,
                print_diff: args.diff,
                context: args.context,
                setup: Setup {
                    repo: &args.common.repo,
                    runner: &runner,
                    keep_workspace: args.common.keep_workspace,
                },
            };
            let mut render = renderer(args.common.json, args.thinking);
            mend::run::run(&options, render.as_mut())
        }
        Command::Replay(args) => {
            mend::interrupt::install();
            let runner = args.common.runner()?;
            let options = ReplayOptions {
                record: &args.record,
                setup: Setup {
                    repo: &args.common.repo,
                    runner: &runner,
                    keep_workspace: args.common.keep_workspace,
                },
                bless: args.bless,
            };
            let mut render = renderer(args.common.json, args.thinking);
            replay(&options, render.as_mut())
        }
        Command::Verify(args) => verify(&args),
        Command::Apply { record, repo } => {
            let record = mend::record::Record::read(&record)?;
            match mend::patch::apply_record(&record, &repo)? {
                mend::patch::Applied::NothingToApply => {
                    println!("The run changed nothing; {repo} is unchanged.")
                }
                mend::patch::Applied::Written { path } => {
                    println!("Applied the run's change to {path}.")
                }
            }
            Ok(exit::PASS)
        }
        Command::Conformance { captures } => mend::conformance::conformance(&captures),
        Command::Task { json } => {
            print_task(json);
            Ok(exit::PASS)
        }
    }
}

fn verify(args: &CommonArgs) -> Result<u8, MendError> {
    let runner = args.runner()?;
    let workspace = Workspace::copy_of(&args.repo).map_err(|err| {
        MendError::harness(format!(
            "cannot copy {} to a temporary workspace: {err}",
            args.repo
        ))
    })?;
    let mut render = renderer(args.json, false);
    render.run_event(&RunEvent::sandbox(&runner.sandbox));
    let run = independent_check(&runner, workspace.root())?;
    render.run_event(&RunEvent::TestsAfter { run: run.clone() });
    if args.keep_workspace {
        render.run_event(&RunEvent::WorkspaceKept {
            path: workspace.keep().to_string(),
        });
    }
    Ok(if run.passed() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}

fn print_task(json: bool) {
    let tools = mend::sample::tool_specs();
    if json {
        let task = serde_json::json!({
            "model": mend::sample::DEFAULT_MODEL,
            "system_prompt": mend::sample::SYSTEM_PROMPT,
            "task": mend::sample::TASK,
            "tools": tools,
        });
        println!("{task}");
        return;
    }
    println!(
        "Model: {}\n\nSystem prompt:\n{}\n\nTask:\n{}\n\nTools:",
        mend::sample::DEFAULT_MODEL,
        mend::sample::SYSTEM_PROMPT,
        mend::sample::TASK
    );
    for tool in tools {
        println!("- {}: {}", tool.function.name, tool.function.description);
    }
}
