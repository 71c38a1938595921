//! The call object most families write: `{"name": TOOL, "arguments": {…}}`.

use crate::prelude::*;

use serde_json::Value;

use crate::protocol::{call_arguments, CallArguments, ModelCall};
use crate::schema::ToolSpec;

/// `{"name": TOOL, "arguments": {…}}` as text, and nothing else.
pub(super) fn call(text: &str, tools: &[ToolSpec]) -> Option<ModelCall> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => call_of(value, tools),
        Err(_) => None,
    }
}

/// `{"name": TOOL, "arguments": {…}}` and nothing else (`parameters` is Llama's word for the
/// same); the arguments may be absent, or a string holding the object, as servers send them.
pub(super) fn call_of(value: Value, tools: &[ToolSpec]) -> Option<ModelCall> {
    let Value::Object(mut object) = value else {
        return None;
    };
    let Some(Value::String(name)) = object.remove("name") else {
        return None;
    };
    let arguments = match (object.remove("arguments"), object.remove("parameters")) {
        (Some(_), Some(_)) => return None,
        (arguments, parameters) => arguments.or(parameters),
    };
    if !object.is_empty() {
        return None;
    }
    named(name, arguments, tools)
}

/// A call of the offered tool `name` with `arguments` (absent, an object, or a string holding
/// one).
pub(super) fn named(
    name: String,
    arguments: Option<Value>,
    tools: &[ToolSpec],
) -> Option<ModelCall> {
    if !tools.iter().any(|tool| tool.name() == name) {
        return None;
    }
    let CallArguments::Object { value } = call_arguments(arguments) else {
        return None;
    };
    Some(ModelCall {
        id: None,
        index: None,
        name,
        arguments: CallArguments::Object { value },
    })
}

/// One JSON value at the start of `text` (after blanks), and where it ends.
pub(super) fn value_at_start(text: &str) -> Option<(Value, usize)> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = values.next()?.ok()?;
    Some((value, values.byte_offset()))
}

/// A JSON list at the start of `text` (after blanks): each element's value and its exact text,
/// and where the list ends. `None` unless it is a well-formed list.
pub(super) fn list_at_start(text: &str) -> Option<(Vec<(Value, &str)>, usize)> {
    let open = text.len() - text.trim_start().len();
    if !text[open..].starts_with('[') {
        return None;
    }
    let mut at = open + 1;
    let mut elements = Vec::new();
    loop {
        let blank = text[at..].len() - text[at..].trim_start().len();
        at += blank;
        if text[at..].starts_with(']') && elements.is_empty() {
            return Some((elements, at + 1));
        }
        let (value, used) = value_at_start(&text[at..])?;
        let start = at + (text[at..].len() - text[at..].trim_start().len());
        elements.push((value, text[start..at + used].trim_end()));
        at += used;
        at += text[at..].len() - text[at..].trim_start().len();
        match text[at..].chars().next()? {
            ',' => at += 1,
            ']' => return Some((elements, at + 1)),
            _ => return None,
        }
    }
}

/// The calls of a JSON list of call objects, each with its exact text; `None` if any element is
/// not a call of an offered tool.
pub(super) fn calls_of_list(
    elements: Vec<(Value, &str)>,
    format: super::TextCallFormat,
    tools: &[ToolSpec],
) -> Option<Vec<super::Found>> {
    elements
        .into_iter()
        .map(|(value, text)| {
            Some(super::Found {
                call: call_of(value, tools)?,
                format,
                text: text.to_owned(),
            })
        })
        .collect()
}
