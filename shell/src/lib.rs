//! mend, the blocking shell around mend-core: a driver loop that feeds the world into the
//! session and carries out its actions, the tools, the sandboxed test runner, records and
//! replay, and the Ollama client. `main.rs` is the command line on top of it.

pub mod atomic;
pub mod attempt;
pub mod changes;
pub mod chat;
pub mod chat_record;
pub mod cli;
pub mod clock;
pub mod conformance;
pub mod driver;
pub mod error;
pub mod init;
pub mod interpreter;
pub mod interrupt;
pub mod junit;
pub mod mend_folder;
pub mod ollama;
pub mod page;
pub mod patch;
pub mod process;
pub mod record;
pub mod render;
pub mod replay;
pub mod replay_chat;
pub mod run;
pub mod runner;
pub mod sandbox;
pub mod show;
pub mod spill;
pub mod summary;
pub mod survey;
pub mod task;
pub mod toolchain;
pub mod tools;
pub mod truncate;
pub mod verify;
pub mod workspace;
