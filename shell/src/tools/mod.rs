//! The tools the model may call, one file each. A tool's own failure (bad path, ambiguous edit,
//! failing tests) is a [`ToolOutcome::Failure`] that goes back to the model; only a failure of
//! the harness itself (Python cannot start) is an `Err` that ends the run.

mod read_file;
mod replace_text;
mod run_tests;

use camino::Utf8Path;
use mend_core::ToolOutcome;
use serde_json::{Map, Value};

use crate::error::MendError;

/// What the tools may use: the workspace copy and the interpreter that runs its tests.
pub struct ToolContext<'a> {
    pub root: &'a Utf8Path,
    pub python: &'a Utf8Path,
}

/// Runs one call the core has already validated against the tool schemas.
pub fn execute(
    context: &ToolContext,
    name: &str,
    arguments: &Map<String, Value>,
) -> Result<ToolOutcome, MendError> {
    match name {
        "read_file" => Ok(read_file::read_file(context.root, arguments)),
        "replace_text" => Ok(replace_text::replace_text(context.root, arguments)),
        "run_tests" => run_tests::run_tests(context),
        other => Ok(failure(format!("unknown tool `{other}`"))),
    }
}

fn failure(message: String) -> ToolOutcome {
    ToolOutcome::Failure { message }
}

/// A string argument; validation has checked the type, this only guards the invariant.
fn text_argument<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolOutcome> {
    arguments
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| failure(format!("the argument `{key}` must be a string")))
}
