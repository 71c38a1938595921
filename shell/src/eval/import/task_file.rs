//! The task file an imported instance becomes: its problem statement as the prompt, its test
//! patch held out, its test lists given, its command, and either the checkout it sits in or the
//! image that holds the repository.

use toml::Value;

use crate::task::copy::DEFAULT_EXCLUDE;
use crate::task::TASK_FILE_NAME;

use super::command::Chosen;
use super::row::Instance;
use super::set_up::Planned;

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
    /// What the harness's set-up lines become, for a row the harness's table runs.
    pub set_up: Option<&'a Planned>,
}

pub(super) fn render(written: &Written) -> String {
    let Written {
        instance,
        chosen,
        origin,
        image,
        test_files,
        set_up,
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
    let notes = set_up_notes(chosen, *set_up);
    text.insert_str(text.find("\n\n[task]").unwrap_or(0), &notes);
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
    text.push_str(&environment(*image, *set_up));
    text
}

/// The header's lines on set-up: the eval_script's lines (listed, not run), or what became of
/// the harness's set-up lines.
fn set_up_notes(chosen: &Chosen, set_up: Option<&Planned>) -> String {
    let listed = |lines: &mut dyn Iterator<Item = &String>| -> String {
        lines.map(|line| format!("\n#   {line}")).collect()
    };
    let mut notes = String::new();
    if !chosen.setup.is_empty() && set_up.is_none() {
        notes.push_str(&format!(
            "\n# The eval_script sets the checkout up first with (mend does not run these; the image must hold their result):{}",
            listed(&mut chosen.setup.iter())
        ));
    }
    let Some(set_up) = set_up else {
        return notes;
    };
    if !set_up.steps.is_empty() {
        notes.push_str("\n# Set-up: the harness's lines that edit the checkout, and its install as the build it does in the checkout (see [environment] setup).");
    }
    let mut reasons: Vec<&str> = Vec::new();
    for (_, why) in &set_up.not_run {
        if !reasons.contains(why) {
            reasons.push(why);
        }
    }
    for why in reasons {
        notes.push_str(&format!(
            "\n# The harness's lines mend does not run ({why}):{}",
            listed(
                &mut set_up
                    .not_run
                    .iter()
                    .filter(|(_, reason)| *reason == why)
                    .map(|(line, _)| line)
            )
        ));
    }
    notes
}

/// `[environment]`: the image and its workdir, or the set-up steps of a checkout.
fn environment(image: Option<&str>, set_up: Option<&Planned>) -> String {
    if let Some(image) = image {
        return format!(
            "\n[environment]\nimage = {}\nworkdir = {}\n",
            string(image),
            string(IMAGE_WORKDIR)
        );
    }
    match set_up {
        Some(set_up) if !set_up.steps.is_empty() => {
            format!("\n[environment]\nsetup = {}\n", list(&set_up.steps))
        }
        _ => String::new(),
    }
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
