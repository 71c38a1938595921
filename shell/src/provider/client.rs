//! The blocking HTTP client: Ollama's probes before the loop, and any chat request the core
//! describes ([`HttpRequest`]: method, path, headers, body) sent and streamed back line by line.
//! What each protocol needs is the core's knowledge, not this client's.

use std::io::{BufReader, Read};
use std::time::Duration;

use mend_core::{ChatRequest, HttpRequest, Protocol, StreamLine, TransportError};
use serde::Deserialize;

use super::host::BaseUrl;
use super::lines::{LineError, LineReader, MAX_LINE_BYTES};
use super::source::{ModelSource, StreamItem};
use crate::clock::{millis, SessionClock};
use crate::error::MendError;

/// A local server answers a connect at once; a long wait means nothing is there.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Error bodies are short JSON; more than this is not worth reading.
const ERROR_BODY_CAP_BYTES: u64 = 64 * 1024;
/// The read buffer of a streamed body: lines are usually far shorter.
const STREAM_BUFFER_BYTES: usize = 64 * 1024;

/// A blocking HTTP client for one model server, with the timeouts and key every request shares.
pub struct Client {
    agent: ureq::Agent,
    base: BaseUrl,
    read_timeout: Duration,
    api_key: Option<Secret>,
}

/// An API key: sent in a header, never printed, never recorded.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// The key, unless it is empty or blank (then no header is sent).
    pub fn new(key: String) -> Option<Secret> {
        Some(Secret(key)).filter(|secret| !secret.0.trim().is_empty())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl Client {
    /// `read_timeout` bounds each wait for data (headers or the next bytes of a body), not the
    /// whole response: a long generation is fine as long as it keeps streaming.
    pub fn new(base: BaseUrl, read_timeout: Duration, api_key: Option<Secret>) -> Client {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(CONNECT_TIMEOUT)
            .timeout_read(read_timeout)
            .build();
        Client {
            agent,
            base,
            read_timeout,
            api_key,
        }
    }

    /// The server's address, as messages and records name it.
    pub fn base(&self) -> &BaseUrl {
        &self.base
    }

    /// `GET /api/version`: proves an Ollama server is there and says which one.
    pub fn version(&self) -> Result<String, MendError> {
        #[derive(Deserialize)]
        struct Version {
            version: String,
        }
        let version: Version = self.probe("/api/version", |url, err| {
            format!("{url} did not answer like Ollama ({err}); is OLLAMA_HOST right?")
        })?;
        Ok(version.version)
    }

    /// The model's digest from `GET /api/tags` (the hex SHA-256 of its manifest), which also proves
    /// it is pulled.
    pub fn digest(&self, model: &str) -> Result<String, MendError> {
        #[derive(Deserialize)]
        struct Tags {
            models: Vec<Tag>,
        }
        #[derive(Deserialize)]
        struct Tag {
            name: String,
            #[serde(default)]
            model: String,
            #[serde(default)]
            digest: String,
        }
        let tags: Tags = self.probe("/api/tags", |url, err| {
            format!("{url} sent a model list mend cannot read: {err}")
        })?;
        let wanted = with_tag(model);
        tags.models
            .into_iter()
            .find(|tag| tag.name == wanted || tag.model == wanted)
            .map(|tag| tag.digest)
            .ok_or_else(|| {
                model_error(format!(
                    "model {model} not found at {} — run `ollama pull {model}`",
                    self.base
                ))
            })
    }

    /// A metadata answer as JSON, or `None` when the server has no such path or says nothing
    /// readable: for facts a server may or may not state (the model's context length).
    pub fn metadata(
        &self,
        url: &str,
        body: Option<&serde_json::Value>,
    ) -> Option<serde_json::Value> {
        const METADATA_BODY_CAP_BYTES: u64 = 16 << 20;
        let request = match body {
            Some(_) => self.agent.post(url),
            None => self.agent.get(url),
        };
        let request = match (&self.api_key, body) {
            (Some(Secret(key)), _) if !key.is_empty() => {
                request.set("authorization", &format!("Bearer {key}"))
            }
            _ => request,
        };
        let response = match body {
            Some(body) => request
                .set("content-type", "application/json")
                .send_bytes(&serde_json::to_vec(body).unwrap_or_default()),
            None => request.call(),
        }
        .ok()?;
        serde_json::from_reader(response.into_reader().take(METADATA_BODY_CAP_BYTES)).ok()
    }

    /// `GET` an Ollama metadata path and read its JSON answer; `unreadable` words the error for
    /// an answer that is not the expected JSON.
    fn probe<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        unreadable: impl Fn(&str, serde_json::Error) -> String,
    ) -> Result<T, MendError> {
        // Metadata answers are small; the model list of a big installation is well under this.
        const PROBE_BODY_CAP_BYTES: u64 = 16 << 20;
        let url = self.base.join(path);
        let response = self
            .agent
            .get(&url)
            .call()
            .map_err(|err| self.probe_error(&url, err))?;
        serde_json::from_reader(response.into_reader().take(PROBE_BODY_CAP_BYTES))
            .map_err(|err| model_error(unreadable(&url, err)))
    }

    /// Sends one request as the core described it; the body is read line by line as the
    /// iterator is pulled. The key, when there is one, goes where the request says.
    pub fn send(
        &self,
        http: &HttpRequest,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        let url = self.base.join_api(&http.path);
        let mut request = self.agent.request(&http.method, &url);
        for (name, value) in &http.headers {
            request = request.set(name, value);
        }
        if let (Some(place), Some(Secret(key))) = (&http.api_key_header, &self.api_key) {
            request = request.set(&place.name, &place.value(key));
        }
        let sent = request.send_bytes(&http.body);
        match sent {
            Ok(response) => Box::new(ChatStream {
                lines: Some(LineReader::new(
                    BufReader::with_capacity(STREAM_BUFFER_BYTES, response.into_reader()),
                    MAX_LINE_BYTES,
                )),
                read_timeout: self.read_timeout,
                clock,
            }),
            Err(err) => Box::new(std::iter::once(StreamItem::Failed(
                self.transport_error(err),
            ))),
        }
    }

    fn transport_error(&self, err: ureq::Error) -> TransportError {
        match err {
            ureq::Error::Status(status, response) => TransportError::Http {
                status,
                body: error_body(response),
            },
            ureq::Error::Transport(transport) => match transport.kind() {
                ureq::ErrorKind::Io if is_timeout(&transport.to_string()) => {
                    TransportError::ReadTimeout {
                        after_ms: millis(self.read_timeout),
                    }
                }
                ureq::ErrorKind::Dns | ureq::ErrorKind::ConnectionFailed => {
                    TransportError::Connect {
                        message: format!("no server at {} ({})", self.base, transport.kind()),
                    }
                }
                _ => TransportError::Read {
                    message: transport.to_string(),
                },
            },
        }
    }

    fn probe_error(&self, url: &str, err: ureq::Error) -> MendError {
        match self.transport_error(err) {
            TransportError::Connect { .. } => model_error(format!(
                "no Ollama at {} — start `ollama serve` or set OLLAMA_HOST (or --host)",
                self.base
            )),
            error @ TransportError::Http { .. } => {
                model_error(format!("{url} answered {}", error.describe()))
            }
            other => model_error(format!("{url}: {}", other.describe())),
        }
    }
}

/// Reads the response body lazily, one line per pull, and ends after the first failure.
struct ChatStream<R> {
    lines: Option<LineReader<R>>,
    read_timeout: Duration,
    /// What a line's arrival is stamped on.
    clock: SessionClock,
}

impl<R: std::io::BufRead> Iterator for ChatStream<R> {
    type Item = StreamItem;

    fn next(&mut self) -> Option<StreamItem> {
        let lines = self.lines.as_mut()?;
        let item = match lines.next_line() {
            Ok(Some(line)) => {
                return Some(StreamItem::Line(StreamLine::new(line, self.clock.now())))
            }
            Ok(None) => StreamItem::End,
            Err(LineError::TooLong { limit_bytes }) => {
                StreamItem::Failed(TransportError::LineTooLong {
                    limit_bytes: limit_bytes as u64,
                })
            }
            Err(LineError::Io(err))
                if is_timeout_kind(err.kind()) || is_timeout(&err.to_string()) =>
            {
                StreamItem::Failed(TransportError::ReadTimeout {
                    after_ms: millis(self.read_timeout),
                })
            }
            Err(LineError::Io(err)) => StreamItem::Failed(TransportError::Read {
                message: err.to_string(),
            }),
        };
        self.lines = None;
        Some(item)
    }
}

/// Turns come from a live server.
pub struct LiveSource<'a> {
    /// The server the turns are asked of.
    pub client: &'a Client,
}

impl ModelSource for LiveSource<'_> {
    fn open(
        &mut self,
        _turn: u32,
        body: &ChatRequest,
        protocol: Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        self.client.send(&protocol.http_request(body), clock)
    }
}

/// Ollama lists every model with its tag; a bare name means `:latest`.
pub fn with_tag(model: &str) -> String {
    let last = model.rsplit('/').next().unwrap_or(model);
    if last.contains(':') {
        model.to_owned()
    } else {
        format!("{model}:latest")
    }
}

fn error_body(response: ureq::Response) -> String {
    let mut body = String::new();
    let _partial_is_fine = response
        .into_reader()
        .take(ERROR_BODY_CAP_BYTES)
        .read_to_string(&mut body);
    body
}

fn is_timeout_kind(kind: std::io::ErrorKind) -> bool {
    matches!(
        kind,
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

/// ureq reports socket timeouts as I/O errors whose text is the OS's; the kind is lost on the way.
fn is_timeout(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    text.contains("timed out")
        || text.contains("would block")
        || text.contains("temporarily unavailable")
}

fn model_error(message: String) -> MendError {
    MendError {
        exit_code: crate::error::exit::MODEL,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::with_tag;

    #[test]
    fn a_bare_model_name_means_latest() {
        assert_eq!(with_tag("gemma4:e2b"), "gemma4:e2b");
        assert_eq!(with_tag("llama3.2"), "llama3.2:latest");
        assert_eq!(with_tag("hf.co/org/model"), "hf.co/org/model:latest");
        assert_eq!(
            with_tag("localhost:5000/model"),
            "localhost:5000/model:latest"
        );
    }
}
