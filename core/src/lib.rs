//! # mend-core
//!
//! The decision-making half of mend, a coding-agent harness: a pure state machine that takes one
//! input at a time (a streamed line, the end of a stream, a transport failure, a tool result, a
//! cancel, the deadline) and returns the actions to perform (send a request, emit an event,
//! dispatch a tool, stop). It owns no socket, file, process, thread or clock, so it runs the same
//! under a blocking shell, an async runtime, a GUI, a fuzzer or a property test.
//!
//! Layers, each in its own module:
//! - [`codec`]: one raw stream line → normalized deltas (Ollama's NDJSON today).
//! - [`assemble`]: the deltas of a turn → one assistant message.
//! - [`validate`]: a model call against the offered [`schema`]s → runnable or an error result.
//! - [`session`]: the transition function and its state.
//! - [`wire`]: the request body; [`event`], [`action`], [`input`], [`stop`]: the boundary types.
//!
//! ## A whole session, no I/O
//!
//! ```
//! use mend_core::{Action, Config, Input, JsonType, Millis, Session, StopReason, ToolOutcome, ToolSpec};
//! use serde_json::json;
//!
//! let tools = vec![ToolSpec::function(
//!     "read_file", "Read a file", &[("path", JsonType::String, "which file")], &["path"],
//! )];
//! let config = Config::new("gemma4:e2b", "You repair code.", "Fix the bug.", tools);
//! let (mut session, first) = Session::new(config)?;
//! assert!(matches!(first.last(), Some(Action::SendRequest { turn: 1, .. })));
//!
//! // Turn 1 streams a tool call, which is dispatched only once `done` arrives.
//! let turn_one = [
//!     r#"{"message":{"role":"assistant","content":"Reading."},"done":false}"#,
//!     r#"{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"name":"read_file","arguments":{"path":"a.py"}}}]},"done":false}"#,
//!     r#"{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#,
//! ];
//! let mut actions = Vec::new();
//! for line in turn_one {
//!     actions = session.handle(Millis(0), Input::StreamLine { line: line.as_bytes().to_vec() });
//! }
//! let Some(Action::DispatchTool { call_id, name, .. }) = actions.last() else { panic!() };
//! assert_eq!(name, "read_file");
//!
//! // The tool's result goes back; the next request carries it as a tool message.
//! let outcome = ToolOutcome::Success { value: json!({"path": "a.py", "text": "x = 1\n"}) };
//! let actions = session.handle(Millis(5), Input::ToolFinished { call_id: call_id.clone(), outcome });
//! let Some(Action::SendRequest { turn: 2, body }) = actions.last() else { panic!() };
//! assert_eq!(body.messages.last().map(|m| m.content.as_str()), Some(r#"{"path":"a.py","text":"x = 1\n"}"#));
//!
//! // Turn 2 answers in text: the session stops, and nothing happens after the stop.
//! let last = r#"{"message":{"role":"assistant","content":"Done."},"done":true,"done_reason":"stop"}"#;
//! let actions = session.handle(Millis(9), Input::StreamLine { line: last.as_bytes().to_vec() });
//! assert!(matches!(actions.last(), Some(Action::Stop(stop)) if stop.reason == StopReason::AssistantFinished));
//! assert!(session.handle(Millis(10), Input::Cancel).is_empty());
//! # Ok::<(), mend_core::ConfigError>(())
//! ```

pub mod action;
pub mod assemble;
pub mod codec;
pub mod config;
pub mod context;
pub mod event;
pub mod follow_up;
pub mod input;
pub mod repeat;
pub mod schema;
pub mod session;
pub mod stop;
pub mod validate;
pub mod wire;

pub use action::Action;
pub use codec::{Codec, TurnMetrics};
pub use config::{Config, ConfigError, DEFAULT_MAX_TURNS};
pub use context::ContextConfig;
pub use event::{Event, ToolStatus};
pub use follow_up::FollowUpError;
pub use input::{CallId, Input, InputKind, Millis, ToolOutcome, TransportError};
pub use repeat::RepeatLimits;
pub use schema::{JsonType, ToolSpec};
pub use session::{Phase, Session};
pub use stop::{Stop, StopCause, StopReason};
pub use wire::{ChatRequest, Message, ModelOptions, Role, ToolCall};
