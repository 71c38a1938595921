//! The `mend` command: parses the command line, runs the command, and turns every failure into
//! one clear message and a documented exit code.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use mend::cli::{
    replay_record, repository, ChatArgs, Cli, Command, CommonArgs, Recorded, Resolved, ResumeArgs,
};
use mend::commands::chat::ChatSetup;
use mend::commands::replay::{replay, ReplayOptions};
use mend::commands::resume::{check_resumable, ResumeOptions};
use mend::commands::run::{api_key, connect, server_base, RunOptions};
use mend::error::{exit, MendError};
use mend::mend_folder::default_record;
use mend::record::target::RecordTarget;
use mend::record::Record;
use mend::session::attempt::Setup;
use mend::session::render::{renderer, RunEvent};
use mend::task::{Task, DEFAULT_MODEL};
use mend::verdict::verify::independent_check;
use mend::workspace::Workspace;
use mend_core::{Config, Millis};

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
            let resolved = args.common.setup.resolve(Recorded::default())?;
            let (repo, task, runner) = (&resolved.repo, &resolved.task, &resolved.runner);
            let prompt = mend::commands::run::prompt(args.task.as_deref(), task)?;
            mend::workspace::survey::warn(repo, task)?;
            let config = Config {
                deadline: args
                    .deadline
                    .map(|seconds| Millis(seconds.saturating_mul(1000))),
                ..args.model.session_config(task, repo, prompt)
            };
            let record = match &args.record {
                Some(record) => RecordTarget::Given(record.clone()),
                None => default_record(repo, "")?,
            };
            let options = RunOptions {
                base: server_base(args.model.server.host.as_deref(), config.codec),
                api_key: api_key(config.codec),
                config,
                record,
                read_timeout: Duration::from_secs(args.model.server.read_timeout),
                print_diff: args.diff,
                setup: Setup {
                    repo,
                    task,
                    runner,
                    keep_workspace: args.common.setup.keep_workspace,
                },
                sandbox_choice: resolved.sandbox_choice,
            };
            let mut render = renderer(args.common.json, args.model.thinking);
            mend::commands::run::run(&options, render.as_mut())
        }
        Command::Chat(args) => chat(&args),
        Command::Replay(args) => {
            mend::interrupt::install();
            let record_path = replay_record(args.record.as_deref())?;
            let record = Record::read(&record_path)?;
            let resolved = args.common.setup.resolve(Recorded::of(&record.settings))?;
            let options = ReplayOptions {
                record_path: &record_path,
                record,
                setup: Setup {
                    repo: &resolved.repo,
                    task: &resolved.task,
                    runner: &resolved.runner,
                    keep_workspace: args.common.setup.keep_workspace,
                },
                bless: args.bless,
            };
            let mut render = renderer(args.common.json, args.thinking);
            replay(&options, render.as_mut())
        }
        Command::Resume(args) => resume(&args),
        Command::Verify(args) => verify(&args),
        Command::Eval(args) => mend::eval::cli::command(args),
        Command::Apply {
            record,
            repo,
            task_file,
        } => {
            let record = Record::read(&record)?;
            let recorded = Recorded::of(&record.settings);
            let repo = repository(repo.as_deref(), recorded.repo)?;
            let task = Task::locate(&repo, task_file.as_deref())?;
            match mend::record::patch::apply_record(&record, &repo, &task)? {
                mend::record::patch::Applied::NothingToApply => {
                    println!("The run changed nothing; {repo} is unchanged.")
                }
                mend::record::patch::Applied::AlreadyApplied => {
                    println!("The run's change is already applied in {repo}; nothing was written.")
                }
                mend::record::patch::Applied::Written { paths } => {
                    println!("Applied the run's change to {}.", paths.join(", "))
                }
            }
            Ok(exit::PASS)
        }
        Command::Show { record, html } => mend::commands::show::show(&record, html.as_deref()),
        Command::Conformance { captures } => mend::commands::conformance::conformance(&captures),
        Command::Task {
            json,
            repo,
            task_file,
        } => {
            let repo = repository(repo.as_deref(), None)?;
            let task = Task::locate(&repo, task_file.as_deref())?;
            mend::workspace::survey::warn(&repo, &task)?;
            print_task(&task, json);
            Ok(exit::PASS)
        }
        Command::Init { repo, force } => {
            let repo = repository(repo.as_deref(), None)?;
            mend::commands::init::init(&repo, force)
        }
    }
}

fn chat(args: &ChatArgs) -> Result<u8, MendError> {
    mend::interrupt::install();
    let resolved = args.setup.resolve(Recorded::default())?;
    let (repo, task, runner) = (&resolved.repo, &resolved.task, &resolved.runner);
    // The prompt of each message's session is what the user types.
    let config = args.model.session_config(task, repo, "");
    let connection = connect(
        &server_base(args.model.server.host.as_deref(), config.codec),
        Duration::from_secs(args.model.server.read_timeout),
        config.codec,
        api_key(config.codec),
        &config.model,
    )?;
    let record = match &args.record {
        Some(record) => RecordTarget::Given(record.clone()),
        None => default_record(repo, "chat-")?,
    };
    let setup = ChatSetup {
        repo,
        task,
        runner,
        connection: &connection,
        config,
        keep_workspace: args.setup.keep_workspace,
        record,
        sandbox_choice: resolved.sandbox_choice,
    };
    let mut render = renderer(false, args.model.thinking);
    mend::commands::chat::chat(&setup, &mut std::io::stdin().lock(), render.as_mut())
}

fn resume(args: &ResumeArgs) -> Result<u8, MendError> {
    mend::interrupt::install();
    let record = Record::read(&args.record)?;
    check_resumable(
        &args.record,
        &record,
        args.message.as_deref(),
        args.out.as_deref(),
    )?;
    let resolved = args.common.setup.resolve(Recorded::of(&record.settings))?;
    let out = match &args.out {
        Some(out) => RecordTarget::Given(out.clone()),
        None => default_record(&resolved.repo, "")?,
    };
    let codec = record.settings.config("", &resolved.task)?.codec;
    let options = ResumeOptions {
        record_path: &args.record,
        record,
        message: args.message.clone(),
        max_turns: args.max_turns,
        deadline: args
            .deadline
            .map(|seconds| Millis(seconds.saturating_mul(1000))),
        out,
        base: server_base(args.server.host.as_deref(), codec),
        read_timeout: Duration::from_secs(args.server.read_timeout),
        print_diff: args.diff,
        setup: Setup {
            repo: &resolved.repo,
            task: &resolved.task,
            runner: &resolved.runner,
            keep_workspace: args.common.setup.keep_workspace,
        },
    };
    let mut render = renderer(args.common.json, args.thinking);
    mend::commands::resume::resume(&options, render.as_mut())
}

fn verify(args: &CommonArgs) -> Result<u8, MendError> {
    let Resolved {
        repo, task, runner, ..
    } = args.setup.resolve(Recorded::default())?;
    mend::workspace::survey::warn(&repo, &task)?;
    let workspace = Workspace::copy_of(&repo, &task.exclude)?;
    let mut render = renderer(args.json, false);
    render.run_event(&RunEvent::sandbox(&runner.sandbox));
    let run = independent_check(&runner, &task.test, workspace.root())?;
    render.run_event(&RunEvent::TestsAfter { run: run.clone() });
    if args.setup.keep_workspace {
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

fn print_task(task: &Task, json: bool) {
    let tools = mend::tools::table::offered_tools(task, false);
    let model = task.model.as_deref().unwrap_or(DEFAULT_MODEL);
    if json {
        let task = serde_json::json!({
            "model": model,
            "system_prompt": task.system_prompt,
            "task": task.prompt,
            "instructions": task.instructions.as_ref().map(|found| serde_json::json!({"file": found.file, "text": found.text})),
            "text_tool_calls": task.text_tool_calls,
            "tools": tools,
        });
        println!("{task}");
        return;
    }
    println!(
        "Task file: {}\nModel: {model}\n\nSystem prompt:\n{}\n\nTask:\n{}\n\nTools:",
        task.origin,
        task.system_prompt,
        task.prompt.as_deref().unwrap_or(
            "(none in the task file: type it in `mend chat`, or pass `mend run --task`)"
        )
    );
    for tool in tools {
        println!("- {}: {}", tool.function.name, tool.function.description);
    }
    println!("\n{}", mend::task::instructions::describe(task));
}
