//! Reaching the model server: its address and key from the flags and the environment, and a
//! client checked before any work starts.

use std::time::Duration;

use mend_core::{Config, Protocol};

use super::client::{Client, Secret};
use super::host::BaseUrl;
use super::model_facts::{self, ModelFacts};
use super::window::{self, WindowChoice};
use crate::error::MendError;
use crate::record::ServerFacts;

/// `--host`, else the provider's usual variable (`OLLAMA_HOST`, `OPENAI_BASE_URL`,
/// `ANTHROPIC_BASE_URL`), else its usual address; always connectable. A protocol added to the
/// core after this shell has neither: `--host` or the local default.
pub(crate) fn server_base(host: Option<&str>, protocol: Protocol) -> BaseUrl {
    let (variable, default) = match protocol {
        Protocol::OllamaNdjson => (Some("OLLAMA_HOST"), ""),
        Protocol::OpenaiSse => (Some("OPENAI_BASE_URL"), "https://api.openai.com/v1"),
        Protocol::AnthropicSse => (Some("ANTHROPIC_BASE_URL"), "https://api.anthropic.com"),
        _ => (None, ""),
    };
    let from_env = variable.and_then(|variable| std::env::var(variable).ok());
    BaseUrl::parse(host.or(from_env.as_deref()).unwrap_or(default)).connectable()
}

/// The provider's API key from its usual variable, if set. Only ever sent as a header.
pub(crate) fn api_key(protocol: Protocol) -> Option<Secret> {
    let variable = match protocol {
        Protocol::OllamaNdjson => return None,
        Protocol::OpenaiSse => "OPENAI_API_KEY",
        Protocol::AnthropicSse => "ANTHROPIC_API_KEY",
        // A protocol added to the core after this shell: no key variable known.
        _ => return None,
    };
    std::env::var(variable).ok().and_then(Secret::new)
}

/// A client for the model server, checked before any work starts: Ollama must answer with its
/// version and know the model; other servers show themselves at the first request.
pub struct Connection {
    pub client: Client,
    pub server_version: Option<String>,
    pub model_digest: Option<String>,
    /// `Ollama 0.33.0 at http://…; text calls read as gemma4, from the model's template`, for
    /// the run's first line.
    pub described: String,
    /// The model's context length, when the server states it.
    pub model_length: Option<u64>,
    /// What the server said of the model: its family of written calls, where it takes a schema.
    pub facts: ModelFacts,
}

impl Connection {
    /// What the server said about the run, with the name of the sandbox its tests run in, as
    /// a record keeps them.
    pub fn server_facts(&self, sandbox: &'static str) -> ServerFacts {
        ServerFacts {
            model_digest: self.model_digest.clone(),
            server_version: self.server_version.clone(),
            model_length: self.model_length,
            sandbox,
        }
    }

    /// `config` with its context window (the one it was given, `--num-ctx` or the task file's
    /// `num_ctx`, else the one chosen from what the server says of the model), the model's
    /// family of written calls and the server's schema field.
    pub fn settle(&self, config: Config) -> (Config, WindowChoice) {
        let requested = config.window.map(|window| window.tokens);
        let choice = window::choose(requested, config.protocol, self.model_length);
        let config = self.facts.applied(config);
        (window::with_window(config, choice.tokens), choice)
    }
}

pub(crate) fn connect(
    base: &BaseUrl,
    read_timeout: Duration,
    protocol: Protocol,
    api_key: Option<Secret>,
    model: &str,
) -> Result<Connection, MendError> {
    let client = Client::new(base.clone(), read_timeout, api_key);
    let (server_version, model_digest) = match protocol {
        Protocol::OllamaNdjson => (Some(client.version()?), Some(client.digest(model)?)),
        _ => (None, None),
    };
    let facts = model_facts::ask(&client, protocol, model);
    let server = match &server_version {
        Some(version) => format!("Ollama {version} at {}", client.base()),
        None => format!("{} server at {}", protocol.name(), client.base()),
    };
    let described = format!("{server}; {}", facts.text_calls());
    Ok(Connection {
        client,
        server_version,
        model_digest,
        described,
        model_length: facts.length,
        facts,
    })
}
