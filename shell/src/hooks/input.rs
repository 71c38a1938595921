//! The JSON a hook reads on stdin, field for field as Claude Code sends it, so that a hook
//! written for Claude Code reads mend's calls unchanged: its tool names and field names are
//! there (`Write` with `file_path` and `content`), beside mend's own (`write_file`, `path`, `text`).

use serde_json::{json, Map, Value};

use crate::record::hook_run::HookEvent;
use crate::task::claude_code;

/// What every event's JSON carries.
pub(crate) struct Common<'a> {
    pub session_id: &'a str,
    /// The copy the hook runs in.
    pub cwd: &'a str,
}

/// The call a tool hook is about.
pub(crate) struct Call<'a> {
    pub tool_use_id: &'a str,
    pub tool_name: &'a str,
    pub tool_input: &'a Map<String, Value>,
    /// `PostToolUse` only: what the tool returned.
    pub tool_response: Option<&'a Value>,
}

fn common(common: &Common, event: HookEvent) -> Map<String, Value> {
    let value = json!({
        "session_id": common.session_id,
        // mend writes its record when the run ends; there is no transcript file to read before.
        "transcript_path": "",
        "cwd": common.cwd,
        // mend asks no one: what the hooks and the task allow is what runs.
        "permission_mode": "bypassPermissions",
        "hook_event_name": event.name(),
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A tool event's JSON. `tool_input` carries Claude Code's field names beside mend's
/// (`file_path`, `content`, `old_string`/`new_string`); a hook written for Claude Code
/// (`claude_code`) is told the tool by Claude Code's name (`Write` for `write_file`).
pub(crate) fn tool_event(
    shared: &Common,
    event: HookEvent,
    call: &Call,
    claude_code: bool,
) -> Vec<u8> {
    let mut map = common(shared, event);
    let claude_name = claude_code::names_of(call.tool_name).first().copied();
    let tool_name = match (claude_code, claude_name) {
        (true, Some(name)) => name,
        _ => call.tool_name,
    };
    map.insert("tool_name".to_owned(), json!(tool_name));
    let input = claude_code::with_claude_fields(call.tool_name, call.tool_input, shared.cwd);
    map.insert("tool_input".to_owned(), Value::Object(input));
    map.insert("tool_use_id".to_owned(), json!(call.tool_use_id));
    if let Some(response) = call.tool_response {
        map.insert("tool_response".to_owned(), response.clone());
    }
    to_bytes(map)
}

/// `active`: the model is already at work again because a Stop hook blocked its last stop (a
/// hook that sees it can let the run end rather than send it back forever).
pub(crate) fn stop_event(shared: &Common, last_message: Option<&str>, active: bool) -> Vec<u8> {
    let mut map = common(shared, HookEvent::Stop);
    map.insert("stop_hook_active".to_owned(), json!(active));
    if let Some(text) = last_message {
        map.insert("last_assistant_message".to_owned(), json!(text));
    }
    to_bytes(map)
}

fn to_bytes(map: Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(&Value::Object(map)).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
