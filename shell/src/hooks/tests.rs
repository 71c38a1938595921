//! Hooks run for real (`/bin/sh` scripts in a temporary copy): what they read, and every way one
//! can answer or fail, each decision compared whole.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use serde_json::{json, Map, Value};

use crate::exec::runner::TestRunner;
use crate::exec::sandbox::Sandbox;
use crate::hooks::gate::Gate;
use crate::hooks::input::Call;
use crate::hooks::spawn::Place;
use crate::interrupt::Watch;
use crate::record::hook_run::{Decision, HookEvent};
use crate::task::hooks::HookCommand;

struct Copy {
    _dir: tempfile::TempDir,
    root: Utf8PathBuf,
    runner: TestRunner,
}

fn copy_with(scripts: &[(&str, &str)]) -> Copy {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap().to_owned();
    for (name, text) in scripts {
        let path = root.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    Copy {
        _dir: dir,
        root,
        runner: TestRunner::new("python3".into(), Sandbox::Unsandboxed),
    }
}

fn command(text: &str, seconds: u64, require_decision: bool) -> HookCommand {
    HookCommand {
        command: text.to_owned(),
        timeout: Duration::from_secs(seconds),
        require_decision,
        claude_code: false,
    }
}

fn shell_input() -> Map<String, Value> {
    Map::from_iter([("command".to_owned(), json!("rm -rf build"))])
}

/// The decision of one PreToolUse hook about `shell` with `rm -rf build`.
fn decide(copy: &Copy, hook: HookCommand) -> Decision {
    let gate = Gate {
        place: Place {
            runner: &copy.runner,
            root: &copy.root,
            watch: Watch::NONE,
        },
        session_id: "s1",
    };
    let input = shell_input();
    let call = Call {
        tool_use_id: "call_1",
        tool_name: "shell",
        tool_input: &input,
        tool_response: None,
    };
    let runs = gate
        .tool_event(HookEvent::PreToolUse, &[&hook], &call)
        .unwrap();
    assert_eq!(runs.len(), 1);
    runs[0].decision.clone()
}

fn blocked(reason: &str) -> Decision {
    Decision::Block {
        reason: reason.to_owned(),
    }
}

#[test]
fn a_hook_reads_claude_codes_json_on_stdin_in_the_copy() {
    let copy = copy_with(&[]);
    let decision = decide(&copy, command("cat > seen.json; pwd > cwd.txt", 10, false));
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(copy.root.join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(decision, Decision::Pass);
    assert_eq!(
        seen,
        json!({
            "session_id": "s1",
            "transcript_path": "",
            "cwd": copy.root.as_str(),
            "permission_mode": "bypassPermissions",
            "hook_event_name": "PreToolUse",
            "tool_name": "shell",
            "tool_input": {"command": "rm -rf build"},
            "tool_use_id": "call_1",
        })
    );
    assert_eq!(
        std::fs::read_to_string(copy.root.join("cwd.txt"))
            .unwrap()
            .trim(),
        copy.root.as_str()
    );
}

#[test]
fn answers_are_read_as_claude_code_reads_them() {
    let copy = copy_with(&[]);
    let deny = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm -rf"}}'"#;
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -r build"}}}'"#;
    let ask = r#"echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'"#;
    let legacy = r#"echo '{"decision":"block","reason":"old style"}'"#;
    let stop = r#"echo '{"continue":false,"stopReason":"enough"}'"#;
    let decisions: Vec<Decision> = [
        "exit 0",
        "echo a log line",
        "echo 'rm is not allowed here' >&2; exit 2",
        deny,
        allow,
        ask,
        legacy,
        stop,
    ]
    .into_iter()
    .map(|text| decide(&copy, command(text, 10, false)))
    .collect();
    assert_eq!(
        decisions,
        vec![
            Decision::Pass,
            Decision::Pass,
            blocked("rm is not allowed here"),
            blocked("no rm -rf"),
            Decision::Allow {
                updated_input: Some(Map::from_iter([(
                    "command".to_owned(),
                    json!("rm -r build")
                )]))
            },
            blocked(
                "the hook asks for a person's approval, and a mend run has no one to ask: sure?"
            ),
            blocked("old style"),
            blocked("enough"),
        ]
    );
}

#[test]
fn every_failure_of_a_hook_blocks_the_call_with_its_reason() {
    let copy = copy_with(&[
        (
            "crash.sh",
            "#!/bin/sh\necho 'Traceback: boom' >&2\nexit 1\n",
        ),
        ("no_interpreter.sh", "#!/no/such/python3\nprint('hi')\n"),
        ("killed.sh", "#!/bin/sh\nkill -9 $$\n"),
    ]);
    let decisions: Vec<Decision> = [
        command("./crash.sh", 10, false),
        command("sleep 30", 1, false),
        command("./missing.sh", 10, false),
        command("./no_interpreter.sh", 10, false),
        command("./killed.sh", 10, false),
        command("echo 'not json'", 10, true),
        command("true", 10, true),
        command("echo '{\"decision\": '", 10, false),
        command(
            "echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"maybe\"}}'",
            10,
            false,
        ),
        command("echo '{}'", 10, true),
    ]
    .into_iter()
    .map(|hook| decide(&copy, hook))
    .collect();
    let shell_said = |what: &str| {
        format!(
            "the hook's program was not found or cannot run (exit {what}: a missing script or interpreter): "
        )
    };
    let reasons: Vec<String> = decisions
        .iter()
        .map(|decision| match decision {
            Decision::Block { reason } => reason.clone(),
            other => panic!("a failing hook let the call through: {other:?}"),
        })
        .collect();
    // What `sh` says of a missing file differs between shells: the start of each reason is mend's.
    let starts: Vec<bool> = reasons
        .iter()
        .zip([
            "the hook failed with exit 1: Traceback: boom".to_owned(),
            "the hook gave no answer within its 1 s and was stopped".to_owned(),
            shell_said("127"),
            shell_said("127"),
            "the hook was killed by signal 9".to_owned(),
            "the hook printed something that is not a JSON answer: not json".to_owned(),
            "the hook must decide and printed nothing".to_owned(),
            "the hook printed something that is not a JSON answer: {\"decision\":".to_owned(),
            "the hook's JSON answer has permissionDecision `maybe`; it must be allow, deny or ask"
                .to_owned(),
            "the hook must decide and its JSON holds no decision".to_owned(),
        ])
        .map(|(reason, start)| reason.starts_with(&start))
        .collect();
    assert_eq!(starts, vec![true; 10], "{reasons:#?}");
}

#[test]
fn the_scripts_a_hook_runs_are_protected_from_the_tools() {
    let task = crate::task::Task::parse(
        Utf8Path::new("mend.toml"),
        r#"
[paths]
readable = ["**"]
editable = ["**"]
[test]
command = ["python", "-m", "pytest"]
timeout_seconds = 5
[tools]
enabled = ["read_file", "write_file"]
[[hooks.PreToolUse]]
matcher = "write_file"
hooks = [{ type = "command", command = "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.py\" --strict" }]
[[hooks.PostToolUse]]
hooks = [{ type = "command", command = "sh ./hooks/after.sh" }]
"#,
    )
    .unwrap();
    let protected: Vec<bool> = [
        ".claude/hooks/guard.py",
        "hooks/after.sh",
        "hooks/other.sh",
        "src/app.py",
    ]
    .iter()
    .map(|path| crate::access::protection(&task, path).is_some())
    .collect();
    assert_eq!(protected, vec![true, true, false, false]);
}

#[test]
fn a_malformed_hooks_table_is_refused_with_its_line() {
    let base = "[paths]\nreadable = [\"a.py\"]\neditable = [\"a.py\"]\n[test]\ncommand = [\"true\"]\ntimeout_seconds = 5\n[tools]\nenabled = [\"read_file\"]\n";
    let problems: Vec<String> = [
        "[[hooks.PreToolUse]]\nmatcher = \"(bad\"\nhooks = []\n",
        "[[hooks.PreToolUse]]\nhooks = [{ type = \"prompt\", command = \"x\" }]\n",
        "[[hooks.PostToolUse]]\nhooks = [{ type = \"command\", command = \"x\", timeout = 0 }]\n",
        "[[hooks.SessionStart]]\nhooks = []\n",
    ]
    .iter()
    .map(|hooks| {
        crate::task::Task::parse(Utf8Path::new("mend.toml"), &format!("{base}{hooks}"))
            .err()
            .map(|error| error.message.lines().next().unwrap_or_default().to_owned())
            .unwrap_or_default()
    })
    .map(|message| message.split(" (see").next().unwrap_or_default().to_owned())
    .collect();
    assert_eq!(
        problems,
        vec![
            "mend.toml:10: hooks.PreToolUse: matcher `(bad` is not a regular expression: regex parse error:".to_owned(),
            "mend.toml:10: hooks.PreToolUse: type `prompt` is not one mend runs; only `command` hooks are".to_owned(),
            "mend.toml:10: hooks.PostToolUse: timeout must be at least 1 second".to_owned(),
            "mend.toml:9: unknown field `SessionStart`, expected one of `PreToolUse`, `PostToolUse`, `Stop`".to_owned(),
        ]
    );
}
