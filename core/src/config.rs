//! Everything a session is started with.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use crate::context::ContextConfig;
use crate::input::Millis;
use crate::protocol::Protocol;
use crate::repeat::RepeatLimits;
use crate::schema::ToolSpec;
use crate::think::Think;
use crate::window::Window;
use crate::wire::{ModelOptions, SchemaField};

/// The turn budget when the caller names none (8 fits the sample task with room to spare).
pub const DEFAULT_MAX_TURNS: u32 = 8;

/// Seconds the server keeps the model loaded after each request when the caller names none:
/// Ollama's own default (five minutes), so the next turn finds the model and its prompt cache
/// warm. `0` unloads it after every request, each turn then loading it and reading the whole
/// conversation again.
pub const DEFAULT_KEEP_ALIVE_SECONDS: u64 = 300;

/// Everything a session is started with. [`Config::new`] fills in the defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The model's name, as the server knows it.
    pub model: String,
    /// The first message of every request.
    pub system_prompt: String,
    /// What the user asks for: the message after the system prompt and the instructions.
    pub task: String,
    /// The project's own instructions (its `AGENTS.md`), given as a second system message right
    /// after the system prompt; pinned, like the system prompt and the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The tools offered; every call is validated against them.
    pub tools: Vec<ToolSpec>,
    /// How many requests the session may send, at least 1.
    pub max_turns: u32,
    /// When the whole run must end, on the shell's clock.
    pub deadline: Option<Millis>,
    /// Tokens the session may spend: prompt + generated tokens summed over its turns, as the
    /// server counts them in each turn's `done` (a server that reports no counts spends none).
    /// The turn that goes past it still gets its tool results; then the session stops with
    /// `budget_exceeded` instead of sending another request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Whether and how hard the model is asked to think: Ollama's `think`, an OpenAI-compatible
    /// server's `reasoning_effort` and `chat_template_kwargs`, Anthropic's `thinking` (see
    /// [`Think`]). Older configs' `true` and `false` still read.
    pub think: Think,
    /// Seconds the server keeps the model loaded after each request (Ollama's `keep_alive`);
    /// `0` unloads it after each one. See [`DEFAULT_KEEP_ALIVE_SECONDS`].
    pub keep_alive: u64,
    /// Sampling options sent with every request.
    pub options: ModelOptions,
    /// The protocol the server speaks (`codec` in older snapshots).
    #[serde(alias = "codec")]
    pub protocol: Protocol,
    /// When identical calls in a row are refused, and when they end the session.
    #[serde(default)]
    pub repeat_limits: RepeatLimits,
    /// When set, each request ends with a system hint of the turn's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextConfig>,
    /// The context window to keep within: each request's prompt is estimated, older tool
    /// results are shortened to fit, and a server that read fewer tokens than were sent ends
    /// the session with `context_exceeded`. With Ollama, `options.num_ctx` must equal it.
    /// Without one (older records), requests are sent as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// Read calls a model wrote into its text (`<tool_call>…`, `<function=…>`, a fenced or bare
    /// call object) as calls, when a turn has no native one.
    #[serde(default = "yes")]
    pub text_tool_calls: bool,
    /// The family of written calls the model's template names ([`crate::family_of_template`]),
    /// read first; `None` (or a name no reader has) leaves the general detector, which reads
    /// every family's form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_call_family: Option<String>,
    /// Where an OpenAI-compatible server takes a repair request's schema (the shell asks the
    /// server which it is); Ollama's own API takes it as `format` whatever this says.
    #[serde(default)]
    pub schema_field: SchemaField,
}

fn yes() -> bool {
    true
}

impl Config {
    /// A config with the defaults: thinking on, the model kept loaded between requests,
    /// deterministic sampling, no deadline, no token budget, [`DEFAULT_MAX_TURNS`], calls written
    /// as text recovered.
    pub fn new(model: &str, system_prompt: &str, task: &str, tools: Vec<ToolSpec>) -> Self {
        Config {
            model: model.to_owned(),
            system_prompt: system_prompt.to_owned(),
            task: task.to_owned(),
            instructions: None,
            tools,
            max_turns: DEFAULT_MAX_TURNS,
            deadline: None,
            token_budget: None,
            think: Think::On,
            keep_alive: DEFAULT_KEEP_ALIVE_SECONDS,
            options: ModelOptions::default(),
            protocol: Protocol::default(),
            repeat_limits: RepeatLimits::default(),
            context: None,
            window: None,
            text_tool_calls: true,
            text_call_family: None,
            schema_field: SchemaField::default(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        if self.max_turns < 1 {
            return Err(ConfigError::MaxTurnsNotPositive);
        }
        let limits = self.repeat_limits;
        if limits.warn_after < 2 || limits.stop_after < limits.warn_after {
            return Err(ConfigError::RepeatLimits {
                warn_after: limits.warn_after,
                stop_after: limits.stop_after,
            });
        }
        if let Some(window) = self.window {
            if !window.is_usable() {
                return Err(ConfigError::Window { window });
            }
            if self.protocol == Protocol::OllamaNdjson && self.options.num_ctx != window.tokens {
                return Err(ConfigError::NumCtx {
                    num_ctx: self.options.num_ctx,
                    window: window.tokens,
                });
            }
        }
        if self.model.trim().is_empty() {
            return Err(ConfigError::EmptyModel);
        }
        for (position, tool) in self.tools.iter().enumerate() {
            if self.tools[..position]
                .iter()
                .any(|earlier| earlier.name() == tool.name())
            {
                return Err(ConfigError::DuplicateTool {
                    name: tool.name().to_owned(),
                });
            }
        }
        Ok(())
    }
}

/// A config the session refuses to start with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConfigError {
    /// `max_turns` is 0.
    MaxTurnsNotPositive,
    /// The model name is empty or blank.
    EmptyModel,
    /// Two offered tools have the same name.
    DuplicateTool {
        /// The name offered twice.
        name: String,
    },
    /// The guard must allow at least one repetition and stop no earlier than it warns.
    RepeatLimits {
        /// The configured `warn_after`.
        warn_after: u32,
        /// The configured `stop_after`.
        stop_after: u32,
    },
    /// The window is under [`crate::MIN_WINDOW_TOKENS`], or its share is not 1–100 %.
    Window {
        /// The configured window.
        window: Window,
    },
    /// Ollama's `num_ctx` differs from the window the session keeps within.
    NumCtx {
        /// `options.num_ctx`.
        num_ctx: u32,
        /// `window.tokens`.
        window: u32,
    },
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::MaxTurnsNotPositive => f.write_str("max_turns must be a positive integer"),
            ConfigError::EmptyModel => f.write_str("the model name is empty"),
            ConfigError::DuplicateTool { name } => {
                write!(f, "the tool `{name}` is offered twice")
            }
            ConfigError::RepeatLimits { warn_after, stop_after } => write!(
                f,
                "repetition limits must satisfy 2 <= warn_after <= stop_after (got {warn_after} and {stop_after})"
            ),
            ConfigError::Window { window } => write!(
                f,
                "the context window must be at least {} tokens with a trim share of 1-100 % (got {} tokens, {} %)",
                crate::window::MIN_WINDOW_TOKENS, window.tokens, window.trim_percent
            ),
            ConfigError::NumCtx { num_ctx, window } => write!(
                f,
                "num_ctx ({num_ctx}) must be the context window the session keeps within ({window})"
            ),
        }
    }
}

impl core::error::Error for ConfigError {}
