//! The commented `mend.toml` that `mend init` writes. Every field is explained where it stands,
//! so the file teaches its own format; docs/task-file.md has the rest.

use super::detect::{Guess, Kind};
use crate::provider::window;

/// The task file for `guess`; `interpreter` is a comment on which Python runs the tests (Python
/// projects only); `share` is `copy.share`, of which `found` are in the repository.
pub(super) fn render(
    guess: &Guess,
    interpreter: Option<&str>,
    share: &[String],
    found: &[String],
) -> String {
    let python_line = python_comment(interpreter);
    let found = found_comment(found);
    let report_comment = report_comment(guess.report);
    let plugins = plugins_line(&guess.kind);
    format!(
        "\
# mend's task file for this repository, written by `mend init` from what it found: {kind}.
# Check the guesses below, then `mend verify` runs the tests once on a throwaway copy.
# docs/task-file.md in mend's repository explains every field.

[task]
# What `mend run` asks the model to do. Leave it out to give it each time with
# `mend run --task \"...\"`; `mend chat` takes what you type instead.
# prompt = \"\"\"\\
# The CSV export drops its last row; find out why, fix it, and keep every test passing.\"\"\"

[paths]
# Globs relative to the repository: `*` stays in one folder, `**` crosses folders.
# What list_files, grep and read_file may see:
readable = {readable}
# What write_file and replace_text may change (never a file of test.files):
editable = {editable}

[test]
# An argument list, never a shell string; it runs in the copy, inside the sandbox.
{python_line}command = {command}
timeout_seconds = {timeout}
# The files the verdict rests on: no tool may write them, and they are hashed around every run.
files = {tests}
report = \"{report}\"   {report_comment}
{plugins}
[copy]
# Folders of installed dependencies ({found}). The throwaway copy links to them
# instead of copying them, and the sandbox shows them read-only; the tools never see them.
share = {share}

[tools]
enabled = [\"list_files\", \"grep\", \"read_file\", \"write_file\", \"replace_text\", \"run_tests\"]

[model]
# Each is overridden by its flag on `mend run` and `mend chat`.
name = \"{model}\"
protocol = \"ollama\"   # or \"openai\" / \"anthropic\" for compatible servers
max_turns = {max_turns}
# The context window of every request, in tokens (--num-ctx; at least 1024). Left out, mend
# takes the model's own length up to {num_ctx} with Ollama (what an 8 GB machine holds), the
# window an OpenAI-compatible server states (else {openai}), {anthropic} with Anthropic;
# `mend task` prints the one it will use. Raise it when your machine and model allow.
# num_ctx = {num_ctx}
# Read tool calls a model writes into its text (`<tool_call>...`, `<function=...>`, a fenced or
# bare call object) as calls; false leaves such text as the model's answer.
text_tool_calls = true
",
        kind = guess.kind.describe(),
        readable = list(&guess.readable),
        editable = list(&guess.editable),
        command = list(&guess.command),
        timeout = guess.timeout_seconds,
        tests = list(&guess.tests),
        report = guess.report,
        model = crate::task::DEFAULT_MODEL,
        max_turns = INIT_MAX_TURNS,
        num_ctx = window::DEFAULT_NUM_CTX,
        openai = window::OPENAI_DEFAULT_WINDOW,
        anthropic = window::ANTHROPIC_DEFAULT_WINDOW,
        share = list(share),
    )
}

/// The turns a written task file gives a run: more than the core's default, since a real
/// project takes a few turns of reading before the first edit.
pub(crate) const INIT_MAX_TURNS: u32 = 12;

/// Which Python runs the tests, as a comment (Python projects only).
fn python_comment(interpreter: Option<&str>) -> String {
    match interpreter {
        Some(interpreter) => format!(
            "# `python` is the interpreter mend is given: --python, else $MEND_PYTHON, else the\n\
             # repository's .venv or venv, else the active virtualenv, else python3.\n\
             # When this file was written that was {interpreter}.\n"
        ),
        None => String::new(),
    }
}

/// Which of the shared folders are in the repository.
fn found_comment(found: &[String]) -> String {
    match found {
        [] => "none of them is here yet".to_owned(),
        found => format!("found here: {}", found.join(", ")),
    }
}

fn report_comment(report: &str) -> &'static str {
    match report {
        "pytest" => "# counts and failing tests from pytest's own report",
        "libtest" => "# each test's outcome from libtest's lines (`test NAME ... ok`; with -q, the failures and totals)",
        _ => "# exit code 0 passes; anything else fails",
    }
}

/// Only pytest has plugins to load; for other runners the field would mean nothing.
fn plugins_line(kind: &Kind) -> &'static str {
    match kind {
        Kind::Pytest => {
            "# Let pytest load the plugins installed with it (pytest-mock, pytest-asyncio, ...).\n\
                         plugins = true\n"
        }
        _ => "",
    }
}

/// A TOML array of strings. JSON's string escapes are all valid TOML basic-string escapes.
fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|item| serde_json::Value::from(item.as_str()).to_string())
        .collect();
    format!("[{}]", quoted.join(", "))
}
