//! `OLLAMA_HOST`, read exactly as Ollama reads it (its `envconfig.Host`: docs/design.md, "The
//! wire"), then made connectable the way Ollama's own client tools do it.

use std::fmt;
use std::net::IpAddr;

/// Where Ollama listens when nothing says otherwise.
pub const DEFAULT_PORT: u16 = 11434;

/// A server base URL: scheme, host, port and an optional path prefix that API paths go under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// `http` or `https`.
    pub scheme: String,
    /// The host name or address.
    pub host: String,
    /// The port; the scheme's own (Ollama's for a bare host) when the value names none.
    pub port: u16,
    /// The prefix API paths go under, without its leading slash; empty for none.
    pub path: String,
}

impl BaseUrl {
    /// Parses an `OLLAMA_HOST`-style value. Never fails: like Ollama, an invalid port falls back
    /// to the default one, and an empty value means the local default.
    pub fn parse(value: &str) -> BaseUrl {
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let (scheme, rest, default_port) = match value.split_once("://") {
            None if value == "ollama.com" => ("https", "ollama.com:443", 443),
            None => ("http", value, DEFAULT_PORT),
            Some(("http", rest)) => ("http", rest, 80),
            Some(("https", rest)) => ("https", rest, 443),
            Some((scheme, rest)) => (scheme, rest, DEFAULT_PORT),
        };
        let (hostport, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (host, port) = match split_host_port(hostport) {
            Some((host, port)) => (host.to_owned(), port.parse::<u16>().unwrap_or(default_port)),
            None => {
                let bare = hostport.trim_start_matches('[').trim_end_matches(']');
                let host = match bare.parse::<IpAddr>() {
                    Ok(ip) => ip.to_string(),
                    Err(_) if hostport.is_empty() => "127.0.0.1".to_owned(),
                    Err(_) => hostport.to_owned(),
                };
                (host, default_port)
            }
        };
        BaseUrl {
            scheme: scheme.to_owned(),
            host,
            port,
            path: path.to_owned(),
        }
    }

    /// The address to connect to: a server may listen on `0.0.0.0` or `::`, a client cannot
    /// connect there (Ollama's `ConnectableHost`). An empty host means this machine too.
    pub fn connectable(mut self) -> BaseUrl {
        self.host = match self.host.as_str() {
            "" | "0.0.0.0" => "127.0.0.1".to_owned(),
            "::" => "::1".to_owned(),
            _ => self.host,
        };
        self
    }

    /// The URL of a request path under this base. A base that already ends with the path's
    /// first segment does not repeat it: `OPENAI_BASE_URL` usually ends in `/v1`, and the
    /// protocol's path `/v1/chat/completions` goes under it as `/chat/completions`.
    pub fn join_api(&self, api_path: &str) -> String {
        let last_segment = self.path.trim_end_matches('/').rsplit('/').next();
        let rest = api_path.strip_prefix('/').and_then(|path| {
            let (first, rest) = path.split_once('/')?;
            (Some(first) == last_segment && !first.is_empty()).then_some(rest)
        });
        match rest {
            Some(rest) => self.join(&format!("/{rest}")),
            None => self.join(api_path),
        }
    }

    /// The URL of an API path under this base, e.g. `/api/chat`.
    pub fn join(&self, api_path: &str) -> String {
        let prefix = self.path.trim_end_matches('/');
        if prefix.is_empty() {
            format!("{self}{api_path}")
        } else {
            format!("{self}/{prefix}{api_path}")
        }
    }
}

impl fmt::Display for BaseUrl {
    /// `scheme://host:port`, with an IPv6 host in brackets; the path is left to [`BaseUrl::join`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// Go's `net.SplitHostPort`: `host:port` or `[v6]:port`; `None` when there is no port part or
/// the host is an unbracketed IPv6 address.
fn split_host_port(hostport: &str) -> Option<(&str, &str)> {
    if let Some(rest) = hostport.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = after.strip_prefix(':')?;
        return Some((host, port));
    }
    let (host, port) = hostport.rsplit_once(':')?;
    if host.contains(':') {
        return None;
    }
    Some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of Ollama's own envconfig tests, plus the rewrites of `ConnectableHost`.
    #[test]
    fn parses_like_ollama() {
        let cases = [
            ("", "http://127.0.0.1:11434"),
            ("1.2.3.4", "http://1.2.3.4:11434"),
            (":1234", "http://127.0.0.1:1234"),
            ("1.2.3.4:1234", "http://1.2.3.4:1234"),
            ("example.com", "http://example.com:11434"),
            ("example.com:1234", "http://example.com:1234"),
            ("0.0.0.0", "http://127.0.0.1:11434"),
            ("0.0.0.0:1234", "http://127.0.0.1:1234"),
            ("::1", "http://[::1]:11434"),
            ("[::1]", "http://[::1]:11434"),
            ("[::1]:1234", "http://[::1]:1234"),
            ("::", "http://[::1]:11434"),
            ("[::]:1234", "http://[::1]:1234"),
            ("http://1.2.3.4", "http://1.2.3.4:80"),
            ("http://1.2.3.4:4321", "http://1.2.3.4:4321"),
            ("https://1.2.3.4", "https://1.2.3.4:443"),
            ("https://1.2.3.4:4321", "https://1.2.3.4:4321"),
            ("ollama.com", "https://ollama.com:443"),
            ("  \"http://127.0.0.1:9\"  ", "http://127.0.0.1:9"),
            ("example.com:99999", "http://example.com:11434"),
        ];
        for (value, expected) in cases {
            assert_eq!(
                BaseUrl::parse(value).connectable().to_string(),
                expected,
                "{value:?}"
            );
        }
    }

    #[test]
    fn keeps_a_path_prefix_for_api_paths() {
        let base = BaseUrl::parse("https://example.com/ollama");
        assert_eq!(
            base.join("/api/chat"),
            "https://example.com:443/ollama/api/chat"
        );
        assert_eq!(
            BaseUrl::parse("").join("/api/chat"),
            "http://127.0.0.1:11434/api/chat"
        );
    }

    #[test]
    fn a_base_ending_in_the_paths_first_segment_does_not_repeat_it() {
        let cases = [
            (
                "https://api.openai.com/v1",
                "/v1/chat/completions",
                "https://api.openai.com:443/v1/chat/completions",
            ),
            (
                "https://api.openai.com/v1/",
                "/v1/chat/completions",
                "https://api.openai.com:443/v1/chat/completions",
            ),
            (
                "https://api.anthropic.com",
                "/v1/messages",
                "https://api.anthropic.com:443/v1/messages",
            ),
            (
                "http://127.0.0.1:8080/proxy",
                "/v1/messages",
                "http://127.0.0.1:8080/proxy/v1/messages",
            ),
            (
                "http://127.0.0.1:8080/myv1",
                "/v1/messages",
                "http://127.0.0.1:8080/myv1/v1/messages",
            ),
            (
                "http://127.0.0.1:11434",
                "/api/chat",
                "http://127.0.0.1:11434/api/chat",
            ),
        ];
        let joined: Vec<(String, String)> = cases
            .iter()
            .map(|(base, path, _)| (base.to_string(), BaseUrl::parse(base).join_api(path)))
            .collect();
        let expected: Vec<(String, String)> = cases
            .iter()
            .map(|(base, _, url)| (base.to_string(), url.to_string()))
            .collect();
        assert_eq!(joined, expected);
    }
}
