//! The whole HTTP request of a turn, so that a caller can send it without knowing the protocol:
//! the method, the path under the server's base URL, the headers the protocol needs, where an API
//! key goes (never the key itself), and the body. Each protocol's file states its own
//! [`Endpoint`]; this file only puts a request together from one.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

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

/// Where and how a protocol is spoken over HTTP, as its own file states it.
pub(super) struct Endpoint {
    /// The path under the server's base URL.
    pub(super) path: &'static str,
    /// Headers beyond `content-type`, names lower-case.
    pub(super) headers: &'static [(&'static str, &'static str)],
    /// The header that carries an API key and what goes before the key, when the server takes one.
    pub(super) api_key: Option<(&'static str, &'static str)>,
}

impl Endpoint {
    /// The request that sends `body` here.
    pub(super) fn request(&self, body: Vec<u8>) -> HttpRequest {
        let content_type = ("content-type", "application/json");
        let headers = core::iter::once(&content_type)
            .chain(self.headers)
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        HttpRequest {
            method: "POST".to_owned(),
            path: self.path.to_owned(),
            headers,
            api_key_header: self.api_key.map(|(name, prefix)| ApiKeyHeader {
                name: name.to_owned(),
                prefix: prefix.to_owned(),
            }),
            body,
        }
    }
}
