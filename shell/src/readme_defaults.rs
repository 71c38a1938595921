//! The README states every default once, in its "Defaults" table; this holds each row to the
//! value the code uses, so none goes stale.

use std::collections::BTreeMap;

use crate::task::defaults;
use crate::task::ToolName;

const README: &str = include_str!("../../README.md");

/// The rows of the README's table under `## Defaults`: setting → default, as written.
fn stated() -> BTreeMap<String, String> {
    let section = README
        .split("\n## Defaults\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or("");
    section
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| setting"))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            match cells.as_slice() {
                [setting, value] => Some(((*setting).to_owned(), (*value).to_owned())),
                _ => None,
            }
        })
        .collect()
}

fn seconds(duration: std::time::Duration) -> u64 {
    duration.as_secs()
}

/// What the code uses, written as the README writes it.
fn in_code() -> BTreeMap<String, String> {
    let options = mend_core::ModelOptions::default();
    let tools: Vec<String> = defaults::tools()
        .iter()
        .map(|tool| format!("`{}`", ToolName::name(*tool)))
        .collect();
    [
        ("model", format!("`{}`", crate::task::DEFAULT_MODEL)),
        (
            "`--max-turns` / `model.max_turns`",
            format!(
                "{} (`mend init` writes {})",
                mend_core::DEFAULT_MAX_TURNS,
                crate::commands::init::template::INIT_MAX_TURNS
            ),
        ),
        (
            "`num_ctx` with Ollama",
            format!(
                "the model's own length, up to {}",
                crate::provider::window::DEFAULT_NUM_CTX
            ),
        ),
        (
            "context window, OpenAI-compatible server",
            format!(
                "the one it states, else {}",
                crate::provider::window::OPENAI_DEFAULT_WINDOW
            ),
        ),
        (
            "context window, Anthropic",
            crate::provider::window::ANTHROPIC_DEFAULT_WINDOW.to_string(),
        ),
        (
            "sampling",
            format!(
                "`temperature` {}, `seed` {}, `num_predict` {}",
                options.temperature, options.seed, options.num_predict
            ),
        ),
        (
            "`--read-timeout`",
            format!(
                "{} s for each piece of the answer",
                crate::cli::args::READ_TIMEOUT_SECONDS
            ),
        ),
        (
            "`test.timeout_seconds`",
            format!(
                "{} s (`mend init` writes one for the runner it finds)",
                seconds(defaults::TEST_TIMEOUT)
            ),
        ),
        (
            "`shell.timeout_seconds`",
            format!("{} s", seconds(defaults::SHELL_TIMEOUT)),
        ),
        (
            "a hook's `timeout`",
            format!("{} s", seconds(crate::task::hooks::DEFAULT_TIMEOUT)),
        ),
        ("`tools.enabled`", tools.join(", ")),
        (
            "`test.report`",
            "read from the command: `cargo test` → `libtest`, pytest → `pytest`, django's `runtests.py` → `django`, sympy's `bin/test` → `sympy`, `go test`, `npm test` and other runners mend has no reader for → the exit code (with a warning), anything else (`make test`, `tox`) → `pytest`, asked for its report through the environment".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(setting, value)| (setting.to_owned(), value))
    .collect()
}

#[test]
fn every_default_the_readme_states_is_the_codes() {
    assert_eq!(stated(), in_code());
}
