//! mend, the blocking shell around mend-core: a driver loop that feeds the world into the
//! session and carries out its actions, the tools, the sandboxed test runner, records and
//! replay, and the client of model servers (Ollama's own API, OpenAI-compatible chat
//! completions, Anthropic's Messages). `main.rs` parses the command line and hands each command
//! to its file under `commands/`.
// `pub` means used outside the crate (by `main.rs`, `tests/`, `benches/`); everything else is
// `pub(crate)`, so what the library offers reads from this file.
#![deny(unreachable_pub)]
// Every public item says what it is for; a warning here, an error under `make lint`'s
// `-D warnings`.
#![warn(missing_docs)]

pub(crate) mod access;
pub mod atomic;
pub mod attempt;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod error;
pub(crate) mod eval;
pub mod exec;
pub mod export;
pub(crate) mod hooks;
pub mod interrupt;
pub mod mcp;
pub(crate) mod mend_folder;
pub mod oci;
pub mod page;
pub(crate) mod patch;
pub mod pipe;
pub mod provider;
#[cfg(test)]
mod readme_defaults;
pub mod record;
pub(crate) mod replay;
pub mod setup;
pub mod task;
pub mod telemetry;
#[cfg(test)]
pub(crate) mod test_support;
pub mod tools;
pub(crate) mod truncate;
pub mod verdict;
pub mod workspace;
