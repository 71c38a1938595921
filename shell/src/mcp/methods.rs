//! The MCP methods mend answers: `initialize` (agreeing on a protocol version, the older
//! handshake), `server/discover` (the 2026-07-28 revision, see `modern`), `ping`, `tools/list`
//! and `tools/call`; every other request is "method not found".

use serde_json::{json, Map, Value};

use crate::mcp::jsonrpc::{self, Incoming, INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::mcp::said::{INSTRUCTIONS, PROTOCOL_VERSIONS};
use crate::mcp::{modern, tools};

#[derive(Default)]
pub(crate) struct Session {
    /// The version agreed by `initialize`.
    pub version: Option<&'static str>,
}

impl Session {
    /// The answer to one line: `None` for a notification or a client's response.
    pub(crate) fn handle(&mut self, line: &str) -> Option<Value> {
        match jsonrpc::read(line) {
            Err(answer) => Some(answer),
            Ok(Incoming::Notification { .. } | Incoming::Response) => None,
            Ok(Incoming::Request { id, method, params }) => {
                Some(self.request(id, &method, &params))
            }
        }
    }

    fn request(&mut self, id: Value, method: &str, params: &Map<String, Value>) -> Value {
        // A request naming its revision in `_meta` is served on its own (2026-07-28).
        if let Some(requested) = modern::requested_version(params) {
            if !modern::MODERN_VERSIONS.contains(&requested) {
                return modern::unsupported(id, requested);
            }
            let answer = self.answer(id.clone(), method, params);
            return match answer.get("result").cloned() {
                Some(result) if method == "tools/list" || method == "server/discover" => {
                    jsonrpc::result(id, modern::cacheable(result))
                }
                Some(result) => jsonrpc::result(id, modern::complete(result)),
                None => answer,
            };
        }
        self.answer(id, method, params)
    }

    fn answer(&mut self, id: Value, method: &str, params: &Map<String, Value>) -> Value {
        match method {
            "server/discover" => jsonrpc::result(id, modern::discovered()),
            "initialize" => {
                let asked = params.get("protocolVersion").and_then(Value::as_str);
                let version = PROTOCOL_VERSIONS
                    .iter()
                    .find(|known| Some(**known) == asked)
                    .copied()
                    .unwrap_or(PROTOCOL_VERSIONS[0]);
                self.version = Some(version);
                jsonrpc::result(id, initialized(version))
            }
            "ping" => jsonrpc::result(id, json!({})),
            "tools/list" => jsonrpc::result(id, json!({"tools": tools::list()})),
            "tools/call" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return jsonrpc::error(id, INVALID_PARAMS, "tools/call needs a tool `name`");
                };
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(arguments)) => arguments.clone(),
                    Some(_) => {
                        return jsonrpc::error(id, INVALID_PARAMS, "`arguments` must be an object")
                    }
                };
                match tools::call(name, &arguments) {
                    Some(result) => jsonrpc::result(id, result),
                    None => jsonrpc::error(
                        id,
                        INVALID_PARAMS,
                        &format!("no tool `{name}`: mend offers verify and task"),
                    ),
                }
            }
            other => jsonrpc::error(id, METHOD_NOT_FOUND, &format!("no method `{other}`")),
        }
    }
}

fn initialized(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": modern::server_info(),
        "instructions": INSTRUCTIONS,
    })
}
