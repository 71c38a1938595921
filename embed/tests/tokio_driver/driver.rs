//! The tokio driver: feeds a session the lines of each response as reqwest reads them, answers
//! tools from a table, sleeps until `next_deadline()`, and stops on a cancel signal. Dropping the
//! future cancels too: it owns the client, the response and everything else it opened.

use std::future::Future;
use std::time::Duration;

use mend_core::{
    Action, Event, Input, Millis, Session, Stop, StreamLine, ToolOutcome, TransportError,
};
use serde_json::{Map, Value};
use tokio::time::Instant;

/// What a session did, as a caller sees it: every event in order, and the stop.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    pub events: Vec<Event>,
    pub stop: Stop,
}

/// Tools answered from memory: a name and the files they read and edit.
pub trait ToolTable {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> ToolOutcome;
}

/// Where the server is, and the API key if it wants one.
pub struct Server<'a> {
    pub base: &'a str,
    pub api_key: Option<&'a str>,
}

/// Runs a session to its stop, from the first actions it queued. `cancel` resolving is the
/// user's interrupt.
pub async fn drive(
    mut session: Session,
    server: Server<'_>,
    tools: &mut dyn ToolTable,
    cancel: impl Future<Output = ()>,
) -> Transcript {
    let http = reqwest::Client::new();
    let clock = Instant::now();
    let now = || Millis(u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX));
    let mut events = Vec::new();
    let mut body: Option<Body> = None;
    tokio::pin!(cancel);
    loop {
        if let Some(action) = session.poll_action() {
            if let Some(request) = action.http_request() {
                let url = format!("{}{}", server.base, request.path);
                let mut sent = http.request(request.method.parse().unwrap(), url);
                for (name, value) in request.headers {
                    sent = sent.header(name, value);
                }
                if let (Some(place), Some(key)) = (&request.api_key_header, server.api_key) {
                    sent = sent.header(&place.name, place.value(key));
                }
                body = Some(Body::Sending(Box::pin(sent.body(request.body).send())));
                continue;
            }
            match action {
                Action::Emit(event) => events.push(event),
                Action::DispatchTool {
                    call_id,
                    name,
                    arguments,
                } => {
                    let outcome = tools.call(&name, &arguments);
                    session.handle(now(), Input::ToolFinished { call_id, outcome });
                }
                Action::Stop(stop) => return Transcript { events, stop },
                _ => {}
            }
            continue;
        }
        let deadline = session
            .next_deadline()
            .map(|at| clock + Duration::from_millis(at.0));
        let Some(open) = body.as_mut() else {
            panic!("the session waits for nothing: no request out, no tool running");
        };
        let input = tokio::select! {
            () = &mut cancel => Input::Cancel,
            () = tokio::time::sleep_until(deadline.unwrap_or(clock)), if deadline.is_some() => {
                Input::DeadlinePassed
            }
            input = open.next_input(now) => input,
        };
        session.handle(now(), input);
        if !session.is_streaming() {
            body = None; // the rest of the response is not wanted: dropping it closes it
        }
    }
}

type Sending = std::pin::Pin<Box<dyn Future<Output = reqwest::Result<reqwest::Response>>>>;

/// A response body read line by line, as the session wants its inputs.
enum Body {
    Sending(Sending),
    Reading {
        response: reqwest::Response,
        buffer: Vec<u8>,
    },
    Ended,
}

impl Body {
    /// The next input of the body; a line is stamped by `now` as it is cut from the buffer.
    async fn next_input(&mut self, now: impl Fn() -> Millis) -> Input {
        loop {
            match self {
                Body::Sending(sent) => match sent.await {
                    Ok(response) if response.status().as_u16() >= 400 => {
                        let status = response.status().as_u16();
                        let body = response.text().await.unwrap_or_default();
                        return self.end(Input::TransportFailed {
                            error: TransportError::Http { status, body },
                        });
                    }
                    Ok(response) => {
                        *self = Body::Reading {
                            response,
                            buffer: Vec::new(),
                        }
                    }
                    Err(err) => {
                        let message = err.to_string();
                        return self.end(Input::TransportFailed {
                            error: TransportError::Connect { message },
                        });
                    }
                },
                Body::Reading { response, buffer } => {
                    if let Some(newline) = buffer.iter().position(|byte| *byte == b'\n') {
                        let line = buffer.drain(..=newline).take(newline).collect();
                        return Input::StreamLine(StreamLine::new(line, now()));
                    }
                    match response.chunk().await {
                        Ok(Some(bytes)) => buffer.extend_from_slice(&bytes),
                        Ok(None) if buffer.is_empty() => return self.end(Input::StreamEnd),
                        Ok(None) => {
                            let line = std::mem::take(buffer);
                            return Input::StreamLine(StreamLine::new(line, now()));
                        }
                        Err(err) => {
                            let message = err.to_string();
                            return self.end(Input::TransportFailed {
                                error: TransportError::Read { message },
                            });
                        }
                    }
                }
                Body::Ended => return std::future::pending().await,
            }
        }
    }

    fn end(&mut self, input: Input) -> Input {
        *self = Body::Ended;
        input
    }
}
