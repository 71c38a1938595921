//! Ollama's native API from the shell's side: where the server is, the blocking client, and the
//! line reader that feeds streamed lines to the core.

pub mod client;
pub mod host;
pub mod lines;
pub mod window;
