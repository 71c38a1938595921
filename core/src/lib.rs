// The crate's documentation is its README: the contract page an embedder reads first.
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
// `pub` means public API: an item inside a private module that is not re-exported above is
// `pub(crate)`, so `missing_docs` covers everything a user can reach.
#![deny(unreachable_pub)]
// No socket, file, process, thread, environment or clock: the compiler, not a convention, keeps
// the core pure. Only strings, vectors, maps and `Arc` from `alloc`.
#![no_std]

extern crate alloc;
// Unit tests run under the standard test harness.
#[cfg(test)]
extern crate std;

mod prelude;

mod action;
mod assemble;
mod config;
mod context;
mod event;
mod follow_up;
mod input;
mod instructions;
mod protocol;
mod rejection;
mod repeat;
mod schema;
mod session;
mod stop;
mod text_calls;
mod think;
mod validate;
mod window;
mod wire;

pub use action::Action;
pub use config::{Config, ConfigError, DEFAULT_KEEP_ALIVE_SECONDS, DEFAULT_MAX_TURNS};
pub use context::{todo_tool, ContextConfig, TODO_TOOL};
pub use event::{Event, ToolStatus};
pub use follow_up::FollowUpError;
pub use input::{CallId, Input, InputKind, Millis, StreamLine, ToolOutcome, TransportError};
pub use instructions::pinned_messages;
pub use protocol::{ApiKeyHeader, HttpRequest, Protocol, TurnMetrics};
pub use rejection::Rejection;
pub use repeat::RepeatLimits;
pub use schema::{
    FunctionSpec, JsonType, ObjectKind, ObjectSchema, PropertySchema, ToolKind, ToolSpec,
};
pub use session::Session;
pub use stop::{Stop, StopCause, StopReason};
pub use text_calls::{family_of_parser, family_of_template, TextCall, TextCallFormat};
pub use think::Think;
pub use window::{
    estimate_prompt_tokens, TrimReason, Window, WindowError, DEFAULT_TRIM_PERCENT,
    MIN_WINDOW_TOKENS,
};
pub use wire::{ChatRequest, Message, ModelOptions, Role, SchemaField, ToolCall, ToolCallFunction};

/// Reading a model server's output outside a session: the lines of a recorded stream back into
/// chunks and tool calls ([`Protocol::decoder`]), an HTTP error body into the server's message. The
/// session decodes with this same code, so a viewer of a record shows what the session saw.
pub mod decode {
    pub use crate::input::server_message;
    pub use crate::protocol::{
        CallArguments, DecodeError, Decoder, Deltas, Done, LineDecoded, ModelCall,
    };
}

/// What only mend's own fuzz targets, benches and tests reach into. **Not a stable API**: any
/// item here may change or go away in any release.
#[doc(hidden)]
pub mod internal {
    pub use crate::context::{hint, Counts, TodoItem, ToolStats};
    pub use crate::follow_up::NOT_RUN;
    pub use crate::validate::validate_call;
}
