//! The agent loop end to end, as a user runs it: `mend run`, `replay`, `resume` and `chat`
//! against the loopback model server (each protocol, every way a server fails, the context
//! window's edge, calls written as text), what a run records and where, its exit codes, Ctrl-C
//! and the deadline, and `mend conformance` on captured streams.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../common/mod.rs"]
mod common;

mod atif;
mod chat;
mod conformance;
mod context_window;
mod exit_codes;
mod future_pytest;
mod hooks;
mod interrupt;
mod live;
mod otel;
mod providers;
mod record_names;
mod records;
mod repair_shown;
mod replay;
mod resume;
mod resume_refused;
mod signed_thinking;
mod stop_hooks;
mod support;
mod text_call_endings;
mod text_calls;
mod torn_record;
