//! A capture as the driver sees a server: its bytes served as the response to the session's one
//! request (an error body as the HTTP failure it was), and what the session made of them heard as
//! it streams.

use mend_core::{ChatRequest, Event, Protocol, StreamLine, TransportError};

use crate::attempt::driver::Observer;
use crate::clock::SessionClock;
use crate::provider::source::{ModelSource, StreamItem};

/// One capture, served once.
pub(super) struct CaptureSource {
    /// The capture's bytes.
    pub bytes: Vec<u8>,
    /// Whether they are an error body rather than a stream.
    pub error_body: bool,
}

impl ModelSource for CaptureSource {
    fn open(
        &mut self,
        turn: u32,
        _body: &ChatRequest,
        _protocol: Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send> {
        if turn > 1 {
            // A session of one turn sends one request: a second one is a bug the verdict shows.
            let message = format!("a capture answers one request, and turn {turn} sent another");
            return Box::new(std::iter::once(StreamItem::Failed(TransportError::Read {
                message,
            })));
        }
        if self.error_body {
            let error = TransportError::Http {
                status: 400,
                body: String::from_utf8_lossy(&self.bytes).into_owned(),
            };
            return Box::new(std::iter::once(StreamItem::Failed(error)));
        }
        // Every piece between newlines is a line, the last (empty after a final newline) too;
        // the driver reads them only while the session streams.
        let lines: Vec<Vec<u8>> = self
            .bytes
            .split(|byte| *byte == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        let lines = lines
            .into_iter()
            .map(move |line| StreamItem::Line(StreamLine::new(line, clock.now())));
        Box::new(lines.chain(std::iter::once(StreamItem::End)))
    }
}

/// What the session said as it streamed: its text, its thinking and the calls it ran, in order.
#[derive(Default)]
pub(super) struct Heard {
    pub content: String,
    pub thinking: String,
    pub calls: Vec<String>,
}

impl Observer for Heard {
    fn event(&mut self, event: &Event) {
        match event {
            Event::TextDelta { text, .. } => self.content.push_str(text),
            Event::ThinkingDelta { text, .. } => self.thinking.push_str(text),
            // A call starts only when it is dispatched to run (a refused one has no start).
            Event::ToolStart { name, .. } => self.calls.push(name.clone()),
            _ => {}
        }
    }
}
