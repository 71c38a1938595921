//! `mend task`: what mend sends the model for a repository's task — the system prompt, the
//! task and the tool schemas — as text or one JSON object.

mod files;

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::provider::window::WindowChoice;
use crate::setup::repository::{project, repository};
use crate::task::{Task, DEFAULT_MODEL};

/// `mend task`: prints what mend would send the model for the repository's task, as text or JSON.
pub fn command(
    json: bool,
    repo: Option<&Utf8Path>,
    task_file: Option<&Utf8Path>,
) -> Result<u8, MendError> {
    let repo = match task_file {
        Some(_) => repository(repo, None)?,
        None => project(repo, None)?,
    };
    let task = Task::locate(&repo, task_file)?;
    crate::workspace::survey::warn(&repo, &task)?;
    print_task(&task, &repo, json)?;
    Ok(exit::PASS)
}

/// What the model is offered under a task: its tools, the model, the window and the first
/// request's estimated size — the same for the text and the JSON.
struct Offered<'a> {
    tools: Vec<mend_core::ToolSpec>,
    model: &'a str,
    window: WindowChoice,
    first: u64,
}

impl<'a> Offered<'a> {
    fn of(task: &'a Task) -> Offered<'a> {
        let tools = crate::tools::table::offered_tools(task, false);
        let protocol = crate::setup::config::chosen_protocol(None, task);
        let base = crate::provider::connect::server_base(None, protocol);
        let (window, _) = crate::provider::window::for_task(task, protocol, base);
        let first = crate::provider::window::first_request_tokens(task, &tools);
        Offered {
            model: task.model.as_deref().unwrap_or(DEFAULT_MODEL),
            tools,
            window,
            first,
        }
    }
}

/// What a task allows and what the model is sent, as one JSON object: `mend task --json` and
/// the MCP server's `task` tool.
pub fn task_json(task: &Task, repo: &Utf8Path) -> Result<serde_json::Value, MendError> {
    let offered = Offered::of(task);
    let mut files: serde_json::Map<String, serde_json::Value> = files::file_sets(task, repo)?
        .into_iter()
        .map(|set| (set.name.to_owned(), serde_json::json!(set.files)))
        .collect();
    if let Some(held_out) = files::held_out(task, repo)? {
        files.insert(
            "held_out_count".to_owned(),
            serde_json::json!(held_out.files),
        );
    }
    Ok(serde_json::json!({
        "model": offered.model,
        "system_prompt": task.system_prompt,
        "task": task.prompt,
        "tools": offered.tools,
        "num_ctx": offered.window.tokens,
        "num_ctx_why": offered.window.why,
        "first_request_tokens": offered.first,
        "instructions": task.instructions.as_ref().map(|found| serde_json::json!({"file": found.file, "text": found.text})),
        "text_tool_calls": task.text_tool_calls,
        "readable": task.readable.patterns(),
        "editable": task.editable.patterns(),
        "test_files": task.test.files.patterns(),
        "test_command": task.test.argv,
        "test_timeout_seconds": task.test.timeout.as_secs(),
        "hooks_from": task.hook_sources,
        "files": files,
    }))
}

/// Where the task's hooks come from: the task file, Claude Code's settings files.
fn hooks_line(task: &Task) -> String {
    match task.hook_sources.as_slice() {
        [] => {
            "Hooks: none (no [hooks] in the task file, no .claude/settings.json hooks)".to_owned()
        }
        sources => format!("Hooks: {}", sources.join(", ")),
    }
}

fn print_task(task: &Task, repo: &Utf8Path, json: bool) -> Result<(), MendError> {
    if json {
        println!("{}", task_json(task, repo)?);
        return Ok(());
    }
    let offered = Offered::of(task);
    println!(
        "Task file: {}\nModel: {}\n\nSystem prompt:\n{}\n\nTask:\n{}\n\nTools:",
        task.origin,
        offered.model,
        task.system_prompt,
        task.prompt.as_deref().unwrap_or(
            "(none in the task file: type it in `mend chat`, or pass `mend run --task`)"
        )
    );
    for tool in &offered.tools {
        println!("- {}: {}", tool.function.name, tool.function.description);
    }
    println!("\n{}", crate::task::instructions::describe(task));
    println!("{}", hooks_line(task));
    println!(
        "\nContext window: {} tokens, the num_ctx of every request ({})\nFirst request: about {} tokens ({} % of the window; a conservative estimate)",
        offered.window.tokens,
        offered.window.why,
        offered.first,
        offered.first * 100 / u64::from(offered.window.tokens.max(1))
    );
    let (sets, held_out) = (files::file_sets(task, repo)?, files::held_out(task, repo)?);
    print!("\n{}", files::describe(&sets, held_out));
    Ok(())
}
