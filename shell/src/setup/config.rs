//! The core's [`Config`] for a run or a chat, from the model choices (flags) and the task file.

use camino::Utf8Path;
use mend_core::{Config, ContextConfig, Millis, Protocol};

use crate::task::Task;

/// Which model and how each session talks to it, as chosen on the command line.
#[derive(Debug, Clone, Default)]
pub struct ModelChoice {
    pub protocol: Option<Protocol>,
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    pub num_ctx: Option<u32>,
    /// `--keep-alive SECS`, when given.
    pub keep_alive: Option<u64>,
    /// `--think` (or `--no-think`), when given.
    pub think: Option<mend_core::Think>,
    pub context: bool,
}

impl ModelChoice {
    /// The model: the flag, else the task file's, else the default.
    pub fn model_name(&self, task: &Task) -> String {
        self.model
            .clone()
            .or_else(|| task.model.clone())
            .unwrap_or_else(|| crate::task::DEFAULT_MODEL.to_owned())
    }

    pub fn max_turns(&self, task: &Task) -> u32 {
        self.max_turns
            .or(task.max_turns)
            .unwrap_or(mend_core::DEFAULT_MAX_TURNS)
    }

    /// The session these choices and the task file describe, asking `prompt` in `repo`.
    pub fn session_config(&self, task: &Task, repo: &Utf8Path, prompt: &str) -> Config {
        let config = Config {
            protocol: chosen_protocol(self.protocol, task),
            max_turns: self.max_turns(task),
            keep_alive: self
                .keep_alive
                .or(task.keep_alive)
                .unwrap_or(mend_core::DEFAULT_KEEP_ALIVE_SECONDS),
            think: self.think.or(task.think).unwrap_or_default(),
            context: self.context.then(|| context_config(repo)),
            text_tool_calls: task.text_tool_calls,
            instructions: task.instructions.as_ref().map(|found| found.message()),
            ..Config::new(
                &self.model_name(task),
                &task.system_prompt,
                prompt,
                crate::tools::table::offered_tools(task, self.context),
            )
        };
        // A window given here is final; otherwise the server is asked once connected.
        match self.num_ctx.or(task.num_ctx) {
            Some(tokens) => crate::provider::window::with_window(config, tokens),
            None => config,
        }
    }
}

/// What the per-turn hint says about where the run is: the repository's folder name and the OS.
fn context_config(repo: &Utf8Path) -> ContextConfig {
    ContextConfig {
        workdir: repo.file_name().unwrap_or("repository").to_owned(),
        os: std::env::consts::OS.to_owned(),
    }
}

/// `--deadline SECS` as the core counts it.
pub(crate) fn deadline(seconds: Option<u64>) -> Option<Millis> {
    seconds.map(|seconds| Millis(seconds.saturating_mul(1000)))
}

/// `--protocol`, else the task file's, else Ollama.
pub(crate) fn chosen_protocol(flag: Option<Protocol>, task: &Task) -> Protocol {
    flag.or(task.protocol).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = r#"
[task]
prompt = "Fix it."
[paths]
readable = ["src/*.py"]
editable = ["src/*.py"]
[test]
command = ["pytest"]
timeout_seconds = 30
files = ["tests/*.py"]
[tools]
enabled = ["read_file"]
"#;

    fn keep_alive(flag: Option<u64>, file_line: &str) -> u64 {
        let text = TASK.replace("[tools]", &format!("[model]\n{file_line}\n[tools]"));
        let task = Task::parse(Utf8Path::new("mend.toml"), &text).map_err(|err| err.message);
        let choice = ModelChoice {
            keep_alive: flag,
            ..ModelChoice::default()
        };
        choice
            .session_config(&task.unwrap(), Utf8Path::new("repo"), "fix")
            .keep_alive
    }

    #[test]
    fn the_model_stays_loaded_unless_the_flag_or_the_file_says_otherwise() {
        let chosen = [
            keep_alive(None, ""),
            keep_alive(None, "keep_alive = 0"),
            keep_alive(Some(60), "keep_alive = 0"),
            keep_alive(Some(0), ""),
        ];
        assert_eq!(chosen, [mend_core::DEFAULT_KEEP_ALIVE_SECONDS, 0, 60, 0]);
    }
}
