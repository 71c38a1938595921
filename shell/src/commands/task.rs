//! `mend task`: what mend sends the model for a repository's task — the system prompt, the
//! task and the tool schemas — as text or one JSON object.

use camino::Utf8Path;

use crate::cli::repository;
use crate::error::{exit, MendError};
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
    if json {
        let task = serde_json::json!({
            "model": model,
            "system_prompt": task.system_prompt,
            "task": task.prompt,
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
}
