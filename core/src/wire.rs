//! Serde types of Ollama's `/api/chat` request as mend sends it.
//!
//! These are the values that cross the boundary to the server, so they serialize to exactly the
//! JSON a request carries: optional fields are omitted rather than sent as `null`.

use crate::prelude::*;

use alloc::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema::ToolSpec;
use crate::think::Think;

/// The body of one `POST /api/chat`. Messages and tools are shared with the session, so building
/// the next request costs a pointer per message, not a copy of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model's name.
    pub model: String,
    /// The conversation: system, user, then each turn and its tool results (and the hint, if any).
    pub messages: Vec<Arc<Message>>,
    /// The offered tools.
    pub tools: Arc<[ToolSpec]>,
    /// Always `true`: mend reads every turn as a stream (Ollama's default, but sent explicitly).
    pub stream: bool,
    /// Whether, and how hard, the model is asked to think: `true`, `false` or a level, as
    /// Ollama reads it.
    pub think: Think,
    /// Seconds the server keeps the model loaded after the request; `0` unloads it at once.
    pub keep_alive: u64,
    /// Sampling options.
    pub options: ModelOptions,
    /// The JSON schema the answer must keep to (Ollama's `format`), for a request that repairs
    /// a broken call; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Value>,
    /// Where an OpenAI-compatible server takes `format`'s schema; not part of Ollama's body.
    #[serde(skip)]
    pub schema_field: SchemaField,
}

/// Where an OpenAI-compatible server takes the JSON schema a repair's answer must keep to
/// (Ollama's own API always takes it as `format`). Chosen per server once connected, and
/// recorded with the run's settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaField {
    /// `response_format: {"type": "json_schema", …}`: OpenAI, llama-server, Ollama's `/v1`,
    /// LM Studio.
    #[default]
    ResponseFormat,
    /// vLLM's `structured_outputs: {"json": …}`.
    StructuredOutputs,
}

impl SchemaField {
    /// The request field's name, as the record and the run's events say it.
    pub fn name(self) -> &'static str {
        match self {
            SchemaField::ResponseFormat => "response_format",
            SchemaField::StructuredOutputs => "structured_outputs",
        }
    }
}

/// The sampling options of a request. Unknown keys are ignored by the server, so
/// only the ones mend sets are modelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelOptions {
    /// Sampling temperature; `0` for deterministic output.
    pub temperature: f64,
    /// The sampling seed.
    pub seed: i64,
    /// The context window, in tokens.
    pub num_ctx: u32,
    /// The output cap, in tokens.
    pub num_predict: i32,
}

impl Default for ModelOptions {
    /// Deterministic sampling, a context that fits the sample task, and an output cap
    /// that leaves room for a whole tool call.
    fn default() -> Self {
        ModelOptions {
            temperature: 0.0,
            seed: 7,
            num_ctx: 8192,
            num_predict: 2048,
        }
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The instructions.
    System,
    /// The user's request.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Always serialized, possibly empty: the server expects the field on every message.
    pub content: String,
    /// The model's reasoning, when it sent some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The thinking blocks the server signed (Anthropic's `thinking` with its `signature`, and
    /// `redacted_thinking`), each whole as it came: Anthropic requires them back unchanged, first
    /// in the assistant's content, when thinking meets tool use. Only its request reads them;
    /// other servers never send any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signed_thinking: Vec<Value>,
    /// The calls the model made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On a tool result: the tool that ran. Ollama's native field (`name` would be dropped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// On a tool result: the id of the call it answers, when the model's call had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content.into())
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content.into())
    }

    /// A tool result message: `content` is the result object serialized as JSON text.
    pub fn tool_result(name: &str, call_id: Option<&str>, content: String) -> Self {
        Message {
            tool_name: Some(name.to_owned()),
            tool_call_id: call_id.map(str::to_owned),
            ..Self::plain(Role::Tool, content)
        }
    }

    fn plain(role: Role, content: String) -> Self {
        Message {
            role,
            content,
            thinking: None,
            signed_thinking: Vec::new(),
            tool_calls: Vec::new(),
            tool_name: None,
            tool_call_id: None,
        }
    }
}

/// A tool call as it goes back to the server in the assistant's history message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The server's id for the call, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function and its arguments.
    pub function: ToolCallFunction,
}

/// The function part of a tool call in the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallFunction {
    /// Kept as the server sent it, for the record only: calls are never merged by index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// The tool's name.
    pub name: String,
    /// Always an object on the native API; arguments that arrived in another form are sent back
    /// as an empty object, because the server refuses to decode anything else.
    pub arguments: Map<String, Value>,
}
