//! `[hooks]` of a task file, in Claude Code's shape: per event a list of matchers, each with the
//! commands to run for the tools it matches. A Claude Code `settings.json` `hooks` object written
//! as TOML reads the same:
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "shell|write_file"
//! hooks = [{ type = "command", command = "python3 .mend/hooks/guard.py", timeout = 10 }]
//! ```

use std::time::Duration;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

/// How long a hook may take when its entry names no `timeout` (Claude Code's default).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// `[hooks]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HooksTable {
    #[serde(default, rename = "PreToolUse")]
    pub pre_tool_use: Vec<MatcherTable>,
    #[serde(default, rename = "PostToolUse")]
    pub post_tool_use: Vec<MatcherTable>,
    #[serde(default, rename = "Stop")]
    pub stop: Vec<MatcherTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatcherTable {
    #[serde(default)]
    pub matcher: Option<Spanned<String>>,
    pub hooks: Vec<CommandTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandTable {
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    pub command: Spanned<String>,
    /// Seconds.
    pub timeout: Option<Spanned<u64>>,
    /// mend's own: an answer that is empty or not JSON blocks instead of letting the call through.
    #[serde(default)]
    pub require_decision: bool,
}

/// The hooks of a task, checked: each event's commands with the tools they apply to.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    pub pre_tool_use: Vec<Matched>,
    pub post_tool_use: Vec<Matched>,
    pub stop: Vec<Matched>,
}

/// One matcher and its commands.
#[derive(Debug, Clone)]
pub struct Matched {
    pub matcher: Matcher,
    pub commands: Vec<HookCommand>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// Run by `/bin/sh -c`, as Claude Code runs it.
    pub command: String,
    pub timeout: Duration,
    pub require_decision: bool,
    /// Written for Claude Code (read from its settings, or matching by its tool names): told of
    /// a call by Claude Code's tool name.
    pub claude_code: bool,
}

/// Which tool names a matcher takes, read as Claude Code reads it: empty or `*` takes every
/// tool; letters, digits, `_` and `|` name tools exactly; anything else is a regular expression
/// searched for in the name.
#[derive(Debug, Clone)]
pub enum Matcher {
    Every,
    Names(Vec<String>),
    Pattern(Regex),
}

/// A matcher that is neither a tool's name, a `|` list of them, nor a regular expression.
#[derive(Debug, Clone, PartialEq)]
pub struct BadMatcher {
    pub text: String,
    pub source: regex::Error,
}

impl std::fmt::Display for BadMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "matcher `{}` is not a regular expression: {}",
            self.text, self.source
        )
    }
}

impl std::error::Error for BadMatcher {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl Matcher {
    pub fn parse(text: &str) -> Result<Matcher, BadMatcher> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '|';
        if text.is_empty() || text == "*" {
            Ok(Matcher::Every)
        } else if text.chars().all(plain) {
            Ok(Matcher::Names(
                text.split('|').map(|name| name.trim().to_owned()).collect(),
            ))
        } else {
            Regex::new(text)
                .map(Matcher::Pattern)
                .map_err(|source| BadMatcher {
                    text: text.to_owned(),
                    source,
                })
        }
    }

    /// Whether the matcher takes mend's `tool`, by its own name or a Claude Code name for it
    /// (`Edit|Write` takes `replace_text` and `write_file`).
    pub fn takes(&self, tool: &str) -> bool {
        std::iter::once(tool)
            .chain(super::claude_code_names::names_of(tool).iter().copied())
            .any(|name| self.takes_name(name))
    }

    fn takes_name(&self, name: &str) -> bool {
        match self {
            Matcher::Every => true,
            Matcher::Names(names) => names.iter().any(|named| named == name),
            Matcher::Pattern(pattern) => pattern.is_match(name),
        }
    }

    /// Whether it names a tool by Claude Code's name: a hook written for Claude Code.
    pub fn names_claude_code_tools(&self) -> bool {
        !matches!(self, Matcher::Every)
            && super::claude_code_names::CLAUDE_CODE_TOOLS
                .iter()
                .flat_map(|(_, names)| names.iter())
                .any(|name| self.takes_name(name))
    }

    /// Whether no tool mend has, by any of its names, is one it takes.
    pub fn never_matches(&self) -> bool {
        !super::claude_code_names::every_tool_name()
            .into_iter()
            .any(|name| self.takes_name(name))
    }

    /// The matcher as written.
    pub fn text(&self) -> String {
        match self {
            Matcher::Every => "*".to_owned(),
            Matcher::Names(names) => names.join("|"),
            Matcher::Pattern(pattern) => pattern.as_str().to_owned(),
        }
    }
}

impl Hooks {
    /// The commands of `matchers` that apply to `tool`, in the order written.
    pub fn for_tool<'a>(matchers: &'a [Matched], tool: &str) -> Vec<&'a HookCommand> {
        matchers
            .iter()
            .filter(|matched| matched.matcher.takes(tool))
            .flat_map(|matched| &matched.commands)
            .collect()
    }

    /// Whether a hook's command names the file at `relative` (a word of the command, or one
    /// under `$CLAUDE_PROJECT_DIR/`): the tools must not rewrite what decides about them.
    pub fn names(&self, relative: &str) -> bool {
        [&self.pre_tool_use, &self.post_tool_use, &self.stop]
            .into_iter()
            .flatten()
            .flat_map(|matched| &matched.commands)
            .flat_map(|command| command.command.split_whitespace())
            .map(|word| word.trim_matches(|c| c == '"' || c == '\''))
            .map(|word| {
                ["$CLAUDE_PROJECT_DIR/", "${CLAUDE_PROJECT_DIR}/", "./"]
                    .iter()
                    .find_map(|prefix| word.strip_prefix(prefix))
                    .unwrap_or(word)
            })
            .any(|word| super::paths::normalize(word).is_ok_and(|word| word == relative))
    }

    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty() && self.post_tool_use.is_empty() && self.stop.is_empty()
    }

    /// How many commands there are, over every event.
    pub fn count(&self) -> usize {
        [&self.pre_tool_use, &self.post_tool_use, &self.stop]
            .into_iter()
            .flatten()
            .map(|matched| matched.commands.len())
            .sum()
    }

    /// These hooks, then `more`'s, event by event: all of them run, as Claude Code runs the
    /// hooks of every settings file.
    pub fn extend(&mut self, more: Hooks) {
        self.pre_tool_use.extend(more.pre_tool_use);
        self.post_tool_use.extend(more.post_tool_use);
        self.stop.extend(more.stop);
    }

    /// A warning for each tool matcher that takes none of mend's tools by any name (`WebFetch`,
    /// `mcp__.*`): its hooks never run. Stop hooks have no tool to match.
    pub fn never_matching(&self) -> Vec<String> {
        [("PreToolUse", &self.pre_tool_use), ("PostToolUse", &self.post_tool_use)]
            .into_iter()
            .flat_map(|(event, matchers)| matchers.iter().map(move |matched| (event, matched)))
            .filter(|(_, matched)| matched.matcher.never_matches())
            .map(|(event, matched)| {
                format!(
                    "hooks.{event}: matcher `{}` takes none of mend's tools ({}), so its hooks never run",
                    matched.matcher.text(),
                    super::claude_code_names::every_tool_name().join(", ")
                )
            })
            .collect()
    }
}

/// A problem in `[hooks]`, with where it is written (a byte span of the task file).
pub(crate) type Problem = (Option<std::ops::Range<usize>>, String);

/// Checks `[hooks]`: known hook types, matchers that compile, positive timeouts.
pub(crate) fn check(table: HooksTable) -> Result<Hooks, Problem> {
    Ok(Hooks {
        pre_tool_use: matchers("PreToolUse", table.pre_tool_use)?,
        post_tool_use: matchers("PostToolUse", table.post_tool_use)?,
        stop: matchers("Stop", table.stop)?,
    })
}

fn matchers(event: &str, tables: Vec<MatcherTable>) -> Result<Vec<Matched>, Problem> {
    tables
        .into_iter()
        .map(|table| {
            let matcher = match &table.matcher {
                None => Matcher::Every,
                Some(text) => Matcher::parse(text.get_ref())
                    .map_err(|message| (Some(text.span()), format!("hooks.{event}: {message}")))?,
            };
            let commands = table
                .hooks
                .into_iter()
                .map(|command| hook_command(event, command, matcher.names_claude_code_tools()))
                .collect::<Result<_, _>>()?;
            Ok(Matched { matcher, commands })
        })
        .collect()
}

fn hook_command(
    event: &str,
    table: CommandTable,
    claude_code: bool,
) -> Result<HookCommand, Problem> {
    if table.kind.get_ref() != "command" {
        return Err((
            Some(table.kind.span()),
            format!(
                "hooks.{event}: type `{}` is not one mend runs; only `command` hooks are",
                table.kind.get_ref()
            ),
        ));
    }
    if table.command.get_ref().trim().is_empty() {
        return Err((
            Some(table.command.span()),
            format!("hooks.{event}: command is empty"),
        ));
    }
    let timeout = match table.timeout {
        None => DEFAULT_TIMEOUT,
        Some(seconds) if *seconds.get_ref() > 0 => Duration::from_secs(*seconds.get_ref()),
        Some(seconds) => {
            return Err((
                Some(seconds.span()),
                format!("hooks.{event}: timeout must be at least 1 second"),
            ))
        }
    };
    Ok(HookCommand {
        command: table.command.into_inner(),
        timeout,
        require_decision: table.require_decision,
        claude_code,
    })
}

#[cfg(test)]
mod tests {
    use super::Matcher;

    #[test]
    fn matchers_read_as_claude_code_reads_them() {
        let tools = ["shell", "write_file", "read_file", "grep"];
        let taken = |text: &str| -> Vec<&str> {
            let matcher = Matcher::parse(text).unwrap();
            tools
                .iter()
                .copied()
                .filter(|tool| matcher.takes(tool))
                .collect()
        };
        assert_eq!(
            (
                taken(""),
                taken("*"),
                taken("shell"),
                taken("write_file|grep"),
                taken("file"),
                taken(".*_file"),
                taken("^read"),
            ),
            (
                tools.to_vec(),
                tools.to_vec(),
                vec!["shell"],
                vec!["write_file", "grep"],
                // A plain word names a tool exactly: `file` is no tool's name.
                vec![],
                vec!["write_file", "read_file"],
                vec!["read_file"],
            )
        );
        let unclosed = String::from("(unclosed");
        let why = regex::Regex::new(&unclosed).unwrap_err();
        assert_eq!(
            Matcher::parse(&unclosed)
                .map(|_| ())
                .map_err(|err| err.to_string()),
            Err(format!(
                "matcher `(unclosed` is not a regular expression: {why}"
            ))
        );
    }
}
