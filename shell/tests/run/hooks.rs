//! `[hooks]` end to end: a PreToolUse hook in the sandbox blocks a call (the model reads its
//! stderr) and lets the next through, the record keeps every decision, and a replay reuses them
//! rather than running the hook again.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{call, fix, say, script, OLD};
use crate::common::{bwrap_run, sample_copy};
use crate::support::{read, replays_cleanly};

/// Blocks any call whose JSON says `hack`; leaves a mark in /tmp, which only the sandbox's is.
const GUARD: &str = r#"input=$(cat)
echo "$input" > "/tmp/mend-hook-saw-$MARK"
case "$input" in
  *hack*) echo "no hacks in this repository" >&2; exit 2 ;;
esac
exit 0
"#;

fn with_hook(repo: &Path, mark: &str) {
    std::fs::create_dir_all(repo.join("hooks")).unwrap();
    std::fs::write(repo.join("hooks/guard.sh"), GUARD.replace("$MARK", mark)).unwrap();
    let task = std::fs::read_to_string(repo.join("mend.toml")).unwrap();
    let hooks = r#"
[[hooks.PreToolUse]]
matcher = "replace_text|write_file"
hooks = [{ type = "command", command = "sh hooks/guard.sh", timeout = 20 }]
"#;
    std::fs::write(repo.join("mend.toml"), format!("{task}{hooks}")).unwrap();
}

/// The hook runs of each call of a record, their times left out.
fn decisions(record: &Value) -> Vec<Value> {
    record["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let mut hooks = call["hooks"].clone();
            for run in hooks.as_array_mut().into_iter().flatten() {
                run.as_object_mut().unwrap().remove("duration_ms");
            }
            json!({"name": call["name"], "status": call["status"], "hooks": hooks})
        })
        .collect()
}

#[test]
fn a_hook_blocks_a_call_in_the_sandbox_and_its_decision_replays() {
    let repo = sample_copy();
    let mark = format!("{}", std::process::id());
    with_hook(repo.path(), &mark);
    let dir = tempfile::tempdir().unwrap();
    let record_path = dir.path().join("run.json");
    let hack = json!({"old": OLD, "new": "        path = hack(name)"});
    let server = Server::start(script(vec![
        call("c1", "replace_text", hack),
        fix("c2"),
        say("done"),
    ]));
    let outcome = bwrap_run(&server.base, repo.path(), &record_path, &[]);
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let record = read(&record_path);
    let command = "sh hooks/guard.sh";
    assert_eq!(
        decisions(&record),
        vec![
            json!({"name": "replace_text", "status": "failed", "hooks": [{
                "event": "PreToolUse", "command": command, "decision": "block",
                "reason": "no hacks in this repository"}]}),
            json!({"name": "replace_text", "status": "ok", "hooks": [{
                "event": "PreToolUse", "command": command, "decision": "pass"}]}),
        ]
    );
    // The model read the hook's reason as the blocked call's result.
    let second = &server.chat_bodies()[1];
    let told = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .map(|message| message["content"].clone());
    assert_eq!(
        told,
        Some(json!(json!({"error": format!("blocked by the PreToolUse hook `{command}`: no hacks in this repository")}).to_string()))
    );
    // The hook ran inside the sandbox: its /tmp was never this machine's.
    assert!(!Path::new(&format!("/tmp/mend-hook-saw-{mark}")).exists());
    let hook_ms: u64 = record["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|call| call["hooks"].as_array().cloned().unwrap_or_default())
        .map(|run| run["duration_ms"].as_u64().unwrap())
        .sum();
    assert_eq!(record["metrics"]["hook_ms"].as_u64().unwrap_or(0), hook_ms);

    // Every decision is seen: as it happened, in `mend show`'s text and on its page, a blocked
    // call as blocked rather than failed.
    let without_times = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.contains("hook PreToolUse") || line.contains("BLOCKED by a hook"))
            .map(|line| {
                let line = line.trim();
                let cut = line
                    .rfind(", ")
                    .filter(|_| line.contains(" — "))
                    .unwrap_or(line.len());
                let line = &line[..cut];
                line.rsplit_once(" (")
                    .map_or(line, |(kept, _)| kept)
                    .to_owned()
            })
            .collect()
    };
    let blocked_line = format!(
        "hook PreToolUse `{command}` on replace_text: BLOCKED: no hacks in this repository"
    );
    let passed_line = format!("hook PreToolUse `{command}` on replace_text: pass");
    let shown = crate::common::mend(&["show", record_path.to_str().unwrap()]);
    let page = crate::common::mend(&["show", record_path.to_str().unwrap(), "--html", "-"]);
    assert_eq!(
        (
            outcome
                .events()
                .into_iter()
                .filter(|event| event["type"] == "hook")
                .map(|mut event| {
                    event.as_object_mut().unwrap().remove("duration_ms");
                    event
                })
                .collect::<Vec<Value>>(),
            without_times(&shown.stdout)
                .into_iter()
                .filter(|line| line.starts_with("hook"))
                .collect::<Vec<_>>(),
            shown
                .stdout
                .contains("1 ok, 0 failed, 0 refused, 1 blocked by hooks"),
            page.stdout.contains("blocked by a hook"),
            page.stdout.contains(&blocked_line.replace('`', "&#96;"))
                || page.stdout.contains(&blocked_line),
        ),
        (
            vec![
                json!({"type": "hook", "call_id": "c1", "tool": "replace_text", "event": "PreToolUse",
                    "command": command, "decision": "block", "reason": "no hacks in this repository"}),
                json!({"type": "hook", "call_id": "c2", "tool": "replace_text", "event": "PreToolUse",
                    "command": command, "decision": "pass"}),
            ],
            vec![blocked_line.clone(), passed_line],
            true,
            true,
            true
        )
    );

    // A hook that now blocks everything: the replay reuses the recorded decisions, so it
    // matches, and the hook never runs.
    std::fs::write(
        repo.path().join("hooks/guard.sh"),
        "echo ran > ran-in-replay; exit 2\n",
    )
    .unwrap();
    replays_cleanly(&record_path);
}

/// `mend verify` runs the hooks that match `run_tests` (a verify is a test run) and says which:
/// a `PreToolUse` block stops it as blocked, a `PostToolUse` hook hears the run; hooks about edits
/// do not run.
#[test]
fn a_verify_runs_the_hooks_of_a_test_run_and_says_which() {
    let outcomes: Vec<(i32, Vec<String>)> = [
        ("PreToolUse", "run_tests", "echo 'no tests today' >&2; exit 2"),
        ("PostToolUse", "run_tests", "echo '{\"decision\": \"block\", \"reason\": \"heard the run\"}'"),
        ("PreToolUse", "Edit|Write", "exit 2"),
    ]
    .into_iter()
    .map(|(event, matcher, script)| {
        let repo = sample_copy();
        std::fs::create_dir_all(repo.path().join("hooks")).unwrap();
        std::fs::write(repo.path().join("hooks/gate.sh"), script).unwrap();
        let task = std::fs::read_to_string(repo.path().join("mend.toml")).unwrap();
        let hooks = format!(
            "\n[[hooks.{event}]]\nmatcher = \"{matcher}\"\nhooks = [{{ type = \"command\", command = \"sh hooks/gate.sh\" }}]\n"
        );
        std::fs::write(repo.path().join("mend.toml"), format!("{task}{hooks}")).unwrap();
        let outcome = crate::common::mend(&[
            "verify",
            "--repo",
            repo.path().to_str().unwrap(),
            "--sandbox",
            "none",
        ]);
        let said: Vec<String> = outcome
            .stderr
            .lines()
            .chain(outcome.stdout.lines())
            .filter(|line| line.contains("hook"))
            .map(|line| match line.rfind(" (") {
                Some(cut) if line.ends_with("ms)") => line[..cut].to_owned(),
                _ => line.to_owned(),
            })
            .collect();
        (outcome.code, said)
    })
    .collect();
    let gate = "sh hooks/gate.sh";
    assert_eq!(
        outcomes,
        [
            (
                4,
                vec![
                    format!("mend: hooks: a verify runs those that match run_tests: PreToolUse `{gate}`"),
                    format!("mend: error: the verify was blocked by the PreToolUse hook `{gate}`: no tests today"),
                    format!("hook PreToolUse `{gate}` on run_tests: BLOCKED: no tests today"),
                ]
            ),
            (
                1,
                vec![
                    format!("mend: hooks: a verify runs those that match run_tests: PostToolUse `{gate}`"),
                    format!("hook PostToolUse `{gate}` on run_tests: BLOCKED: heard the run"),
                ]
            ),
            (
                1,
                vec!["mend: hooks: none of the task's applies to a verify (only those that match run_tests do)".to_owned()]
            ),
        ]
    );
}
