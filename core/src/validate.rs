//! Checks one model call against the tools offered, before anything runs.
//!
//! A pure policy function: an accepted call comes back with its arguments, a refused one with a
//! message written for the model (what was wrong and what to do), which goes back as the call's
//! tool result. Refusal never ends the session.

use crate::prelude::*;

use serde_json::{Map, Value};

use crate::protocol::{CallArguments, ModelCall};
use crate::schema::{kind_of, JsonType, ObjectSchema, ToolSpec};

/// Returns the call's arguments when the call fits one of `tools`, else the message for the model.
pub fn validate_call<'a>(
    call: &'a ModelCall,
    tools: &[ToolSpec],
) -> Result<&'a Map<String, Value>, String> {
    let Some(tool) = tools.iter().find(|tool| tool.name() == call.name) else {
        let offered: Vec<&str> = tools.iter().map(ToolSpec::name).collect();
        return Err(format!(
            "unknown tool `{}`; the available tools are: {}",
            call.name,
            offered.join(", ")
        ));
    };
    let arguments = match &call.arguments {
        CallArguments::Object { value } => value,
        CallArguments::Unreadable { problem } => {
            return Err(format!("invalid arguments for `{}`: {problem}", call.name));
        }
    };
    check_object(arguments, &tool.function.parameters)
        .map_err(|problem| format!("invalid arguments for `{}`: {problem}", call.name))?;
    Ok(arguments)
}

fn check_object(arguments: &Map<String, Value>, schema: &ObjectSchema) -> Result<(), String> {
    for required in &schema.required {
        if !arguments.contains_key(required) {
            return Err(format!("missing required field `{required}`"));
        }
    }
    for (key, value) in arguments {
        match schema.properties.get(key) {
            Some(property) if !has_type(value, property.kind) => {
                return Err(format!(
                    "field `{key}` must be {}, got {}",
                    with_article(property.kind),
                    kind_of(value)
                ));
            }
            Some(_) => {}
            None if schema.additional_properties == Some(false) => {
                let allowed: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
                return Err(format!(
                    "unexpected field `{key}`; the allowed fields are: {}",
                    if allowed.is_empty() {
                        "none".to_owned()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
            None => {}
        }
    }
    Ok(())
}

/// JSON Schema's types: an integer is any number without a fractional part (`1.0` counts).
fn has_type(value: &Value, kind: JsonType) -> bool {
    match kind {
        JsonType::String => value.is_string(),
        JsonType::Integer => match value {
            Value::Number(number) => {
                number.is_i64() || number.is_u64() || number.as_f64().is_some_and(is_whole)
            }
            _ => false,
        },
        JsonType::Number => value.is_number(),
        JsonType::Boolean => value.is_boolean(),
        JsonType::Array => value.is_array(),
        JsonType::Object => value.is_object(),
    }
}

/// Whether a float has no fractional part, without `f64::fract` (a `std` function: the core is
/// `no_std`). Every float of magnitude 2^53 or more is whole; below, the cast to `i64` is exact
/// for whole values and truncates the others.
fn is_whole(value: f64) -> bool {
    const EXACT_INTEGERS_BELOW: f64 = 9_007_199_254_740_992.0; // 2^53
    let magnitude = if value < 0.0 { -value } else { value };
    value.is_finite() && (magnitude >= EXACT_INTEGERS_BELOW || (value as i64) as f64 == value)
}

fn with_article(kind: JsonType) -> String {
    match kind {
        JsonType::Integer | JsonType::Array | JsonType::Object => format!("an {}", kind.name()),
        _ => format!("a {}", kind.name()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools() -> Vec<ToolSpec> {
        vec![
            ToolSpec::function(
                "read_file",
                "Read a file",
                &[("path", JsonType::String, "which file")],
                &["path"],
            ),
            ToolSpec::function(
                "seek",
                "Seek",
                &[
                    ("offset", JsonType::Integer, "where"),
                    ("ratio", JsonType::Number, "how much"),
                    ("flags", JsonType::Array, "which"),
                    ("strict", JsonType::Boolean, "whether"),
                    ("extra", JsonType::Object, "what else"),
                ],
                &[],
            ),
        ]
    }

    fn call(name: &str, arguments: Value) -> ModelCall {
        let arguments = match arguments {
            Value::Object(value) => CallArguments::Object { value },
            other => CallArguments::Unreadable {
                problem: format!("arguments must be a JSON object, got {}", kind_of(&other)),
            },
        };
        ModelCall {
            id: None,
            index: None,
            name: name.to_owned(),
            arguments,
        }
    }

    fn outcome(name: &str, arguments: Value) -> Result<Value, String> {
        let call = call(name, arguments);
        validate_call(&call, &tools()).map(|arguments| Value::Object(arguments.clone()))
    }

    #[test]
    fn accepts_a_call_that_fits_its_schema() {
        assert_eq!(
            outcome("read_file", json!({"path": "a.py"})),
            Ok(json!({"path": "a.py"}))
        );
        let all = json!({"offset": 3.0, "ratio": 0.5, "flags": [], "strict": true, "extra": {}});
        assert_eq!(outcome("seek", all.clone()), Ok(all));
    }

    #[test]
    fn refuses_each_kind_of_mismatch_with_a_message_for_the_model() {
        let cases = [
            ("nope", json!({}), "unknown tool `nope`; the available tools are: read_file, seek"),
            ("read_file", json!({}), "invalid arguments for `read_file`: missing required field `path`"),
            (
                "read_file",
                json!({"path": 1}),
                "invalid arguments for `read_file`: field `path` must be a string, got a number",
            ),
            (
                "read_file",
                json!({"path": "a", "mode": "r"}),
                "invalid arguments for `read_file`: unexpected field `mode`; the allowed fields are: path",
            ),
            (
                "read_file",
                json!(["a"]),
                "invalid arguments for `read_file`: arguments must be a JSON object, got an array",
            ),
            ("seek", json!({"offset": 1.5}), "invalid arguments for `seek`: field `offset` must be an integer, got a number"),
            ("seek", json!({"strict": null}), "invalid arguments for `seek`: field `strict` must be a boolean, got null"),
        ];
        for (name, arguments, message) in cases {
            assert_eq!(outcome(name, arguments), Err(message.to_owned()), "{name}");
        }
    }

    #[test]
    fn whole_floats_are_integers_and_others_are_not() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -3.0,
            2.5,
            -2.5,
            0.1,
            1e300,
            -1e300,
            4503599627370495.5,
            9007199254740993.0,
        ];
        let whole: Vec<bool> = values.iter().map(|value| is_whole(*value)).collect();
        assert_eq!(
            whole,
            [true, true, true, true, false, false, false, true, true, false, true]
        );
        let expected: Vec<bool> = values.iter().map(|value| value.fract() == 0.0).collect();
        assert_eq!(whole, expected, "the same answer as std's f64::fract");
    }
}
