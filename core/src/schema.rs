//! The tool definitions offered to the model, in the OpenAI shape Ollama accepts (WIRE.md §2.3),
//! restricted to the JSON Schema subset mend validates: an object with typed properties,
//! `required` and `additionalProperties`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One tool offered to the model: `{"type": "function", "function": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    #[serde(rename = "type")]
    pub kind: ToolKind,
    pub function: FunctionSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Function,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    pub name: String,
    pub description: String,
    pub parameters: ObjectSchema,
}

/// `{"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectSchema {
    #[serde(rename = "type")]
    pub kind: ObjectKind,
    #[serde(default)]
    pub properties: BTreeMap<String, PropertySchema>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    /// JSON Schema's default is to allow extra fields; every mend tool sets this to `false`.
    #[serde(
        default,
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_properties: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    Object,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropertySchema {
    #[serde(rename = "type")]
    pub kind: JsonType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl ToolSpec {
    /// A function tool whose arguments object allows exactly the given properties.
    pub fn function(
        name: &str,
        description: &str,
        properties: &[(&str, JsonType, &str)],
        required: &[&str],
    ) -> Self {
        ToolSpec {
            kind: ToolKind::Function,
            function: FunctionSpec {
                name: name.to_owned(),
                description: description.to_owned(),
                parameters: ObjectSchema {
                    kind: ObjectKind::Object,
                    properties: properties
                        .iter()
                        .map(|(key, kind, description)| {
                            let schema = PropertySchema {
                                kind: *kind,
                                description: Some((*description).to_owned()),
                            };
                            ((*key).to_owned(), schema)
                        })
                        .collect(),
                    required: required.iter().map(|key| (*key).to_owned()).collect(),
                    additional_properties: Some(false),
                },
            },
        }
    }

    pub fn name(&self) -> &str {
        &self.function.name
    }
}

impl JsonType {
    pub fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// "a number", "an object", ...: how error messages for the model name what they got.
pub(crate) fn kind_of(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
