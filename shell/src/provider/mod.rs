//! The model server from the shell's side, for every protocol the core speaks (Ollama's own
//! API, OpenAI-compatible chat completions, Anthropic's Messages): where the server is
//! (`host`), how to reach it and check it before any work (`connect`), the blocking client
//! (`client`), the line reader that feeds streamed lines to the core (`lines`), and what the
//! loop asks of any source of model turns (`source`).

pub mod client;
pub(crate) mod connect;
pub mod host;
pub(crate) mod lines;
pub(crate) mod model_facts;
pub mod source;
pub(crate) mod stated_length;
pub(crate) mod window;
