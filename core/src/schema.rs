//! The tool definitions offered to the model, in the OpenAI function shape all three protocols
//! accept, restricted to the JSON Schema subset mend validates: an object with typed properties,
//! `required` and `additionalProperties`.

use crate::prelude::*;

use alloc::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One tool offered to the model: `{"type": "function", "function": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: ToolKind,
    /// The function's name, description and parameters.
    pub function: FunctionSpec,
}

/// The only kind of tool there is: a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// `"function"`.
    Function,
}

/// What the model sees of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    /// The name the model calls it by; unique among the offered tools.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The arguments object it takes.
    pub parameters: ObjectSchema,
}

/// `{"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectSchema {
    /// Always `object`.
    #[serde(rename = "type")]
    pub kind: ObjectKind,
    /// The allowed fields and their types.
    #[serde(default)]
    pub properties: BTreeMap<String, PropertySchema>,
    /// The fields that must be present.
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

/// The only schema type of a parameters object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// `"object"`.
    Object,
}

/// One field of an arguments object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropertySchema {
    /// Its JSON type.
    #[serde(rename = "type")]
    pub kind: JsonType,
    /// What it means, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The JSON Schema types a field can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonType {
    /// A JSON string.
    String,
    /// A number without a fractional part (`1.0` counts).
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
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

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.function.name
    }
}

impl JsonType {
    /// The type's JSON Schema name (`string`, `integer`, ...).
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
