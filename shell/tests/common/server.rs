//! A scripted Ollama on 127.0.0.1 for the shell's tests: HTTP/1.1, one connection at a time,
//! bounded in connections and in time, and it stops by itself.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// However a test goes, the server is gone after this long: longer than the runs a test lets
/// a task's tests take (the games give theirs 300 s), which under load took more than a minute.
const LIFETIME: Duration = Duration::from_secs(600);
/// More connections than any test needs: probes plus a handful of turns.
const MAX_CONNECTIONS: usize = 32;

/// One scripted answer to `POST /api/chat`.
pub enum Reply {
    /// HTTP 200 with a chunked NDJSON body: each write is one chunk, sent after its pause.
    Stream {
        writes: Vec<(Duration, Vec<u8>)>,
        ending: Ending,
    },
    /// An error status with a JSON body, before any streaming.
    Status { code: u16, body: String },
}

pub enum Ending {
    /// The terminating chunk: a proper end of body.
    Clean,
    /// The connection is closed mid-body, without the terminating chunk.
    Drop,
    /// Nothing more is sent for this long; then the connection is closed.
    Stall(Duration),
}

impl Reply {
    /// Each line in its own write, back to back, ending cleanly.
    pub fn lines(lines: &[String]) -> Reply {
        Reply::Stream {
            writes: lines
                .iter()
                .map(|line| (Duration::ZERO, format!("{line}\n").into_bytes()))
                .collect(),
            ending: Ending::Clean,
        }
    }
}

pub struct Script {
    /// Models listed by `/api/tags`, with their digests.
    pub models: Vec<(&'static str, &'static str)>,
    pub chats: Vec<Reply>,
}

pub struct Server {
    pub base: String,
    chat_bodies: Arc<Mutex<Vec<Value>>>,
    write_times: Arc<Mutex<Vec<Instant>>>,
    chat_requests: Arc<Mutex<Vec<(String, Headers)>>>,
}

/// An Ollama at the edge of its context window: it states the model's length on `/api/show`
/// (and, as llama.cpp's server would, its window on `/props`),
/// counts a prompt at 4 bytes of message text a token, and when a prompt is over `window` it
/// does what Ollama does: drops the oldest messages after the system prompt until the rest fits,
/// answers 200, reports the smaller count, and (having lost the task) writes off-task text.
#[derive(Clone, Copy)]
pub struct Edge {
    pub context_length: u64,
    pub window: u64,
}

/// What the model writes once the front of its prompt is gone.
pub const OFF_TASK: &str = "Hello! How can I help you today?";

impl Server {
    pub fn start(script: Script) -> Server {
        Server::start_at_edge(script, None)
    }

    pub fn start_at_edge(script: Script, edge: Option<Edge>) -> Server {
        Server::start_with(script, edge, None)
    }

    /// A server whose `/api/show` answers `show` (the model's template, its parser): what the
    /// run picks the model's family of written calls from.
    pub fn start_showing(script: Script, show: Value) -> Server {
        Server::start_with(script, None, Some(show))
    }

    fn start_with(script: Script, edge: Option<Edge>, show: Option<Value>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let chat_bodies = Arc::new(Mutex::new(Vec::new()));
        let write_times = Arc::new(Mutex::new(Vec::new()));
        let chat_requests = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared {
            bodies: Arc::clone(&chat_bodies),
            times: Arc::clone(&write_times),
            seen: Arc::clone(&chat_requests),
        };
        listener.set_nonblocking(true).unwrap();
        thread::spawn(move || serve(listener, script, shared, edge, show));
        Server {
            base,
            chat_bodies,
            write_times,
            chat_requests,
        }
    }

    /// The path and the headers (names lower-cased) of every chat request, in order.
    pub fn chat_requests(&self) -> Vec<(String, Vec<(String, String)>)> {
        self.chat_requests.lock().unwrap().clone()
    }

    /// When each streamed write was flushed to the socket, in order (for latency measurements).
    pub fn write_times(&self) -> Vec<Instant> {
        self.write_times.lock().unwrap().clone()
    }

    /// The JSON bodies of every `/api/chat` request received, in order.
    pub fn chat_bodies(&self) -> Vec<Value> {
        self.chat_bodies.lock().unwrap().clone()
    }
}

/// A port on 127.0.0.1 where nothing listens.
pub fn closed_port_base() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    base
}

/// What the serving thread records for the test to read.
struct Shared {
    bodies: Arc<Mutex<Vec<Value>>>,
    times: Arc<Mutex<Vec<Instant>>>,
    seen: Arc<Mutex<Vec<(String, Headers)>>>,
}

fn serve(
    listener: TcpListener,
    script: Script,
    shared: Shared,
    edge: Option<Edge>,
    show: Option<Value>,
) {
    let started = Instant::now();
    let mut chats = script.chats.into_iter();
    let mut served = 0;
    while served < MAX_CONNECTIONS && started.elapsed() < LIFETIME {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(_) => return,
        };
        served += 1;
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let served = Served {
            models: &script.models,
            edge,
            show: show.as_ref(),
        };
        let _client_may_hang_up = handle(stream, &served, &mut chats, &shared);
    }
}

/// What the server says besides its chats.
struct Served<'a> {
    models: &'a [(&'static str, &'static str)],
    edge: Option<Edge>,
    show: Option<&'a Value>,
}

fn handle(
    mut stream: TcpStream,
    served: &Served,
    chats: &mut impl Iterator<Item = Reply>,
    shared: &Shared,
) -> std::io::Result<()> {
    let Served { models, edge, show } = *served;
    let Shared {
        bodies,
        times,
        seen,
    } = shared;
    let Some(Request {
        method,
        path,
        headers,
        body,
    }) = read_request(&mut BufReader::new(&stream))?
    else {
        return Ok(());
    };
    match (method.as_str(), path.as_str()) {
        ("GET", "/api/version") => {
            respond(&mut stream, 200, &json!({"version": "0.33.0"}).to_string())
        }
        ("GET", "/api/tags") => {
            let models: Vec<Value> = models
                .iter()
                .map(|(name, digest)| json!({"name": name, "model": name, "digest": digest, "size": 1}))
                .collect();
            respond(&mut stream, 200, &json!({"models": models}).to_string())
        }
        ("POST", "/api/show") if show.is_some() => respond(
            &mut stream,
            200,
            &show.map(Value::to_string).unwrap_or_default(),
        ),
        ("POST", "/api/show") if edge.is_some() => {
            let length = edge.map(|edge| edge.context_length);
            let show = json!({"details": {"family": "test"}, "model_info": {"general.architecture": "test", "test.context_length": length}});
            respond(&mut stream, 200, &show.to_string())
        }
        // llama.cpp's server states the window it was started with.
        ("GET", "/props") if edge.is_some() => {
            let props =
                json!({"default_generation_settings": {"n_ctx": edge.map(|edge| edge.window)}});
            respond(&mut stream, 200, &props.to_string())
        }
        ("POST", "/api/chat" | "/v1/chat/completions" | "/v1/messages") => {
            seen.lock().unwrap().push((path.clone(), headers));
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            bodies.lock().unwrap().push(request.clone());
            let next = match edge {
                Some(edge) => chats
                    .next()
                    .map(|reply| at_the_edge(&request, edge.window, reply)),
                None => chats.next(),
            };
            match next {
                Some(Reply::Status { code, body }) => respond(&mut stream, code, &body),
                Some(Reply::Stream { writes, ending }) => {
                    stream_chunks(&mut stream, writes, ending, times)
                }
                None => respond(
                    &mut stream,
                    500,
                    r#"{"error":"the test script has no more replies"}"#,
                ),
            }
        }
        _ => respond(&mut stream, 404, "404 page not found"),
    }
}

/// The reply an Ollama holding `window` tokens gives: the script's, with the prompt counted; or,
/// for an oversized prompt, off-task text with the count of what was left after the front went.
fn at_the_edge(request: &Value, window: u64, reply: Reply) -> Reply {
    let sizes: Vec<u64> = request["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .map(|message| {
                    (message["content"].as_str().unwrap_or_default().len()
                        + message["tool_calls"].to_string().len()) as u64
                        / 4
                        + 4
                })
                .collect()
        })
        .unwrap_or_default();
    // The tool schemas are part of the rendered prompt, and never dropped.
    let tools = request["tools"].to_string().len() as u64 / 4;
    let mut count: u64 = tools + sizes.iter().sum::<u64>();
    let truncated = count > window;
    // Like Ollama: the system prompt and the last message stay; the oldest others go first.
    let mut dropped = 1;
    while count > window && dropped + 1 < sizes.len() {
        count -= sizes[dropped];
        dropped += 1;
    }
    // What still does not fit is cut token by token (Ollama's runner keeps the window's worth).
    let count = count.min(window);
    let done = |count: u64| {
        json!({"model": "m", "created_at": "2026-12-03T12:00:00Z", "message": {"role": "assistant", "content": ""},
               "done": true, "done_reason": "stop", "prompt_eval_count": count, "eval_count": 9})
    };
    if truncated {
        let text = json!({"model": "m", "created_at": "2026-12-03T12:00:00Z", "message": {"role": "assistant", "content": OFF_TASK}, "done": false});
        return Reply::lines(&[text.to_string(), done(count).to_string()]);
    }
    match reply {
        Reply::Stream { writes, ending } => Reply::Stream {
            writes: writes
                .into_iter()
                .map(|(pause, bytes)| {
                    let counted = serde_json::from_slice::<Value>(&bytes)
                        .ok()
                        .filter(|line| line["done"] == json!(true))
                        .map(|mut line| {
                            line["prompt_eval_count"] = json!(count);
                            format!("{line}\n").into_bytes()
                        });
                    (pause, counted.unwrap_or(bytes))
                })
                .collect(),
            ending,
        },
        other => other,
    }
}

/// A listener on 127.0.0.1 that serves each connection on a thread of its own, while `open`
/// says so, until it is dropped: for scripted models many clients talk to at once. Each request
/// gets status 200 with the content type and body `answer` gives; a connection is kept alive
/// until the client closes it.
pub struct Loopback {
    pub base: String,
    stop: Arc<AtomicBool>,
}

impl Loopback {
    pub fn start(
        open: impl Fn() -> bool + Send + 'static,
        answer: impl Fn(Request) -> (&'static str, String) + Send + Sync + 'static,
    ) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let answer = Arc::new(answer);
        thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) && open() {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let answer = Arc::clone(&answer);
                        thread::spawn(move || keep_alive(stream, &*answer));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Loopback { base, stop }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Answers the requests on one connection until the client closes it or a read or write fails.
fn keep_alive(stream: TcpStream, answer: &dyn Fn(Request) -> (&'static str, String)) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let Ok(reading) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reading);
    let mut stream = stream;
    while let Ok(Some(request)) = read_request(&mut reader) {
        let (kind, text) = answer(request);
        // One write: a head and a body written apart wait on the client's delayed ACK (40 ms on
        // Linux) before the body leaves, which a timed client would count as the server's.
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        if stream.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

type Headers = Vec<(String, String)>;

/// One HTTP/1.1 request as a loopback test server reads it: the headers' names in lower case.
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Headers,
    pub body: Vec<u8>,
}

/// The next request on a connection, read up to its `Content-Length`; `None` when the client
/// closed the connection before sending one (so keep-alive servers read until it does).
pub fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut request_line = String::new();
    if reader.read_line(&mut request_line)? == 0 {
        return Ok(None);
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut length = 0;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Request {
        method,
        path,
        headers,
        body,
    }))
}

fn respond(stream: &mut TcpStream, code: u16, body: &str) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {code} Scripted\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn stream_chunks(
    stream: &mut TcpStream,
    writes: Vec<(Duration, Vec<u8>)>,
    ending: Ending,
    times: &Mutex<Vec<Instant>>,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )?;
    stream.flush()?;
    for (pause, bytes) in writes {
        thread::sleep(pause);
        write!(stream, "{:x}\r\n", bytes.len())?;
        stream.write_all(&bytes)?;
        stream.write_all(b"\r\n")?;
        stream.flush()?;
        times.lock().unwrap().push(Instant::now());
    }
    match ending {
        Ending::Clean => stream.write_all(b"0\r\n\r\n")?,
        Ending::Drop => {}
        Ending::Stall(pause) => thread::sleep(pause),
    }
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Both)
}
