//! The request bodies of every protocol, held side by side: the same history in each shape.

use crate::prelude::*;

use serde_json::{json, Value};

use crate::think::Think;
use crate::wire::{ChatRequest, Message, Role};

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
            schema_field: crate::wire::SchemaField::ResponseFormat,
        }
    }

    fn parsed(bytes: Vec<u8>) -> Value {
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn openai_history_uses_string_arguments_and_tool_call_ids() {
        let body = parsed(crate::protocol::openai::request_body(&request()));
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
        let body = parsed(crate::protocol::anthropic::request_body(&request()));
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
            schema_field: crate::wire::SchemaField::ResponseFormat,
        }
    }

    /// The thinking fields of each protocol's body, for each setting.
    fn fields(think: Think) -> [Value; 3] {
        let read = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap_or_default();
        let (ollama, openai, anthropic) = (
            read(crate::protocol::ollama::request_body(&request(think))),
            read(crate::protocol::openai::request_body(&request(think))),
            read(crate::protocol::anthropic::request_body(&request(think))),
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
            schema_field: crate::wire::SchemaField::ResponseFormat,
        };
        let read = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap_or_default();
        let vllm = ChatRequest {
            schema_field: crate::wire::SchemaField::StructuredOutputs,
            ..request.clone()
        };
        let (ollama, openai, vllm) = (
            read(crate::protocol::ollama::request_body(&request)),
            read(crate::protocol::openai::request_body(&request)),
            read(crate::protocol::openai::request_body(&vllm)),
        );
        // vLLM's body carries the schema as `structured_outputs`, and nothing else changes.
        let mut as_openai = vllm.clone();
        if let Some(body) = as_openai.as_object_mut() {
            body.remove("structured_outputs");
            body.insert(
                "response_format".to_owned(),
                openai["response_format"].clone(),
            );
        }
        assert_eq!(
            (&vllm["structured_outputs"], &as_openai),
            (&json!({"json": schema}), &openai)
        );
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
