//! Where the loop's model turns come from: a live server ([`super::client::LiveSource`]) or a
//! record being replayed. The loop sends a request and reads back the body as items.

use mend_core::{CallId, ChatRequest, Protocol, StreamLine, TransportError};

use crate::clock::SessionClock;
use crate::interrupt::Cut;

/// One item of a response body. A line is the core's own [`StreamLine`], stamped by the reader
/// when it arrives: it reaches the session as it was read.
pub enum StreamItem {
    /// A line of the body, as read.
    Line(StreamLine),
    /// The body ended.
    End,
    /// The connection failed before the body ended.
    Failed(TransportError),
    /// A replayed record says the stream was cut here (Ctrl-C, or the deadline).
    Cut(Cut),
}

/// Where turns come from: a live server, or a record being replayed.
pub trait ModelSource {
    /// Sends `body` and returns its response body as items, each line stamped on `clock` as it
    /// is pulled. A failure to even get a response (connection refused, HTTP error status) is
    /// the first item. `protocol` says how to send it: [`mend_core::Protocol::http_request`]
    /// gives the whole request.
    fn open(
        &mut self,
        turn: u32,
        body: &ChatRequest,
        protocol: Protocol,
        clock: SessionClock,
    ) -> Box<dyn Iterator<Item = StreamItem> + Send>;

    /// Whether the call must be cut instead of run, and how: a replay reproduces a Ctrl-C or a
    /// deadline that landed while the recorded call ran. A live source never cuts.
    fn cut_before(&mut self, _call_id: &CallId) -> Option<Cut> {
        None
    }

    /// The hooks the record ran for a call, when the turns are a record's: a replay reuses
    /// their decisions instead of running the hooks again. A live source has none.
    fn recorded_hooks(&self, _call_id: &CallId) -> Option<&[crate::record::HookRun]> {
        None
    }

    /// Whether the turns are a record's: then the record says where a deadline landed, and the
    /// clock never cuts on its own.
    fn replays(&self) -> bool {
        false
    }
}
