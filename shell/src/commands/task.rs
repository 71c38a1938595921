//! `mend task`: what mend sends the model for a repository's task — the system prompt, the
//! task and the tool schemas — as text or one JSON object.

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::setup::repository::repository;
use crate::task::{Task, DEFAULT_MODEL};

pub fn command(
    json: bool,
    repo: Option<&Utf8Path>,
    task_file: Option<&Utf8Path>,
) -> Result<u8, MendError> {
    let repo = repository(repo, None)?;
    let task = Task::locate(&repo, task_file)?;
    crate::workspace::survey::warn(&repo, &task)?;
    print_task(&task, json);
    Ok(exit::PASS)
}

fn print_task(task: &Task, json: bool) {
    let tools = crate::tools::table::offered_tools(task, false);
    let model = task.model.as_deref().unwrap_or(DEFAULT_MODEL);
    let protocol = crate::setup::config::chosen_protocol(None, task);
    let base = crate::provider::connect::server_base(None, protocol);
    let (window, _) = crate::provider::window::for_task(task, protocol, base);
    let first = crate::provider::window::first_request_tokens(task, &tools);
    if json {
        let task = serde_json::json!({
            "model": model,
            "system_prompt": task.system_prompt,
            "task": task.prompt,
            "tools": tools,
            "num_ctx": window.tokens,
            "num_ctx_why": window.why,
            "first_request_tokens": first,
            "instructions": task.instructions.as_ref().map(|found| serde_json::json!({"file": found.file, "text": found.text})),
            "text_tool_calls": task.text_tool_calls,
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
    for tool in &tools {
        println!("- {}: {}", tool.function.name, tool.function.description);
    }
    println!("\n{}", crate::task::instructions::describe(task));
    println!(
        "\nContext window: {} tokens, the num_ctx of every request ({})\nFirst request: about {first} tokens ({} % of the window; a conservative estimate)",
        window.tokens,
        window.why,
        first * 100 / u64::from(window.tokens.max(1))
    );
}
