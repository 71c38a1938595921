//! Server-sent events framing: lines in, whole events out (the WHATWG rules that
//! openai-python's `SSEDecoder` follows). Events end at a blank line; `data:` lines are joined
//! with `\n`; `:` lines are comments; a trailing `\r` is dropped; other fields are ignored.

use crate::prelude::*;

use serde::{Deserialize, Serialize};

use super::{malformed, DecodeError};

/// The event being gathered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SseFramer {
    event: Option<String>,
    data: Option<String>,
}

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    pub(super) event: Option<String>,
    pub(super) data: String,
}

impl SseEvent {
    /// The event's data as the JSON object both SSE protocols send in every event.
    pub(super) fn json_object(&self) -> Result<serde_json::Value, DecodeError> {
        let value: serde_json::Value = serde_json::from_str(&self.data)
            .map_err(|err| malformed(self.data.as_bytes(), &err))?;
        if value.is_object() {
            Ok(value)
        } else {
            Err(malformed(
                self.data.as_bytes(),
                &"an event must hold a JSON object",
            ))
        }
    }
}

impl SseFramer {
    /// Takes one line; returns the event it completes, if any. An event without data is dropped,
    /// as the standard says; a stream that ends mid-event never dispatches it.
    pub(super) fn push(&mut self, line: &[u8]) -> Result<Option<SseEvent>, DecodeError> {
        let text = core::str::from_utf8(line).map_err(|err| malformed(line, &err))?;
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.is_empty() {
            let event = self.event.take();
            return Ok(self.data.take().map(|data| SseEvent { event, data }));
        }
        if text.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = text.split_once(':').unwrap_or((text, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(lines: &[&str]) -> Vec<SseEvent> {
        let mut framer = SseFramer::default();
        lines
            .iter()
            .filter_map(|line| framer.push(line.as_bytes()).unwrap())
            .collect()
    }

    #[test]
    fn frames_events_as_the_standard_says() {
        assert_eq!(
            events(&[
                "data: {\"a\":",
                "data:1}\r",
                "",
                ": keep-alive",
                "",
                "event: error",
                "data: x",
                "",
                "data: never"
            ]),
            vec![
                SseEvent {
                    event: None,
                    data: "{\"a\":\n1}".to_owned()
                },
                SseEvent {
                    event: Some("error".to_owned()),
                    data: "x".to_owned()
                },
            ]
        );
    }
}
