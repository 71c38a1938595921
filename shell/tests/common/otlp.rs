//! A collector of OTLP/HTTP traces on 127.0.0.1, and what it received decoded with the
//! OpenTelemetry project's own types: the spans of each request and their attributes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{json, Value};

/// A collector that answers each of at most `most` requests with 200 and keeps its path and body.
pub struct Collector {
    pub base: String,
    received: mpsc::Receiver<(String, Vec<u8>)>,
}

impl Collector {
    pub fn start(most: usize) -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, received) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(most) {
                // The sender is gone only when the test is over.
                let _ = tx.send(take_request(stream.unwrap()));
            }
        });
        Collector { base, received }
    }

    /// The path and spans of the next request, which must arrive within 60 s.
    pub fn trace(&self) -> (String, Vec<Span>) {
        let (path, body) = self
            .received
            .recv_timeout(Duration::from_secs(60))
            .expect("a trace arrived");
        (path, spans_of(&body))
    }

    /// The spans of up to `count` requests, each waited for 60 s at most.
    pub fn traces(&self, count: usize) -> Vec<Vec<Span>> {
        (0..count)
            .map_while(|_| self.received.recv_timeout(Duration::from_secs(60)).ok())
            .map(|(_, body)| spans_of(&body))
            .collect()
    }
}

/// Reads one request (its path and body, 30 s at most) and answers it with 200.
fn take_request(stream: TcpStream) -> (String, Vec<u8>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let mut stream = stream;
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    (path.to_owned(), body)
}

/// Every span of an export request's body.
pub fn spans_of(body: &[u8]) -> Vec<Span> {
    ExportTraceServiceRequest::decode(body)
        .unwrap()
        .resource_spans
        .into_iter()
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect()
}

/// A span's attribute as JSON (a list as its length), null when it has none of that name.
pub fn attribute(span: &Span, key: &str) -> Value {
    span.attributes
        .iter()
        .find(|pair| pair.key == key)
        .and_then(|pair| pair.value.as_ref()?.value.clone())
        .map_or(Value::Null, |value| match value {
            Any::StringValue(text) => json!(text),
            Any::IntValue(number) => json!(number),
            Any::BoolValue(flag) => json!(flag),
            Any::ArrayValue(list) => json!(list.values.len()),
            other => json!(format!("{other:?}")),
        })
}
