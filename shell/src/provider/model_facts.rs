//! What the server says of the model, asked once before the run: its context length, the
//! family of calls its chat template writes (Ollama's `POST /api/show` `template`, else its
//! `parser`; llama-server's `GET /props` `chat_template`), and where the server takes a repair
//! request's JSON schema (vLLM, which lists itself as the models' owner, as
//! `structured_outputs`; every other OpenAI-compatible server as `response_format`).

use mend_core::{Config, Protocol, SchemaField};
use serde_json::{json, Value};

use super::client::Client;
use super::stated_length::{ollama_length, openai_listed_length, props_window};

/// Where Anthropic's API is served: it states nothing of its models, and is not asked.
const ANTHROPIC_HOST: &str = "api.anthropic.com";

/// What the server said of the model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModelFacts {
    /// The model's context length, when the server states it.
    pub length: Option<u64>,
    /// The family of written calls its template names, and where that was read.
    pub family: Option<(&'static str, &'static str)>,
    /// Where a repair request's schema goes.
    pub schema_field: SchemaField,
}

impl ModelFacts {
    /// `config` reading the model's family first and sending its schema where the server takes
    /// it.
    pub fn applied(&self, config: Config) -> Config {
        Config {
            text_call_family: self.family.map(|(family, _)| family.to_owned()),
            schema_field: self.schema_field,
            ..config
        }
    }

    /// For the run's first line: which reader reads calls written as text, and why.
    pub fn text_calls(&self) -> String {
        match self.family {
            Some((family, from)) => format!("text calls read as {family}, from {from}"),
            None => "text calls: every family (the server named no template's)".to_owned(),
        }
    }
}

/// Asks the server what it says of `model`; a server that answers nothing is a model with no
/// stated length, no known family and the usual schema field.
pub(crate) fn ask(client: &Client, protocol: Protocol, model: &str) -> ModelFacts {
    match protocol {
        Protocol::OllamaNdjson => {
            let url = client.base().join_api("/api/show");
            client
                .metadata(&url, Some(&json!({"model": model})))
                .map(|show| of_ollama_show(&show))
                .unwrap_or_default()
        }
        Protocol::OpenaiSse => match llama_cpp_props(client) {
            Some(props) => of_llama_cpp_props(&props),
            None => {
                let url = client.base().join_api("/v1/models");
                client
                    .metadata(&url, None)
                    .map(|models| of_model_list(&models, model))
                    .unwrap_or_default()
            }
        },
        // A local server speaking Anthropic's protocol (llama.cpp's does) says it where
        // llama.cpp says it.
        Protocol::AnthropicSse if client.base().host != ANTHROPIC_HOST => llama_cpp_props(client)
            .map(|props| of_llama_cpp_props(&props))
            .unwrap_or_default(),
        _ => ModelFacts::default(),
    }
}

/// llama.cpp's server answers `/props` at its root, whatever path the API base has.
fn llama_cpp_props(client: &Client) -> Option<Value> {
    client.metadata(&format!("{}/props", client.base()), None)
}

pub(crate) fn of_ollama_show(show: &Value) -> ModelFacts {
    let template = show.get("template").and_then(Value::as_str);
    let parser = show.get("parser").and_then(Value::as_str);
    let family = template
        .and_then(mend_core::family_of_template)
        .map(|family| (family, "the model's template"))
        .or_else(|| {
            parser
                .and_then(mend_core::family_of_parser)
                .map(|family| (family, "Ollama's parser for it"))
        });
    ModelFacts {
        length: ollama_length(show),
        family,
        schema_field: SchemaField::ResponseFormat,
    }
}

pub(crate) fn of_llama_cpp_props(props: &Value) -> ModelFacts {
    let template = props.get("chat_template").and_then(Value::as_str);
    ModelFacts {
        length: props_window(props),
        family: template
            .and_then(mend_core::family_of_template)
            .map(|family| (family, "the server's chat template")),
        schema_field: SchemaField::ResponseFormat,
    }
}

pub(crate) fn of_model_list(models: &Value, model: &str) -> ModelFacts {
    let owned_by_vllm = models
        .get("data")
        .and_then(Value::as_array)
        .is_some_and(|entries| entries.iter().any(|entry| entry["owned_by"] == "vllm"));
    ModelFacts {
        length: openai_listed_length(models, model),
        family: None,
        schema_field: if owned_by_vllm {
            SchemaField::StructuredOutputs
        } else {
            SchemaField::ResponseFormat
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_says_its_family_and_where_it_takes_a_schema() {
        let ollama = json!({"template": "{{ range .ToolCalls }}<|tool_call>call:{{ .Function.Name }}{{ end }}",
            "model_info": {"gemma4.context_length": 131072}});
        let ollama_parser = json!({"template": "{{ .Prompt }}", "parser": "olmo3"});
        let llama_cpp = json!({"chat_template": "{{- '<|python_start|>' }}", "default_generation_settings": {"n_ctx": 4096}});
        let vllm = json!({"data": [{"id": "m", "owned_by": "vllm", "max_model_len": 32768}]});
        let openai = json!({"data": [{"id": "m", "owned_by": "openai"}]});
        let facts = [
            of_ollama_show(&ollama),
            of_ollama_show(&ollama_parser),
            of_ollama_show(&json!({"template": 7})),
            of_llama_cpp_props(&llama_cpp),
            of_model_list(&vllm, "m"),
            of_model_list(&openai, "m"),
        ];
        let response_format = SchemaField::ResponseFormat;
        assert_eq!(
            facts,
            [
                ModelFacts {
                    length: Some(131_072),
                    family: Some(("gemma4", "the model's template")),
                    schema_field: response_format
                },
                ModelFacts {
                    length: None,
                    family: Some(("olmo3", "Ollama's parser for it")),
                    schema_field: response_format
                },
                ModelFacts::default(),
                ModelFacts {
                    length: Some(4096),
                    family: Some(("llama4", "the server's chat template")),
                    schema_field: response_format
                },
                ModelFacts {
                    length: Some(32_768),
                    family: None,
                    schema_field: SchemaField::StructuredOutputs
                },
                ModelFacts::default(),
            ]
        );
    }
}
