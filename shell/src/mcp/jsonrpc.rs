//! JSON-RPC 2.0 messages as MCP sends them: a request (with an `id`), a notification (without),
//! and the answer to a request, a result or an error.

use serde_json::{json, Map, Value};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// One message read from a line.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
    },
    /// A response from the client (mend sends no requests, so it is dropped).
    Response,
}

/// The message on `line`, or the error answer it deserves (with the request's id when known).
pub(crate) fn read(line: &str) -> Result<Incoming, Value> {
    let value: Value = serde_json::from_str(line)
        .map_err(|err| error(Value::Null, PARSE_ERROR, &format!("not JSON: {err}")))?;
    let Value::Object(object) = value else {
        return Err(error(
            Value::Null,
            INVALID_REQUEST,
            "a message must be one JSON object (batches are not part of MCP)",
        ));
    };
    let id = object.get("id").cloned();
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "jsonrpc must be \"2.0\"",
        ));
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return if object.contains_key("result") || object.contains_key("error") {
            Ok(Incoming::Response)
        } else {
            Err(error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "no method",
            ))
        };
    };
    let params = match object.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(_) => {
            return Err(error(
                id.unwrap_or(Value::Null),
                INVALID_PARAMS,
                "params must be an object",
            ))
        }
    };
    Ok(match id {
        Some(id) => Incoming::Request {
            id,
            method: method.to_owned(),
            params,
        },
        None => Incoming::Notification {
            method: method.to_owned(),
        },
    })
}

pub(crate) fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub(crate) fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
