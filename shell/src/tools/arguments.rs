//! Reading a call's arguments. The core has validated them against the tool's schema, so a
//! wrong type here is a broken invariant, still answered to the model rather than a panic.

use serde_json::{Map, Value};

use super::{failure, ToolError};

/// A string argument; validation has checked the type, this only guards the invariant.
pub(super) fn text_argument<'a>(
    arguments: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, ToolError> {
    arguments
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| failure(format!("the argument `{key}` must be a string")))
}

/// An optional string argument.
pub(super) fn optional_text<'a>(
    arguments: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, ToolError> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => text_argument(arguments, key).map(Some),
    }
}
