//! Hooks written for Claude Code, read as Claude Code reads them: its tool names stand for
//! mend's tools in matchers, and its settings files (`.claude/settings.json`, the project's
//! `.claude/settings.local.json`, the user's `~/.claude/settings.json`) add their hooks to the
//! task file's, all of which run, as Claude Code merges its sources.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::hooks::{BadMatcher, HookCommand, Hooks, Matched, Matcher, DEFAULT_TIMEOUT};
use crate::error::MendError;

pub use super::claude_code_names::{every_tool_name, names_of, CLAUDE_CODE_TOOLS};

/// The fields of mend's `tool` that Claude Code names otherwise: (mend's, Claude Code's).
fn renamed(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        "write_file" => &[("text", "content")],
        "replace_text" => &[("old", "old_string"), ("new", "new_string")],
        _ => &[],
    }
}

/// `arguments` of mend's `tool` with Claude Code's field names beside mend's own: `file_path`
/// (absolute, under `cwd`, as Claude Code gives it), `content`, `old_string`/`new_string`.
pub fn with_claude_fields(
    tool: &str,
    arguments: &Map<String, Value>,
    cwd: &str,
) -> Map<String, Value> {
    let mut input = arguments.clone();
    for (mend, claude) in renamed(tool) {
        if let Some(value) = arguments.get(*mend) {
            input.entry(*claude).or_insert_with(|| value.clone());
        }
    }
    if matches!(tool, "write_file" | "replace_text" | "read_file") {
        if let Some(Value::String(path)) = arguments.get("path") {
            let absolute = Utf8Path::new(cwd).join(path);
            input
                .entry("file_path")
                .or_insert_with(|| Value::String(absolute.into_string()));
        }
    }
    input
}

/// A hook's `updatedInput` in mend's field names: a Claude Code hook rewrites `content` or
/// `file_path`, which the tool reads as `text` and `path`. Claude Code's names are taken out.
pub fn to_mend_fields(tool: &str, updated: &Map<String, Value>, cwd: &str) -> Map<String, Value> {
    let mut input = updated.clone();
    for (mend, claude) in renamed(tool) {
        if let Some(value) = input.remove(*claude) {
            input.insert((*mend).to_owned(), value);
        }
    }
    if let Some(Value::String(path)) = input.remove("file_path") {
        let relative = Utf8Path::new(&path)
            .strip_prefix(cwd)
            .map_or(path.clone(), |inside| inside.to_string());
        input.insert("path".to_owned(), Value::String(relative));
    }
    input
}

/// A Claude Code settings file as far as hooks go; everything else in it is Claude Code's.
#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    hooks: Map<String, Value>,
}

#[derive(Deserialize)]
struct Group {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hooks: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    timeout: Option<f64>,
}

/// What the settings files added: the hooks, which files they came from, and what of them
/// mend does not run.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The hooks read from the settings files, in mend's form.
    pub hooks: Hooks,
    /// Each file read, with how many hooks it gave (`.claude/settings.json (2 hooks)`).
    pub sources: Vec<String>,
    /// What of the settings mend does not run, said before any run.
    pub warnings: Vec<String>,
}

/// The settings files of `repo` and of the user whose home is `home`, in Claude Code's order.
pub fn settings_files(repo: &Utf8Path, home: Option<&Utf8Path>) -> Vec<(String, Utf8PathBuf)> {
    let mut files = vec![
        (
            ".claude/settings.json".to_owned(),
            repo.join(".claude/settings.json"),
        ),
        (
            ".claude/settings.local.json".to_owned(),
            repo.join(".claude/settings.local.json"),
        ),
    ];
    if let Some(home) = home {
        files.push((
            "~/.claude/settings.json".to_owned(),
            home.join(".claude/settings.json"),
        ));
    }
    files
}

/// Why a Claude Code settings file's hooks cannot be read; `shown` names the file as the user
/// knows it. Each is the file's to fix, so each refuses the run as a usage error (exit 2).
#[derive(Debug)]
pub enum SettingsError {
    /// The file is not JSON of the settings' shape.
    NotSettings {
        /// The file, as the user knows it.
        shown: String,
        /// What serde found wrong.
        source: serde_json::Error,
    },
    /// `hooks.EVENT` is not a list of matchers.
    NotMatchers {
        /// The file, as the user knows it.
        shown: String,
        /// The hook event whose list it is.
        event: String,
        /// What serde found wrong.
        source: serde_json::Error,
    },
    /// A matcher that is no regular expression.
    Matcher {
        /// The file, as the user knows it.
        shown: String,
        /// The hook event the matcher is under.
        event: String,
        /// Why the matcher is no regular expression.
        source: BadMatcher,
    },
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::NotSettings { shown, source } => write!(
                f,
                "{shown} is not a Claude Code settings file mend can read: {source}"
            ),
            SettingsError::NotMatchers {
                shown,
                event,
                source,
            } => write!(
                f,
                "{shown}: hooks.{event} is not a list of matchers: {source}"
            ),
            SettingsError::Matcher {
                shown,
                event,
                source,
            } => write!(f, "{shown}: hooks.{event}: {source}"),
        }
    }
}

impl std::error::Error for SettingsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SettingsError::NotSettings { source, .. }
            | SettingsError::NotMatchers { source, .. } => Some(source),
            SettingsError::Matcher { source, .. } => Some(source),
        }
    }
}

impl From<SettingsError> for MendError {
    fn from(error: SettingsError) -> MendError {
        MendError::usage(error.to_string())
    }
}

/// Reads the hooks of every settings file there is; a file that is not Claude Code's JSON is a
/// warning, never a run that goes on without the hooks the user meant without saying so.
pub fn load(files: &[(String, Utf8PathBuf)]) -> Result<Loaded, SettingsError> {
    let mut loaded = Loaded::default();
    for (shown, path) in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let settings: Settings =
            serde_json::from_str(&text).map_err(|source| SettingsError::NotSettings {
                shown: shown.clone(),
                source,
            })?;
        let mut count = 0;
        for (event, groups) in settings.hooks {
            let target = match event.as_str() {
                "PreToolUse" => &mut loaded.hooks.pre_tool_use,
                "PostToolUse" => &mut loaded.hooks.post_tool_use,
                "Stop" => &mut loaded.hooks.stop,
                other => {
                    loaded.warnings.push(format!(
                        "{shown}: mend runs PreToolUse, PostToolUse and Stop hooks; its {other} hooks never run"
                    ));
                    continue;
                }
            };
            let groups: Vec<Group> =
                serde_json::from_value(groups).map_err(|source| SettingsError::NotMatchers {
                    shown: shown.clone(),
                    event: event.clone(),
                    source,
                })?;
            for group in groups {
                let matched = matched(shown, &event, group, &mut loaded.warnings)?;
                count += matched.commands.len();
                target.push(matched);
            }
        }
        loaded.sources.push(format!("{shown} ({count} hook(s))"));
    }
    Ok(loaded)
}

fn matched(
    shown: &str,
    event: &str,
    group: Group,
    warnings: &mut Vec<String>,
) -> Result<Matched, SettingsError> {
    let matcher = Matcher::parse(group.matcher.as_deref().unwrap_or("")).map_err(|source| {
        SettingsError::Matcher {
            shown: shown.to_owned(),
            event: event.to_owned(),
            source,
        }
    })?;
    let mut commands = Vec::new();
    for entry in group.hooks {
        match (entry.kind.as_str(), entry.command) {
            ("command", Some(command)) if !command.trim().is_empty() => {
                let timeout = entry
                    .timeout
                    .filter(|seconds| *seconds >= 1.0)
                    .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64);
                commands.push(HookCommand {
                    command,
                    timeout,
                    require_decision: false,
                    claude_code: true,
                });
            }
            (kind, _) => warnings.push(format!(
                "{shown}: a hooks.{event} hook of type `{kind}` without a command is not one mend runs; only `command` hooks are"
            )),
        }
    }
    Ok(Matched { matcher, commands })
}
