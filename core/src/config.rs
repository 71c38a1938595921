//! Everything a session is started with.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use crate::codec::Codec;
use crate::context::ContextConfig;
use crate::input::Millis;
use crate::repeat::RepeatLimits;
use crate::schema::ToolSpec;
use crate::wire::ModelOptions;

/// The turn budget when the caller names none (8 fits the sample task with room to spare).
pub const DEFAULT_MAX_TURNS: u32 = 8;

/// Everything a session is started with. [`Config::new`] fills in the defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The model's name, as the server knows it.
    pub model: String,
    /// The first message of every request.
    pub system_prompt: String,
    /// The second message: what the user asks for.
    pub task: String,
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
    /// Ask the model to think (`think: true`); only Ollama's protocol sends it.
    pub think: bool,
    /// Seconds the server keeps the model loaded after each request.
    pub keep_alive: u64,
    /// Sampling options sent with every request.
    pub options: ModelOptions,
    /// The protocol the server speaks.
    pub codec: Codec,
    /// When identical calls in a row are refused, and when they end the session.
    #[serde(default)]
    pub repeat_limits: RepeatLimits,
    /// When set, each request ends with a system hint of the turn's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextConfig>,
}

impl Config {
    /// A config with the defaults: thinking on, the model unloaded after each request,
    /// deterministic sampling, no deadline, no token budget, [`DEFAULT_MAX_TURNS`].
    pub fn new(model: &str, system_prompt: &str, task: &str, tools: Vec<ToolSpec>) -> Self {
        Config {
            model: model.to_owned(),
            system_prompt: system_prompt.to_owned(),
            task: task.to_owned(),
            tools,
            max_turns: DEFAULT_MAX_TURNS,
            deadline: None,
            token_budget: None,
            think: true,
            keep_alive: 0,
            options: ModelOptions::default(),
            codec: Codec::default(),
            repeat_limits: RepeatLimits::default(),
            context: None,
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
        }
    }
}

impl core::error::Error for ConfigError {}
