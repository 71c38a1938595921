//! The conversation in each protocol's request shape. The session keeps one neutral history
//! (Ollama's message model); these pure functions render it for the server that will read it.

use crate::prelude::*;

use serde_json::{json, Map, Value};

use crate::think::Think;
use crate::wire::{ChatRequest, Message, Role};

// Serializing these bodies cannot fail: every map has string keys and no type has a fallible
// `Serialize`; the empty fallback only satisfies the type.

/// Ollama's `/api/chat` body is the session's own request type.
pub(super) fn ollama(request: &ChatRequest) -> Vec<u8> {
    serde_json::to_vec(request).unwrap_or_default()
}

/// OpenAI chat completions: assistant `tool_calls` with `type: "function"` and string arguments,
/// tool results with `tool_call_id`, reasoning sent back as `reasoning` (what Ollama's /v1 reads).
pub(super) fn openai(request: &ChatRequest) -> Vec<u8> {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| openai_message(message))
        .collect();
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| json!({"type": "function", "function": tool.function}))
        .collect();
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "tools": tools,
        "stream": true,
        "stream_options": {"include_usage": true},
        "temperature": request.options.temperature,
        "seed": request.options.seed,
        "max_tokens": request.options.num_predict,
    });
    openai_think(&mut body, request.think);
    if let Some(schema) = &request.format {
        // llama-server and vLLM enforce the schema as a grammar; the call is the answer itself.
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": {"name": "tool_call", "strict": true, "schema": schema},
        });
        if let Some(object) = body.as_object_mut() {
            object.remove("tools");
        }
    }
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Thinking as OpenAI-compatible servers take it: a level as `reasoning_effort` (OpenAI, vLLM,
/// Ollama's /v1) and in `chat_template_kwargs` (llama-server hands those to the template, as
/// gpt-oss's reads it); off as the template's `enable_thinking: false` (Qwen3's templates, on
/// llama-server and vLLM). `on` leaves the server's default.
fn openai_think(body: &mut Value, think: Think) {
    match (think, think.level()) {
        (_, Some(level)) => {
            body["reasoning_effort"] = json!(level);
            body["chat_template_kwargs"] =
                json!({"enable_thinking": true, "reasoning_effort": level});
        }
        (Think::Off, None) => body["chat_template_kwargs"] = json!({"enable_thinking": false}),
        _ => {}
    }
}

fn openai_message(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".to_owned(), json!(role_name(message.role)));
    out.insert("content".to_owned(), json!(message.content));
    if let Some(thinking) = &message.thinking {
        out.insert("reasoning".to_owned(), json!(thinking));
    }
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.function.name,
                        "arguments": Value::Object(call.function.arguments.clone()).to_string(),
                    },
                })
            })
            .collect();
        out.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    if let Some(id) = &message.tool_call_id {
        out.insert("tool_call_id".to_owned(), json!(id));
    }
    if let Some(name) = &message.tool_name {
        out.insert("name".to_owned(), json!(name));
    }
    Value::Object(out)
}

/// Anthropic Messages: the system prompt apart, assistant turns as their signed thinking blocks
/// (unchanged, first), then `text` and `tool_use` blocks, every run of tool results as one user
/// message of `tool_result` blocks. Unsigned thinking is not sent back: Anthropic refuses it.
pub(super) fn anthropic(request: &ChatRequest) -> Vec<u8> {
    let mut system = String::new();
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::System => {
                // The system prompt, the project's instructions and the hint read as paragraphs.
                if !system.is_empty() {
                    system.push_str("\n\n");
                }
                system.push_str(&message.content);
            }
            Role::User => messages.push(json!({"role": "user", "content": message.content})),
            Role::Assistant => {
                let mut blocks = message.signed_thinking.clone();
                if !message.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": message.content}));
                }
                for call in &message.tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.function.name,
                        "input": call.function.arguments,
                    }));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": ""}));
                }
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Role::Tool => {
                let block = json!({"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content});
                let joins_previous = messages.last().is_some_and(|last| {
                    last["role"] == "user" && last["content"].as_array().is_some()
                });
                match messages
                    .last_mut()
                    .and_then(|last| last["content"].as_array_mut())
                {
                    Some(blocks) if joins_previous => blocks.push(block),
                    _ => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| json!({"name": tool.function.name, "description": tool.function.description, "input_schema": tool.function.parameters}))
        .collect();
    let mut body = json!({
        "model": request.model,
        "system": system,
        "messages": messages,
        "tools": tools,
        "stream": true,
        "temperature": request.options.temperature,
        "max_tokens": request.options.num_predict,
    });
    // A level is a budget of thinking tokens; Anthropic takes no temperature beside it.
    if let Some(budget) = request.think.anthropic_budget(request.options.num_predict) {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        if let Some(object) = body.as_object_mut() {
            object.remove("temperature");
        }
    }
    serde_json::to_vec(&body).unwrap_or_default()
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

#[cfg(test)]
mod tests {
    use alloc::sync::Arc;

    use super::*;
    use crate::schema::{JsonType, ToolSpec};
    use crate::wire::{ModelOptions, ToolCall, ToolCallFunction};

    fn request() -> ChatRequest {
        let Value::Object(arguments) = json!({"path": "a.py"}) else {
            unreachable!()
        };
        let assistant = Message {
            role: Role::Assistant,
            content: "Reading.".to_owned(),
            thinking: Some("plan".to_owned()),
            signed_thinking: Vec::new(),
            tool_calls: vec![ToolCall {
                id: Some("call_1".to_owned()),
                function: ToolCallFunction {
                    index: Some(0),
                    name: "read_file".to_owned(),
                    arguments,
                },
            }],
            tool_name: None,
            tool_call_id: None,
        };
        ChatRequest {
            model: "m".to_owned(),
            messages: vec![
                Arc::new(Message::system("sys")),
                Arc::new(Message::user("task")),
                Arc::new(assistant),
                Arc::new(Message::tool_result(
                    "read_file",
                    Some("call_1"),
                    "{\"text\":\"x\"}".to_owned(),
                )),
            ],
            tools: vec![ToolSpec::function(
                "read_file",
                "Read",
                &[("path", JsonType::String, "p")],
                &["path"],
            )]
            .into(),
            stream: true,
            think: Think::On,
            keep_alive: 0,
            options: ModelOptions::default(),
            format: None,
        }
    }

    fn parsed(bytes: Vec<u8>) -> Value {
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn openai_history_uses_string_arguments_and_tool_call_ids() {
        let body = parsed(openai(&request()));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": "Reading.", "reasoning": "plan", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.py\"}"}}
                ]},
                {"role": "tool", "content": "{\"text\":\"x\"}", "tool_call_id": "call_1", "name": "read_file"},
            ])
        );
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["tools"][0]["type"], "function");
    }

    #[test]
    fn anthropic_history_uses_blocks() {
        let body = parsed(anthropic(&request()));
        assert_eq!(body["system"], "sys");
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.py"}},
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "{\"text\":\"x\"}"}]},
            ])
        );
        assert_eq!(
            body["tools"][0]["input_schema"]["required"],
            json!(["path"])
        );
    }
}

#[cfg(test)]
mod think_tests {
    use super::*;
    use alloc::sync::Arc;

    use crate::wire::ModelOptions;

    fn request(think: Think) -> ChatRequest {
        ChatRequest {
            model: "m".to_owned(),
            messages: vec![Arc::new(Message::user("hi"))],
            tools: Arc::from(Vec::new()),
            stream: true,
            think,
            keep_alive: 0,
            options: ModelOptions::default(),
            format: None,
        }
    }

    /// The thinking fields of each protocol's body, for each setting.
    fn fields(think: Think) -> [Value; 3] {
        let read = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap_or_default();
        let (ollama, openai, anthropic) = (
            read(super::ollama(&request(think))),
            read(super::openai(&request(think))),
            read(super::anthropic(&request(think))),
        );
        [
            ollama["think"].clone(),
            json!({"reasoning_effort": openai["reasoning_effort"], "chat_template_kwargs": openai["chat_template_kwargs"]}),
            json!({"thinking": anthropic["thinking"], "temperature": anthropic["temperature"]}),
        ]
    }

    #[test]
    fn each_protocol_is_told_the_way_it_takes_it() {
        let all: Vec<[Value; 3]> = Think::ALL.into_iter().map(fields).collect();
        let level = |name: &str, budget: i64| {
            [
                json!(name),
                json!({"reasoning_effort": name, "chat_template_kwargs": {"enable_thinking": true, "reasoning_effort": name}}),
                json!({"thinking": {"type": "enabled", "budget_tokens": budget}, "temperature": null}),
            ]
        };
        assert_eq!(
            all,
            vec![
                [
                    json!(false),
                    json!({"reasoning_effort": null, "chat_template_kwargs": {"enable_thinking": false}}),
                    json!({"thinking": null, "temperature": 0.0}),
                ],
                [
                    json!(true),
                    json!({"reasoning_effort": null, "chat_template_kwargs": null}),
                    json!({"thinking": null, "temperature": 0.0}),
                ],
                level("low", 1024),
                level("medium", 1024),
                level("high", 1024),
            ]
        );
    }
}

#[cfg(test)]
mod format_tests {
    use super::*;
    use alloc::sync::Arc;

    use crate::wire::ModelOptions;

    #[test]
    fn a_repair_request_carries_its_schema_as_each_server_enforces_it() {
        let schema = json!({"oneOf": [{"type": "object"}]});
        let request = ChatRequest {
            model: "m".to_owned(),
            messages: vec![Arc::new(Message::user("again"))],
            tools: Arc::from(Vec::new()),
            stream: true,
            think: Think::Off,
            keep_alive: 0,
            options: ModelOptions::default(),
            format: Some(schema.clone()),
        };
        let read = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap_or_default();
        let (ollama, openai) = (read(super::ollama(&request)), read(super::openai(&request)));
        assert_eq!(
            (
                &ollama["format"],
                &ollama["think"],
                &openai["response_format"],
                openai.get("tools")
            ),
            (
                &schema,
                &json!(false),
                &json!({"type": "json_schema", "json_schema": {"name": "tool_call", "strict": true, "schema": schema}}),
                None
            )
        );
    }
}
