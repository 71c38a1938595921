//! MCP's 2026-07-28 revision beside the older handshake: a request that carries its protocol
//! version in `_meta` (`io.modelcontextprotocol/protocolVersion`) is served on its own, with no
//! `initialize` before it; `server/discover` says what the server speaks. A version mend does not
//! speak gets `UnsupportedProtocolVersionError` (-32022) naming the ones it does, so the client
//! retries with one of them. Requests without that key are the older handshake's (`methods`).

use serde_json::{json, Map, Value};

use crate::mcp::said::{INSTRUCTIONS, PROTOCOL_VERSIONS};

/// The revisions served per request, newest first.
pub(crate) const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The `_meta` key each modern request names its revision under.
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// MCP's code for a revision the server does not speak.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The revision a request names in its `_meta`, when it is a modern one.
pub(crate) fn requested_version(params: &Map<String, Value>) -> Option<&str> {
    params
        .get("_meta")
        .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str)
}

/// Every revision mend speaks, the modern ones first: what a client may choose from.
pub(crate) fn every_version() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(PROTOCOL_VERSIONS.iter())
        .copied()
        .collect()
}

/// The error for a revision mend does not speak, naming those it does.
pub(crate) fn unsupported(id: Value, requested: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": UNSUPPORTED_PROTOCOL_VERSION,
            "message": "Unsupported protocol version",
            "data": {"supported": every_version(), "requested": requested},
        }
    })
}

/// A modern result: marked complete, naming the server, as the revision asks of every result.
pub(crate) fn complete(result: Value) -> Value {
    let mut result = match result {
        Value::Object(map) => map,
        other => Map::from_iter([("value".to_owned(), other)]),
    };
    result.insert("resultType".to_owned(), json!("complete"));
    result.insert(
        "_meta".to_owned(),
        json!({"io.modelcontextprotocol/serverInfo": server_info()}),
    );
    Value::Object(result)
}

/// A result a client may cache: mend's tools and what it speaks never change while it runs, but
/// the answer is left immediately stale, so nothing is kept across servers.
pub(crate) fn cacheable(result: Value) -> Value {
    let mut result = complete(result);
    if let Value::Object(map) = &mut result {
        map.insert("ttlMs".to_owned(), json!(0));
        map.insert("cacheScope".to_owned(), json!("public"));
    }
    result
}

/// `server/discover`: the revisions mend speaks, its capabilities and what it is for.
pub(crate) fn discovered() -> Value {
    cacheable(json!({
        "supportedVersions": every_version(),
        "capabilities": {"tools": {}},
        "instructions": INSTRUCTIONS,
    }))
}

pub(crate) fn server_info() -> Value {
    json!({"name": "mend", "version": env!("CARGO_PKG_VERSION")})
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::mcp::methods::Session;

    fn answer(session: &mut Session, request: Value) -> Value {
        session.handle(&request.to_string()).unwrap()
    }

    /// A modern request is served with no handshake before it; an unknown version is refused
    /// with the list to retry with; a handshake still works beside them.
    #[test]
    fn each_era_is_served_by_how_the_client_opens() {
        let mut session = Session::default();
        let meta = |version: &str| json!({"_meta": {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}});
        let discovered = answer(
            &mut session,
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": meta("2026-07-28")}),
        );
        let ping = answer(
            &mut session,
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": meta("2026-07-28")}),
        );
        let refused = answer(
            &mut session,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": meta("1900-01-01")}),
        );
        let legacy = answer(
            &mut session,
            json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        );
        let versions = json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ]);
        let server = json!({"io.modelcontextprotocol/serverInfo": {"name": "mend", "version": env!("CARGO_PKG_VERSION")}});
        assert_eq!(
            (
                &discovered["result"]["supportedVersions"],
                &discovered["result"]["resultType"],
                &discovered["result"]["ttlMs"],
                &discovered["result"]["_meta"],
                &ping["result"],
                &refused["error"],
                &legacy["result"]["protocolVersion"],
            ),
            (
                &versions,
                &json!("complete"),
                &json!(0),
                &server,
                &json!({"resultType": "complete", "_meta": server}),
                &json!({"code": -32022, "message": "Unsupported protocol version", "data": {"supported": versions, "requested": "1900-01-01"}}),
                &json!("2025-06-18"),
            )
        );
    }
}
