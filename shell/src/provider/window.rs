//! The context window of a run: the model's own length as the server states it, and the one
//! window (Ollama's `num_ctx`) every request of the run is sent with.
//!
//! The task file's `[model] num_ctx` or `--num-ctx` decides when given. Otherwise, with Ollama,
//! the smaller of the model's length (`POST /api/show`, `model_info["<arch>.context_length"]`)
//! and [`DEFAULT_NUM_CTX`]; with an OpenAI-compatible server, the window it states (llama.cpp's
//! `GET /props`, vLLM's or LM Studio's model list), else [`OPENAI_DEFAULT_WINDOW`]; with
//! Anthropic's API, [`ANTHROPIC_DEFAULT_WINDOW`] (another server of its protocol is asked as
//! llama.cpp's is). One value for the whole run: Ollama reloads the model
//! whenever `num_ctx` changes.

use mend_core::{Config, Protocol, Window};

/// Ollama's window when nothing else decides: what a small machine holds. The KV cache of a 3–4 B
/// model costs 110–150 KB a token at f16 (28–36 layers × 8 KV heads × 128 dimensions × K and V ×
/// 2 bytes), so 16 k tokens take 1.8–2.4 GB beside 2–3 GB of Q4 weights: under 6 GB, which an 8 GB
/// laptop holds; 32 k would need 4–5 GB of cache alone.
pub(crate) const DEFAULT_NUM_CTX: u32 = 16_384;
/// An OpenAI-compatible server that states no window: what most local servers give a model by
/// default; set `num_ctx` for a larger one.
pub(crate) const OPENAI_DEFAULT_WINDOW: u32 = 8_192;
/// Every current Claude model holds 200 k tokens.
pub(crate) const ANTHROPIC_DEFAULT_WINDOW: u32 = 200_000;

/// The window a run uses and why, in words for `mend task` and `mend run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowChoice {
    pub tokens: u32,
    pub why: String,
}

/// The window of a run: `requested` (the flag, else the task file) when given, else what the
/// server says of the model within the provider's default.
pub(crate) fn choose(
    requested: Option<u32>,
    protocol: Protocol,
    model_length: Option<u64>,
) -> WindowChoice {
    let stated = model_length.map(|length| u32::try_from(length).unwrap_or(u32::MAX));
    match (requested, protocol, stated) {
        (Some(tokens), _, _) => WindowChoice {
            tokens,
            why: "num_ctx, as set".to_owned(),
        },
        (None, Protocol::OllamaNdjson, Some(length)) if length < DEFAULT_NUM_CTX => WindowChoice {
            tokens: length,
            why: format!("the model's own length, under mend's default of {DEFAULT_NUM_CTX}"),
        },
        (None, Protocol::OllamaNdjson, Some(length)) => WindowChoice {
            tokens: DEFAULT_NUM_CTX,
            why: format!("mend's default for small machines; the model holds {length}"),
        },
        (None, Protocol::OllamaNdjson, None) => WindowChoice {
            tokens: DEFAULT_NUM_CTX,
            why: "mend's default for small machines; the server did not say the model's length"
                .to_owned(),
        },
        (None, _, Some(length)) => WindowChoice {
            tokens: length,
            why: "the window the server states".to_owned(),
        },
        (None, Protocol::AnthropicSse, None) => WindowChoice {
            tokens: ANTHROPIC_DEFAULT_WINDOW,
            why: "the window of every current Claude model".to_owned(),
        },
        (None, _, None) => WindowChoice {
            tokens: OPENAI_DEFAULT_WINDOW,
            why: "mend's default; the server did not say its window (set num_ctx)".to_owned(),
        },
    }
}

/// The window `mend task` shows: the task file's `num_ctx`, else what the server the task names
/// (at its usual address) says of the model, asked with a short timeout; with the model's length
/// when it was stated.
pub(crate) fn for_task(
    task: &crate::task::Task,
    protocol: Protocol,
    base: super::host::BaseUrl,
) -> (WindowChoice, Option<u64>) {
    if let Some(tokens) = task.num_ctx {
        return (choose(Some(tokens), protocol, None), None);
    }
    let model = task.model.as_deref().unwrap_or(crate::task::DEFAULT_MODEL);
    let asked = base.to_string();
    let client = super::client::Client::new(base, std::time::Duration::from_secs(3), None);
    let length = super::model_facts::ask(&client, protocol, model).length;
    let mut choice = choose(None, protocol, length);
    if length.is_none() && choice.why.contains("the server") {
        // `mend task` names no server: it only tried the usual address, which may hold none.
        choice.why = format!(
            "mend's default; nothing at {asked}, the usual address of the task's server, said the model's length"
        );
    }
    (choice, length)
}

/// The conservative estimate of the first request's prompt, in tokens, for `mend task`: the
/// system prompt, the project's instructions, the task and the tools, as the core estimates it.
pub(crate) fn first_request_tokens(task: &crate::task::Task, tools: &[mend_core::ToolSpec]) -> u64 {
    let config = Config {
        instructions: task.instructions.as_ref().map(|found| found.message()),
        ..Config::new(
            crate::task::DEFAULT_MODEL,
            &task.system_prompt,
            task.prompt.as_deref().unwrap_or_default(),
            tools.to_vec(),
        )
    };
    config.first_request_tokens()
}

/// The session's estimate of its first request under `config`, in tokens: what `mend run`
/// and `mend chat` print beside the window (for `mend chat`, whose task is what the user types,
/// the opening before it). `None` without a window, which the session estimates only for.
pub(crate) fn first_request_estimate(config: &Config) -> Option<u64> {
    config.window.map(|_| config.first_request_tokens())
}

/// `config` keeping within `tokens`: the window, and Ollama's `num_ctx` with it.
pub(crate) fn with_window(config: Config, tokens: u32) -> Config {
    let mut config = config;
    config.options.num_ctx = tokens;
    config.window = Some(Window::new(tokens));
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::stated_length::{ollama_length, openai_listed_length};
    use serde_json::json;

    #[test]
    fn the_length_comes_from_model_info() {
        let show = json!({"details": {}, "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131072}});
        assert_eq!(ollama_length(&show), Some(131_072));
        assert_eq!(ollama_length(&json!({"model_info": {}})), None);
        let models = json!({"data": [{"id": "other", "max_model_len": 1}, {"id": "m", "max_model_len": 32768}]});
        assert_eq!(openai_listed_length(&models, "m"), Some(32_768));
    }

    #[test]
    fn a_task_without_a_server_that_answered_does_not_speak_of_one() {
        // A loopback port nothing listens on: the connection is refused at once.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let task = crate::task::Task::parse(
            camino::Utf8Path::new("mend.toml"),
            "[paths]\nreadable = [\"*\"]\neditable = [\"*\"]\n[test]\ncommand = [\"true\"]\ntimeout_seconds = 5\nfiles = [\"t.py\"]\n[tools]\nenabled = [\"read_file\"]\n",
        )
        .unwrap();
        let (choice, length) = for_task(
            &task,
            Protocol::OllamaNdjson,
            super::super::host::BaseUrl::parse(&base),
        );
        assert_eq!(
            (choice, length),
            (
                WindowChoice {
                    tokens: DEFAULT_NUM_CTX,
                    why: format!("mend's default; nothing at {base}, the usual address of the task's server, said the model's length"),
                },
                None
            )
        );
    }

    #[test]
    fn the_window_is_the_setting_else_the_model_within_the_default() {
        let tokens = |requested, protocol, length| choose(requested, protocol, length).tokens;
        assert_eq!(
            [
                tokens(Some(4096), Protocol::OllamaNdjson, Some(131_072)),
                tokens(None, Protocol::OllamaNdjson, Some(131_072)),
                tokens(None, Protocol::OllamaNdjson, Some(2048)),
                tokens(None, Protocol::OllamaNdjson, None),
                tokens(None, Protocol::OpenaiSse, Some(65_536)),
                tokens(None, Protocol::OpenaiSse, None),
                tokens(None, Protocol::AnthropicSse, None),
            ],
            [4096, 16_384, 2048, 16_384, 65_536, 8192, 200_000]
        );
    }
}
