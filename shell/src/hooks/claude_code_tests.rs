//! Hooks written for Claude Code, in the shape its hooks documentation gives (stdin JSON, exit
//! 2 with the reason on stderr, `hookSpecificOutput.permissionDecision`, `decision: "block"`),
//! read from a `.claude/settings.json` and run for real on mend's calls: each decision is the one
//! Claude Code takes for the same call of its own tool.

use camino::Utf8Path;
use serde_json::{json, Map, Value};

use crate::exec::runner::TestRunner;
use crate::exec::sandbox::Sandbox;
use crate::hooks::gate::Gate;
use crate::hooks::input::Call;
use crate::hooks::outcome::{outcome, Outcome};
use crate::hooks::spawn::Place;
use crate::interrupt::Watch;
use crate::record::hook_run::HookEvent;
use crate::task::claude_code;
use crate::task::hooks::Hooks;

/// Blocks edits of tests and of `.env`, reading Claude Code's `file_path`.
const PROTECT_TESTS: &str = r#"import json, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if "/tests/" in path or path.endswith(".env"):
    print(f"{data['tool_name']} of {path.rsplit('/', 1)[-1]} is not allowed: tests are protected", file=sys.stderr)
    sys.exit(2)
"#;

/// Denies `rm -rf` in Bash by JSON, and allows everything else the same way.
const BASH_GUARD: &str = r#"import json, sys
data = json.load(sys.stdin)
command = data["tool_input"]["command"]
decision = "deny" if "rm -rf" in command else "allow"
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": "rm -rf is never run here"}}))
"#;

/// Reads only by Claude Code's tool name: anything but `Read` is a mistake it refuses.
const READ_GUARD: &str = r#"import json, sys
data = json.load(sys.stdin)
if data["tool_name"] != "Read":
    print("told of " + data["tool_name"], file=sys.stderr)
    sys.exit(2)
if data["tool_input"]["file_path"].endswith("secrets.txt"):
    print("secrets stay secret", file=sys.stderr)
    sys.exit(2)
"#;

/// Objects after a write that leaves a TODO (Claude Code's PostToolUse `decision: "block"`).
const NO_TODO: &str = r#"import json, sys
data = json.load(sys.stdin)
text = data["tool_input"].get("content") or data["tool_input"].get("new_string") or ""
if "TODO" in text:
    print(json.dumps({"decision": "block", "reason": "the change leaves a TODO"}))
"#;

const SETTINGS: &str = r#"{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/protect_tests.py"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 .claude/hooks/bash_guard.py", "timeout": 30}]},
      {"matcher": "Read", "hooks": [{"type": "command", "command": "python3 .claude/hooks/read_guard.py"}]},
      {"matcher": "WebFetch", "hooks": [{"type": "command", "command": "exit 2"}]}
    ],
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "python3 .claude/hooks/no_todo.py"}]}
    ],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}"#;

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
#[allow(clippy::too_many_lines)] // the 80-line rule is for code, not a test's cases
fn claude_code_hooks_decide_mends_calls_as_claude_code_decides_its_own() {
    let (_dir, root) = crate::test_support::project(&[
        (".claude/settings.json", SETTINGS),
        (".claude/hooks/protect_tests.py", PROTECT_TESTS),
        (".claude/hooks/bash_guard.py", BASH_GUARD),
        (".claude/hooks/read_guard.py", READ_GUARD),
        (".claude/hooks/no_todo.py", NO_TODO),
    ]);
    let files = claude_code::settings_files(&root, None);
    let loaded = claude_code::load(&files).unwrap();
    let runner = TestRunner::new("python3".into(), Sandbox::Unsandboxed);
    let gate = Gate {
        place: Place {
            runner: &runner,
            root: &root,
            watch: Watch::NONE,
        },
        session_id: "s1",
    };
    let decide = |event: HookEvent, tool: &str, input: Value| -> Option<Outcome> {
        let matchers = match event {
            HookEvent::PostToolUse => &loaded.hooks.post_tool_use,
            _ => &loaded.hooks.pre_tool_use,
        };
        let commands = Hooks::for_tool(matchers, tool);
        if commands.is_empty() {
            return None;
        }
        let input = arguments(input);
        let response = json!({"ok": true});
        let call = Call {
            tool_use_id: "call_1",
            tool_name: tool,
            tool_input: &input,
            tool_response: (event == HookEvent::PostToolUse).then_some(&response),
        };
        Some(outcome(&gate.tool_event(event, &commands, &call).unwrap()))
    };
    let blocked = |event: &str, command: &str, reason: &str| {
        Some(Outcome::Blocked {
            reason: format!("blocked by the {event} hook `{command}`: {reason}"),
        })
    };
    let go = Some(Outcome::Go {
        updated_input: None,
    });
    let protect = "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/protect_tests.py";
    let pre = HookEvent::PreToolUse;
    let seen = [
        decide(
            pre,
            "write_file",
            json!({"path": "tests/test_app.py", "text": "x"}),
        ),
        decide(
            pre,
            "replace_text",
            json!({"path": "tests/test_app.py", "old": "a", "new": "b"}),
        ),
        decide(
            pre,
            "write_file",
            json!({"path": "src/app.py", "text": "x = 1\n"}),
        ),
        decide(pre, "shell", json!({"command": "rm -rf build"})),
        decide(pre, "shell", json!({"command": "ls"})),
        decide(pre, "read_file", json!({"path": "config/secrets.txt"})),
        decide(pre, "read_file", json!({"path": "src/app.py"})),
        decide(pre, "grep", json!({"pattern": "TODO"})),
        decide(
            HookEvent::PostToolUse,
            "write_file",
            json!({"path": "src/app.py", "text": "# TODO\n"}),
        ),
        decide(
            HookEvent::PostToolUse,
            "replace_text",
            json!({"path": "src/app.py", "old": "a", "new": "b"}),
        ),
    ];
    assert_eq!(
        seen,
        [
            blocked(
                "PreToolUse",
                protect,
                "Write of test_app.py is not allowed: tests are protected"
            ),
            blocked(
                "PreToolUse",
                protect,
                "Edit of test_app.py is not allowed: tests are protected"
            ),
            go.clone(),
            blocked(
                "PreToolUse",
                "python3 .claude/hooks/bash_guard.py",
                "rm -rf is never run here"
            ),
            go.clone(),
            blocked(
                "PreToolUse",
                "python3 .claude/hooks/read_guard.py",
                "secrets stay secret"
            ),
            go.clone(),
            // No Claude Code hook matches Grep here: none runs, as in Claude Code.
            None,
            blocked(
                "PostToolUse",
                "python3 .claude/hooks/no_todo.py",
                "the change leaves a TODO"
            ),
            go,
        ]
    );
    assert_eq!(
        (loaded.sources, loaded.warnings, loaded.hooks.never_matching().len()),
        (
            vec![".claude/settings.json (5 hook(s))".to_owned()],
            vec![".claude/settings.json: mend runs PreToolUse, PostToolUse and Stop hooks; its UserPromptSubmit hooks never run".to_owned()],
            1
        )
    );
}

/// A Claude Code hook that rewrites `content` rewrites what mend's `write_file` writes.
#[test]
fn claude_codes_field_names_go_back_to_mends() {
    let root = Utf8Path::new("/copy");
    let updated = arguments(json!({"file_path": "/copy/src/app.py", "content": "fixed\n"}));
    let replaced = arguments(json!({"old_string": "a", "new_string": "b", "path": "src/x.py"}));
    assert_eq!(
        (
            claude_code::to_mend_fields("write_file", &updated, root.as_str()),
            claude_code::to_mend_fields("replace_text", &replaced, root.as_str()),
        ),
        (
            arguments(json!({"path": "src/app.py", "text": "fixed\n"})),
            arguments(json!({"path": "src/x.py", "old": "a", "new": "b"})),
        )
    );
}
