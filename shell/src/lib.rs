//! mend, the blocking shell around mend-core: a driver loop that feeds the world into the
//! session and carries out its actions, the tools, the sandboxed test runner, records and
//! replay, and the Ollama client. `main.rs` is the command line on top of it.

pub mod access;
pub mod atomic;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod error;
pub mod eval;
pub mod interrupt;
pub mod mend_folder;
pub mod page;
pub mod provider;
pub mod record;
pub mod replay;
pub mod session;
pub mod task;
#[cfg(test)]
pub(crate) mod test_support;
pub mod tools;
pub mod truncate;
pub mod verdict;
pub mod workspace;
