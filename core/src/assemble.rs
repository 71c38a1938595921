//! Joins the deltas of one turn into the assistant message that goes back into the history.

use crate::prelude::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::protocol::{CallArguments, ModelCall};
use crate::wire::{Message, Role, ToolCall, ToolCallFunction};

/// Everything a turn has streamed so far, in arrival order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnAssembly {
    pub(crate) thinking: String,
    pub(crate) content: String,
    /// Every call from every chunk, the done chunk included; never merged by `index`.
    pub(crate) calls: Vec<ModelCall>,
    /// The thinking blocks the server signed, in arrival order, to go back unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) signed_thinking: Vec<Value>,
}

impl TurnAssembly {
    /// Appends one chunk's pieces, in the order they apply. The text is copied, so that the
    /// caller can still hand the fragments on (as events) without cloning them.
    pub(crate) fn absorb(
        &mut self,
        thinking: &str,
        content: &str,
        calls: Vec<ModelCall>,
        signed_thinking: Vec<Value>,
    ) {
        self.thinking.push_str(thinking);
        self.content.push_str(content);
        // Most lines carry neither: an empty vector is not even taken apart.
        if !calls.is_empty() {
            self.calls.extend(calls);
        }
        if !signed_thinking.is_empty() {
            self.signed_thinking.extend(signed_thinking);
        }
    }

    /// The assistant message exactly as assembled: content, thinking when there was any, and the
    /// calls in arrival order. Unreadable arguments go back as an empty object, since the server
    /// decodes `arguments` only from an object; the call's error result tells the model why.
    pub(crate) fn into_message(self) -> Message {
        Message {
            role: Role::Assistant,
            tool_calls: self.calls.iter().map(wire_call).collect(),
            content: self.content,
            thinking: (!self.thinking.is_empty()).then_some(self.thinking),
            signed_thinking: self.signed_thinking,
            tool_name: None,
            tool_call_id: None,
        }
    }
}

fn wire_call(call: &ModelCall) -> ToolCall {
    ToolCall {
        id: call.id.clone(),
        function: ToolCallFunction {
            index: call.index,
            name: call.name.clone(),
            arguments: match &call.arguments {
                CallArguments::Object { value } => value.clone(),
                CallArguments::Unreadable { .. } => Map::new(),
            },
        },
    }
}
