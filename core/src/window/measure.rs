//! What a request weighs, in the bytes the model reads: every message's text, reasoning and
//! calls, a few bytes per message for the chat template, and the tool schemas. The
//! conversation's sizes are kept as running totals, so each request measures only what was
//! appended since the one before and what shortening changed.

use alloc::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::ToolSpec;
use crate::wire::{Message, Role};

/// What a message costs besides its text: the template's role markers and separators.
const MESSAGE_OVERHEAD_BYTES: u64 = 12;

/// Bytes of some messages with their reasoning (what the estimate uses) and without it (chat
/// templates may drop old reasoning: what the floor of a count uses).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Size {
    pub all: u64,
    pub plain: u64,
}

impl Size {
    pub(super) fn of(messages: &[Arc<Message>]) -> Size {
        messages.iter().fold(Size::default(), |size, message| {
            let plain = message_bytes(message);
            let thinking = message
                .thinking
                .as_ref()
                .map_or(0, |text| text.len() as u64);
            Size {
                all: size.all + plain + thinking,
                plain: size.plain + plain,
            }
        })
    }

    /// Less `bytes` of text, in both.
    fn less(self, bytes: u64) -> Size {
        Size {
            all: self.all - bytes.min(self.all),
            plain: self.plain - bytes.min(self.plain),
        }
    }
}

/// The session's conversation as measured so far. The session only appends to it, and only
/// [`super::Budget::fit`] shortens what it holds, so the totals stay those of a measure from
/// scratch (the window's unit tests check exactly that).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Measured {
    /// How many messages, from the first, `size` covers.
    messages: usize,
    size: Size,
    /// Per pass of shortening, the first message not yet looked at: every tool result before it
    /// is as short as that pass makes it (results never grow back), so a request looks only at
    /// those that left the last two turns since. `None` until the model's first turn.
    trim_from: Option<[usize; 2]>,
}

impl Measured {
    /// The size of `conversation`, after measuring what was appended to it.
    pub(super) fn catch_up(&mut self, conversation: &[Arc<Message>]) -> Size {
        if conversation.len() < self.messages {
            // Not the conversation measured: only a new session's would be shorter.
            *self = Measured::default();
        }
        let appended = Size::of(&conversation[self.messages..]);
        self.messages = conversation.len();
        self.size = Size {
            all: self.size.all + appended.all,
            plain: self.size.plain + appended.plain,
        };
        self.size
    }

    /// One message's text became `bytes` shorter.
    pub(super) fn shortened(&mut self, bytes: u64) -> Size {
        self.size = self.size.less(bytes);
        self.size
    }

    /// Where pass `pass` of shortening starts: after the pinned opening, the first time.
    pub(super) fn trim_from(&mut self, conversation: &[Arc<Message>], pass: usize) -> usize {
        let cursors = self.trim_from.get_or_insert_with(|| {
            let first = conversation
                .iter()
                .position(|message| message.role == Role::Assistant)
                .unwrap_or(conversation.len());
            [first; 2]
        });
        cursors[pass.min(1)]
    }

    pub(super) fn looked_at(&mut self, pass: usize, until: usize) {
        if let Some(cursors) = &mut self.trim_from {
            cursors[pass.min(1)] = until;
        }
    }
}

/// Where the last two turns begin (the model's second-to-last message), or `None` while there
/// are fewer than two: what shortening never touches. Looks back only over those two turns.
pub(super) fn kept_from(conversation: &[Arc<Message>]) -> Option<usize> {
    conversation
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, message)| message.role == Role::Assistant)
        .nth(1)
        .map(|(index, _)| index)
}

pub(super) fn tools_bytes(tools: &[ToolSpec]) -> u64 {
    tools
        .iter()
        .map(|tool| serde_json::to_vec(&tool.function).map_or(0, |bytes| bytes.len() as u64))
        .sum()
}

/// A message's bytes without its reasoning.
fn message_bytes(message: &Message) -> u64 {
    let calls: usize = message
        .tool_calls
        .iter()
        .map(|call| {
            call.function.name.len()
                + call
                    .function
                    .arguments
                    .iter()
                    .map(|(key, value)| key.len() + value_bytes(value))
                    .sum::<usize>()
        })
        .sum();
    (message.content.len() + calls) as u64 + MESSAGE_OVERHEAD_BYTES
}

/// About the bytes of a value as JSON text, without serializing it.
fn value_bytes(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Array(items) => {
            2 + items
                .iter()
                .map(|item| value_bytes(item) + 1)
                .sum::<usize>()
        }
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(key, value)| key.len() + 4 + value_bytes(value))
                .sum::<usize>()
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 5,
    }
}
