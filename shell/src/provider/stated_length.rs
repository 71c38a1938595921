//! The length a server states for a model, read from its answers: Ollama's `/api/show`,
//! llama.cpp's `/props`, an OpenAI-style model list. What asks (model_facts) and what decides the
//! window (window) both read it.

use serde_json::Value;

/// The window llama.cpp's server was started with, from its `GET /props` answer
/// (`default_generation_settings.n_ctx`).
pub(crate) fn props_window(props: &Value) -> Option<u64> {
    props
        .pointer("/default_generation_settings/n_ctx")
        .and_then(Value::as_u64)
}

/// `model_info["<arch>.context_length"]` of an `/api/show` answer.
pub(crate) fn ollama_length(show: &Value) -> Option<u64> {
    show.get("model_info")?
        .as_object()?
        .iter()
        .find(|(key, _)| key.ends_with(".context_length"))
        .and_then(|(_, value)| value.as_u64())
}

/// The model's entry in an OpenAI-style model list, where the server names a length: vLLM's
/// `max_model_len`, LM Studio's and OpenRouter's `context_length`, llama.cpp's `meta.n_ctx`.
pub(crate) fn openai_listed_length(models: &Value, model: &str) -> Option<u64> {
    let entry = models
        .get("data")?
        .as_array()?
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))?;
    ["/max_model_len", "/context_length", "/meta/n_ctx"]
        .iter()
        .find_map(|pointer| entry.pointer(pointer).and_then(Value::as_u64))
}
