//! Reaching the model server: its address and key from the flags and the environment, and a
//! client checked before any work starts.

use std::time::Duration;

use mend_core::Codec;

use super::client::{Client, Secret};
use super::host::BaseUrl;
use crate::error::MendError;

/// `--host`, else the provider's usual variable (`OLLAMA_HOST`, `OPENAI_BASE_URL`,
/// `ANTHROPIC_BASE_URL`), else its usual address; always connectable.
pub fn server_base(host: Option<&str>, codec: Codec) -> BaseUrl {
    let (variable, default) = match codec {
        Codec::OllamaNdjson => ("OLLAMA_HOST", ""),
        Codec::OpenaiSse => ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        Codec::AnthropicSse => ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    };
    let from_env = std::env::var(variable).ok();
    BaseUrl::parse(host.or(from_env.as_deref()).unwrap_or(default)).connectable()
}

/// The provider's API key from its usual variable, if set. Only ever sent as a header.
pub fn api_key(codec: Codec) -> Option<Secret> {
    let variable = match codec {
        Codec::OllamaNdjson => return None,
        Codec::OpenaiSse => "OPENAI_API_KEY",
        Codec::AnthropicSse => "ANTHROPIC_API_KEY",
    };
    std::env::var(variable).ok().and_then(Secret::new)
}

/// A client for the model server, checked before any work starts: Ollama must answer with its
/// version and know the model; other servers show themselves at the first request.
pub struct Connection {
    pub client: Client,
    pub server_version: Option<String>,
    pub model_digest: Option<String>,
    /// `Ollama 0.33.0 at http://…`, for the user.
    pub described: String,
}

pub fn connect(
    base: &BaseUrl,
    read_timeout: Duration,
    codec: Codec,
    api_key: Option<Secret>,
    model: &str,
) -> Result<Connection, MendError> {
    let client = Client::new(base.clone(), read_timeout, api_key);
    let (server_version, model_digest) = match codec {
        Codec::OllamaNdjson => (Some(client.version()?), Some(client.digest(model)?)),
        _ => (None, None),
    };
    let described = match &server_version {
        Some(version) => format!("Ollama {version} at {}", client.base()),
        None => format!("{} server at {}", codec.provider(), client.base()),
    };
    Ok(Connection {
        client,
        server_version,
        model_digest,
        described,
    })
}
