//! The whole HTTP request of a turn, so that a caller can send it without knowing the protocol:
//! the method, the path under the server's base URL, the headers the protocol needs, where an API
//! key goes (never the key itself), and the body.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use crate::codec::Protocol;
use crate::wire::ChatRequest;

/// Anthropic's API version header; the Messages stream format the codec reads is this one.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// One chat request, ready for any HTTP client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// Always `POST` for a chat request.
    pub method: String,
    /// The path under the server's base URL, starting with `/` (e.g. `/api/chat`). A base URL
    /// that already ends with the path's first segment (`…/v1`) should not repeat it.
    pub path: String,
    /// The headers the protocol needs, names lower-case, in a fixed order.
    pub headers: Vec<(String, String)>,
    /// Where the API key goes when the caller has one; the core never sees the key.
    pub api_key_header: Option<ApiKeyHeader>,
    /// The request body: JSON in the protocol's own shape.
    pub body: Vec<u8>,
}

/// The header that carries an API key: `name: prefix + key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyHeader {
    /// The header's name, lower-case (`authorization`, `x-api-key`).
    pub name: String,
    /// What goes before the key in the value (`Bearer ` for OpenAI, nothing for Anthropic).
    pub prefix: String,
}

impl ApiKeyHeader {
    /// The header's value for `key`. Keep the result out of logs and records.
    pub fn value(&self, key: &str) -> String {
        let mut value = self.prefix.clone();
        value.push_str(key);
        value
    }
}

impl Protocol {
    /// The HTTP request that sends `body` to a server of this protocol.
    pub fn http_request(self, body: &ChatRequest) -> HttpRequest {
        let (path, api_key_header) = match self {
            Protocol::OllamaNdjson => ("/api/chat", None),
            Protocol::OpenaiSse => ("/v1/chat/completions", Some(("authorization", "Bearer "))),
            Protocol::AnthropicSse => ("/v1/messages", Some(("x-api-key", ""))),
        };
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        if self == Protocol::AnthropicSse {
            headers.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
        }
        HttpRequest {
            method: "POST".to_owned(),
            path: path.to_owned(),
            headers,
            api_key_header: api_key_header.map(|(name, prefix)| ApiKeyHeader {
                name: name.to_owned(),
                prefix: prefix.to_owned(),
            }),
            body: self.request_body(body),
        }
    }
}
