//! The task file an imported instance becomes: its problem statement as the prompt, its test
//! patch held out, its test lists given, its command, and either the checkout it sits in or the
//! image that holds the repository.

use toml::Value;

use crate::task::copy::DEFAULT_EXCLUDE;
use crate::task::TASK_FILE_NAME;

use super::command::Chosen;
use super::row::Instance;

/// Where, relative to the task file, the held-out test patch is kept: `.mend` is left out of
/// every copy, so no attempt sees it.
pub(super) const TEST_PATCH: &str = ".mend/test.patch";

/// The folder inside an image where SWE-bench's images hold the repository.
pub(super) const IMAGE_WORKDIR: &str = "/testbed";

/// What the copy leaves out: mend's default list, and the task file itself, whose test lists
/// name the held-out tests.
fn excluded() -> Vec<&'static str> {
    DEFAULT_EXCLUDE
        .into_iter()
        .chain([TASK_FILE_NAME])
        .collect()
}

/// The tools an attempt gets: those of SWE-bench's usual agents.
const TOOLS: [&str; 7] = [
    "list_files",
    "grep",
    "read_file",
    "write_file",
    "replace_text",
    "run_tests",
    "shell",
];

/// SWE-bench's harness gives the tests of one instance this long.
const TIMEOUT_SECONDS: u64 = 1800;

pub(super) struct Written<'a> {
    pub instance: &'a Instance,
    pub chosen: &'a Chosen,
    /// The file and line the row came from.
    pub origin: String,
    pub image: Option<&'a str>,
    /// The files the test patch touches: no tool may write them.
    pub test_files: &'a [String],
}

pub(super) fn render(written: &Written) -> String {
    let Written {
        instance,
        chosen,
        origin,
        image,
        test_files,
    } = written;
    let mut text = format!(
        "# Imported by `mend eval import` from {origin}: {}{}.\n# Test command: {}.\n\n[task]\nprompt = {}\n\n",
        instance.id,
        match (&instance.repo, &instance.base_commit) {
            (Some(repo), Some(base)) => format!(", {repo} at {base}"),
            (Some(repo), None) => format!(", {repo}"),
            _ => String::new(),
        },
        chosen.source,
        string(&instance.problem_statement),
    );
    if let Some(parser) = &instance.log_parser {
        text.insert_str(
            text.find("\n\n[task]").unwrap_or(0),
            &format!(
                "\n# The row's log parser: {parser}; its eval_type: {}.",
                instance.eval_type.as_deref().unwrap_or("pass_and_fail")
            ),
        );
    }
    if !chosen.setup.is_empty() {
        let lines: String = chosen
            .setup
            .iter()
            .map(|line| format!("\n#   {line}"))
            .collect();
        text.insert_str(
            text.find("\n\n[task]").unwrap_or(0),
            &format!("\n# The eval_script sets the checkout up first with (mend does not run these; the image must hold their result):{lines}"),
        );
    }
    text.push_str("[paths]\nreadable = [\"**\"]\neditable = [\"**\"]\n\n[test]\n");
    text.push_str(&format!("command = {}\n", list(&chosen.command)));
    text.push_str(&format!("timeout_seconds = {TIMEOUT_SECONDS}\n"));
    text.push_str(&format!("report = {}\n", string(&chosen.report)));
    if !chosen.env.is_empty() {
        text.push_str(&format!("env = {}\n", list(&chosen.env)));
    }
    if !test_files.is_empty() {
        text.push_str(&format!("files = {}\n", list(test_files)));
    }
    if instance.test_patch.is_some() {
        text.push_str(&format!("patch = {}\n", string(TEST_PATCH)));
    }
    if let Some(ids) = &instance.fail_to_pass {
        text.push_str(&format!("fail_to_pass = {}\n", list(ids)));
    }
    if let Some(ids) = &instance.pass_to_pass {
        text.push_str(&format!("pass_to_pass = {}\n", list(ids)));
    }
    text.push_str(&format!(
        "\n[tools]\nenabled = {}\n\n[copy]\n",
        list(&TOOLS)
    ));
    text.push_str(&format!(
        "exclude = {}\nhistory = \"base\"\n",
        list(&excluded())
    ));
    if let Some(image) = image {
        text.push_str(&format!(
            "\n[environment]\nimage = {}\nworkdir = {}\n",
            string(image),
            string(IMAGE_WORKDIR)
        ));
    }
    text
}

fn string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn list<S: AsRef<str>>(items: &[S]) -> String {
    Value::Array(
        items
            .iter()
            .map(|item| Value::String(item.as_ref().to_owned()))
            .collect(),
    )
    .to_string()
}
