//! What a run or a chat was started with, and where: the settings a replay rebuilds its sessions
//! from.

use camino::Utf8Path;
use clap::ValueEnum;
use mend_core::{Config, ContextConfig, Millis, ModelOptions, Protocol, Window};
use serde::{Deserialize, Serialize};

use crate::exec::image::ImageRun;
use crate::exec::sandbox::SandboxChoice;
use crate::task::Task;

/// The repository of a record that names none: the fixtures of the sample, relative to the mend
/// checkout.
pub(crate) const LEGACY_REPO: &str = "sample-repo";

/// What a run or a chat was started with, and where: everything but the user's words. A replay
/// rebuilds its sessions from these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSettings {
    /// The protocol the server spoke (`provider` in records made before the word was settled).
    #[serde(alias = "provider")]
    pub protocol: Protocol,
    /// The model's name, as the server was asked for it.
    pub model: String,
    /// The model's digest as the server reported it, so a replay can say the weights changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_digest: Option<String>,
    /// The server's version, when it reports one, to tell runs on different servers apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// Where the tests ran: `bwrap`, `network-namespace` or `none` (absent in authored fixtures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The repository the run worked on, as an absolute path; replay and apply use it when no
    /// `--repo` is given. Older records hold it relative to where mend ran, and the sample's
    /// fixtures leave it out (read as `sample-repo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// The interpreter the tests ran with; replay reuses it unless `--python` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// The `--sandbox` the run was made with (`auto`, `bwrap`, `none`); replay reuses it unless
    /// `--sandbox` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_choice: Option<String>,
    /// The image the commands ran in (`[environment] image`), with the manifest digest its
    /// reference resolved to then; absent for a run on this machine's files and in records made
    /// before mend ran images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<RecordedImage>,
    /// The turns the session was allowed before being stopped.
    pub max_turns: u32,
    /// The run's wall-clock budget in ms (`--deadline`), when it had one: a replay stops where
    /// the record says the deadline landed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// The session's token budget (`mend eval`'s `token_budget`), when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// `true`, `false`, or the level asked for (older records hold a bool).
    pub think: mend_core::Think,
    /// Seconds the server kept the model loaded after each request.
    pub keep_alive: u64,
    /// The sampling options sent with every request.
    pub options: ModelOptions,
    /// What the model was told before the prompt.
    pub system_prompt: String,
    /// The project's instructions as the model got them (after the system prompt); replay sends
    /// the same, whatever the repository's `AGENTS.md` says now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Whether calls the model wrote into its text were read as calls. Absent in older records,
    /// made before mend read them: replay reads those turns as they were read then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_tool_calls: bool,
    /// The family of written calls the model's template named, read first: replay reads the
    /// same way. Absent when the server named none (and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_call_family: Option<String>,
    /// Where the server took a repair request's schema (`response_format`, or vLLM's
    /// `structured_outputs`); Ollama's own API takes it as `format` whatever this says.
    #[serde(default)]
    pub schema_field: mend_core::SchemaField,
    /// The per-turn context, when the run had it on (`--context`): replay rebuilds the same
    /// hints and offers the same `todo` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextConfig>,
    /// The context window the run kept within (its `num_ctx` with Ollama): replay shortens and
    /// checks exactly as the run did. Records made before mend knew the window have none, and
    /// replay sends their requests as they were, unshortened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// The model's context length as the server stated it, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_length: Option<u64>,
}

impl SessionSettings {
    /// The settings of a session about to start.
    pub fn of(config: &Config, server: &ServerFacts, origin: &Origin) -> SessionSettings {
        SessionSettings {
            protocol: config.protocol,
            model: config.model.clone(),
            model_digest: server.model_digest.clone(),
            server_version: server.server_version.clone(),
            sandbox: Some(server.sandbox.to_owned()),
            repo: Some(origin.absolute_repo()),
            python: Some(origin.python.to_string()),
            sandbox_choice: origin
                .sandbox_choice
                .to_possible_value()
                .map(|value| value.get_name().to_owned()),
            image: origin.image.map(RecordedImage::of),
            max_turns: config.max_turns,
            deadline_ms: config.deadline.map(|deadline| deadline.0),
            token_budget: config.token_budget,
            think: config.think,
            keep_alive: config.keep_alive,
            options: config.options.clone(),
            system_prompt: config.system_prompt.clone(),
            instructions: config.instructions.clone(),
            text_tool_calls: config.text_tool_calls,
            text_call_family: config.text_call_family.clone(),
            schema_field: config.schema_field,
            context: config.context.clone(),
            window: config.window,
            model_length: server.model_length,
        }
    }

    /// The session config these settings describe, for `task` with the task file's tools.
    pub fn config(&self, task: &str, tools: &Task) -> Config {
        Config {
            protocol: self.protocol,
            context: self.context.clone(),
            max_turns: self.max_turns,
            deadline: self.deadline_ms.map(Millis),
            token_budget: self.token_budget,
            think: self.think,
            keep_alive: self.keep_alive,
            options: self.options.clone(),
            window: self.window,
            instructions: self.instructions.clone(),
            text_tool_calls: self.text_tool_calls,
            text_call_family: self.text_call_family.clone(),
            schema_field: self.schema_field,
            ..Config::new(
                &self.model,
                &self.system_prompt,
                task,
                crate::tools::table::offered_tools(tools, self.context.is_some()),
            )
        }
    }
}

/// The image a run's commands ran in: the reference as the task file wrote it and the manifest
/// digest it named then (a tag may name another image later).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedImage {
    pub reference: String,
    pub digest: String,
}

impl RecordedImage {
    pub fn of(image: &ImageRun) -> RecordedImage {
        RecordedImage {
            reference: image.reference.clone(),
            digest: image.digest.clone(),
        }
    }

    /// `REF (sha256:…)`, as the summary and the page show it.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.reference, self.digest)
    }
}

/// Where a run or chat is made: kept in its record, so that replay and apply work from any folder
/// with the same interpreter and sandbox.
pub struct Origin<'a> {
    /// The repository the run works on.
    pub repo: &'a Utf8Path,
    /// The interpreter the tests run with.
    pub python: &'a Utf8Path,
    /// The `--sandbox` as chosen, before `auto` was resolved.
    pub sandbox_choice: SandboxChoice,
    /// The task's image, when its commands ran in one.
    pub image: Option<&'a ImageRun>,
}

impl Origin<'_> {
    /// The repository as an absolute path with links resolved; as given when that fails.
    fn absolute_repo(&self) -> String {
        self.repo
            .canonicalize_utf8()
            .map(|path| path.to_string())
            .unwrap_or_else(|_| self.repo.to_string())
    }
}

/// What the server and the machine said about a live run.
pub struct ServerFacts {
    /// The model's digest, as the server reported it.
    pub model_digest: Option<String>,
    /// The server's version, when it reports one.
    pub server_version: Option<String>,
    /// The model's context length, as the server stated it.
    pub model_length: Option<u64>,
    /// The sandbox the tests run in (`bwrap`, `network-namespace`, `none`).
    pub sandbox: &'static str,
}
