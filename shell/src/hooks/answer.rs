//! A hook's answer read as Claude Code reads it — exit 0 lets the call through (with a JSON
//! decision on stdout when it prints one), exit 2 blocks with stderr as the reason — except that
//! every failure blocks: a hook that crashes, times out, cannot start, is killed, or (when it
//! must decide) prints nothing or garbage stops the call, with that reason, where Claude Code
//! lets it through.

use serde_json::{Map, Value};

use crate::record::hook_run::{Decision, HookEvent};
use crate::truncate::keep_tail;

/// How much of a hook's stderr or stdout a reason quotes.
const QUOTED_CHARS: usize = 600;

/// Exit codes of a shell whose command was not found (127) or could not run (126).
const NOT_FOUND: i32 = 127;
const NOT_EXECUTABLE: i32 = 126;
/// Claude Code's "block, and tell the model stderr".
const BLOCK: i32 = 2;

/// How a hook's process ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    Exited {
        code: i32,
        stdout: String,
        stderr: String,
    },
    Killed {
        signal: i32,
        stderr: String,
    },
    TimedOut {
        seconds: u64,
    },
    CannotStart(String),
}

/// What the hook decided, and what it asked to tell the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub decision: Decision,
    pub additional_context: Option<String>,
}

fn block(reason: String) -> Answer {
    Answer {
        decision: Decision::Block { reason },
        additional_context: None,
    }
}

fn quoted(text: &str) -> String {
    keep_tail(text.trim(), QUOTED_CHARS)
}

pub(crate) fn read(event: HookEvent, require_decision: bool, ending: Ending) -> Answer {
    match ending {
        Ending::CannotStart(why) => block(format!("the hook could not start: {why}")),
        Ending::TimedOut { seconds } => block(format!(
            "the hook gave no answer within its {seconds} s and was stopped"
        )),
        Ending::Killed { signal, stderr } => block(format!(
            "the hook was killed by signal {signal}{}",
            said(&stderr)
        )),
        Ending::Exited { code: BLOCK, stderr, .. } if stderr.trim().is_empty() => {
            block("the hook exited 2 (block) without a reason on stderr".to_owned())
        }
        Ending::Exited { code: BLOCK, stderr, .. } => block(quoted(&stderr)),
        Ending::Exited {
            code: code @ (NOT_FOUND | NOT_EXECUTABLE),
            stderr,
            ..
        } => block(format!(
            "the hook's program was not found or cannot run (exit {code}: a missing script or interpreter){}",
            said(&stderr)
        )),
        Ending::Exited { code: 0, stdout, .. } => read_stdout(event, require_decision, &stdout),
        Ending::Exited { code, stderr, .. } => {
            block(format!("the hook failed with exit {code}{}", said(&stderr)))
        }
    }
}

fn said(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", quoted(stderr))
    }
}

/// Exit 0: no output lets the call through unless a decision is required; JSON is read as
/// Claude Code's hook output; anything else is no answer.
fn read_stdout(event: HookEvent, require_decision: bool, stdout: &str) -> Answer {
    let text = stdout.trim();
    let pass = Answer {
        decision: Decision::Pass,
        additional_context: None,
    };
    if text.is_empty() {
        return if require_decision {
            block("the hook must decide and printed nothing".to_owned())
        } else {
            pass
        };
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => match json_answer(event, &object) {
            Ok(answer) if require_decision && answer.decision == Decision::Pass => {
                block("the hook must decide and its JSON holds no decision".to_owned())
            }
            Ok(answer) => answer,
            Err(problem) => block(format!("the hook's JSON answer {problem}")),
        },
        _ if require_decision || text.starts_with('{') => block(format!(
            "the hook printed something that is not a JSON answer: {}",
            quoted(text)
        )),
        // Plain text on exit 0 is a log line to Claude Code, not a decision.
        _ => pass,
    }
}

/// What is wrong with a hook's JSON answer: the call is blocked, saying which.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AnswerError {
    /// `hookSpecificOutput` or `updatedInput` is there but not an object.
    NotAnObject { field: &'static str },
    /// A field that holds text holds something else.
    NotAString { field: String },
    /// `permissionDecision` is none of Claude Code's.
    UnknownPermission(String),
    /// `decision` is none of Claude Code's.
    UnknownDecision(String),
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerError::NotAnObject { field } => {
                write!(f, "has a `{field}` that is not an object")
            }
            AnswerError::NotAString { field } => write!(f, "has a `{field}` that is not a string"),
            AnswerError::UnknownPermission(other) => write!(
                f,
                "has permissionDecision `{other}`; it must be allow, deny or ask"
            ),
            AnswerError::UnknownDecision(other) => {
                write!(f, "has decision `{other}`; it must be block or approve")
            }
        }
    }
}

/// Claude Code's JSON output: `continue: false`, `decision: "block"` (or the older `approve`),
/// and `hookSpecificOutput` with `permissionDecision`, `updatedInput`, `additionalContext`.
fn json_answer(event: HookEvent, object: &Map<String, Value>) -> Result<Answer, AnswerError> {
    let specific = match object.get("hookSpecificOutput") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(specific)) => specific.clone(),
        Some(_) => {
            return Err(AnswerError::NotAnObject {
                field: "hookSpecificOutput",
            })
        }
    };
    let text = |map: &Map<String, Value>, key: &str| -> Result<Option<String>, AnswerError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(AnswerError::NotAString {
                field: key.to_owned(),
            }),
        }
    };
    let additional_context = text(&specific, "additionalContext")?;
    let answer = |decision| Answer {
        decision,
        additional_context: additional_context.clone(),
    };
    let reason = |key_map: &Map<String, Value>, key: &str| -> Result<String, AnswerError> {
        Ok(text(key_map, key)?.unwrap_or_else(|| "(the hook gave no reason)".to_owned()))
    };
    if object.get("continue") == Some(&Value::Bool(false)) {
        let why = text(object, "stopReason")?.unwrap_or_else(|| "continue: false".to_owned());
        return Ok(answer(Decision::Block { reason: why }));
    }
    if event == HookEvent::PreToolUse {
        if let Some(permission) = text(&specific, "permissionDecision")? {
            let why = reason(&specific, "permissionDecisionReason")?;
            return match permission.as_str() {
                "allow" => Ok(answer(Decision::Allow {
                    updated_input: updated_input(&specific)?,
                })),
                "deny" => Ok(answer(Decision::Block { reason: why })),
                "ask" | "defer" => Ok(answer(Decision::Block {
                    reason: format!(
                        "the hook asks for a person's approval, and a mend run has no one to ask: {why}"
                    ),
                })),
                other => Err(AnswerError::UnknownPermission(other.to_owned())),
            };
        }
    }
    match text(object, "decision")?.as_deref() {
        None => Ok(answer(match updated_input(&specific)? {
            Some(input) => Decision::Allow {
                updated_input: Some(input),
            },
            None => Decision::Pass,
        })),
        Some("block") => Ok(answer(Decision::Block {
            reason: reason(object, "reason")?,
        })),
        Some("approve" | "allow") => Ok(answer(Decision::Allow {
            updated_input: updated_input(&specific)?,
        })),
        Some(other) => Err(AnswerError::UnknownDecision(other.to_owned())),
    }
}

fn updated_input(specific: &Map<String, Value>) -> Result<Option<Map<String, Value>>, AnswerError> {
    match specific.get("updatedInput") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(input)) => Ok(Some(input.clone())),
        Some(_) => Err(AnswerError::NotAnObject {
            field: "updatedInput",
        }),
    }
}
