//! `mend mcp`: mend's verification as an MCP server on stdio, for any agent to call. JSON-RPC 2.0,
//! one message per line: `initialize` (the protocol version agreed), `tools/list`, `tools/call`
//! with two tools — `verify` (the task's tests on a fresh copy, with a patch or the repository as
//! it is: what `mend verify` runs, by the same function) and `task` (what a task allows).
//!
//! Written by hand rather than with an MCP crate: the Rust SDK (`rmcp`) is built on tokio, and
//! the blocking shell needs three methods over a line-delimited pipe, which serde_json covers.

pub(crate) mod jsonrpc;
pub(crate) mod methods;
pub(crate) mod modern;
mod said;
pub(crate) mod tools;
mod withheld;

use std::io::{BufRead, Write};

use crate::error::{exit, MendError};

/// Serves requests from `input` until it ends, answering on `output`; mend's own messages go to
/// stderr, never to `output`, which carries the protocol alone.
pub fn serve(input: impl BufRead, mut output: impl Write) -> Result<u8, MendError> {
    let mut session = methods::Session::default();
    for line in input.lines() {
        let line = line.map_err(|err| MendError::harness(format!("cannot read stdin: {err}")))?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(reply) = session.handle(&line) {
            let mut text = serde_json::to_string(&reply).map_err(|err| {
                MendError::harness(format!("cannot write an answer as JSON: {err}"))
            })?;
            text.push('\n');
            output
                .write_all(text.as_bytes())
                .and_then(|()| output.flush())
                .map_err(|err| MendError::harness(format!("cannot write to stdout: {err}")))?;
        }
    }
    Ok(exit::PASS)
}

/// `mend mcp`: serves mend's tools over MCP on stdin and stdout.
pub fn command() -> Result<u8, MendError> {
    serve(std::io::stdin().lock(), std::io::stdout().lock())
}
