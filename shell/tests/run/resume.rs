//! `mend resume` against the loopback server: a run cut by its turn budget, by Ctrl-C or by its
//! deadline is replayed exactly and goes on live to a repair; the new record holds the old
//! messages and the new one.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::common::server::{Ending, Reply, Script, Server};
use crate::common::turns::{fix, say, script, stalls_after, MODEL, NEW, OLD};
use crate::common::{live_args, mend, mend_command, repo_root, sigint};
use crate::support::{
    cut_by_max_turns, ended, line_of, read, read_rules, records, repaired_as_recorded, resume, row,
    rows, run, shape, verdict,
};
use serde_json::{json, Value};

#[test]
fn a_run_cut_by_max_turns_resumes_to_a_repair_with_the_whole_conversation() {
    let (repo, _dir, first, second) = records();
    let read_line = line_of(&read_rules());
    let (server, cut) = cut_by_max_turns(repo.path(), &first);
    assert_eq!(
        ended(&cut),
        (1, Some((json!(false), Value::Null, json!("max_turns")))),
        "{}",
        cut.stderr
    );
    let old_bytes = std::fs::read(&first).unwrap();
    let old = read(&first);

    let (fix, done) = (fix("c2"), say("Fixed: backslashes are read as separators."));
    let (fix_line, done_line) = (line_of(&fix), line_of(&done));
    let live = Server::start(script(vec![fix, done]));
    let resumed = resume(&live.base, &first, &second, &["--max-turns", "3"]);
    assert_eq!(
        ended(&resumed),
        repaired_as_recorded(),
        "{}",
        resumed.stderr
    );

    let new = read(&second);
    let messages = new["messages"].as_array().unwrap();
    assert_eq!(
        messages[0], old["messages"][0],
        "the old message is kept as it was"
    );
    assert_eq!(
        messages.iter().map(shape).collect::<Vec<_>>(),
        vec![
            json!({"text": old["messages"][0]["text"], "max_turns": null,
                   "turns": [{"turn": 1, "lines": [read_line], "end": {"kind": "session_ended"}}],
                   "tool_calls": [{"turn": 1, "name": "read_file",
                                   "arguments": {"path": "path_rules.py"}, "status": "ok"}],
                   "stop": "max_turns"}),
            json!({"text": null, "max_turns": 3,
                   "turns": [{"turn": 1, "lines": [fix_line], "end": {"kind": "session_ended"}},
                             {"turn": 2, "lines": [done_line], "end": {"kind": "session_ended"}}],
                   "tool_calls": [{"turn": 1, "name": "replace_text",
                                   "arguments": {"old": OLD, "new": NEW}, "status": "ok"}],
                   "stop": "assistant_finished"}),
        ]
    );
    assert_eq!(
        (
            &new["format"],
            &new["resumed_from"],
            &new["tests_before"]["exit_code"],
            &new["ending"]["tests_after"]["summary"],
        ),
        (
            &json!("mend-record/2"),
            &json!(first.to_str().unwrap()),
            &json!(1),
            &json!({"passed": 4, "failed": 0, "errors": 0, "skipped": 0}),
        )
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        old_bytes,
        "the old record is untouched"
    );

    // The resumed request carries the whole old conversation: the prompts exactly as the first
    // server got them, the model's call and its result; then the new turn and its result.
    let (before, after) = (server.chat_bodies(), live.chat_bodies());
    assert_eq!(after.len(), 2);
    let old_rows = vec![
        row("system", None),
        row("user", None),
        row("assistant", None),
        row("tool", Some(("read_file", "c1"))),
    ];
    let mut new_rows = old_rows.clone();
    new_rows.extend([
        row("assistant", None),
        row("tool", Some(("replace_text", "c2"))),
    ]);
    assert_eq!((rows(&after[0]), rows(&after[1])), (old_rows, new_rows));
    assert_eq!(
        after[0]["messages"].as_array().unwrap()[..2],
        before[0]["messages"].as_array().unwrap()[..]
    );
    let source = std::fs::read_to_string(repo.path().join("path_rules.py")).unwrap();
    assert_eq!(
        after[0]["messages"][3]["content"],
        json!({"path": "path_rules.py", "text": source}).to_string()
    );

    // The new record replays as any other.
    let replayed = mend(&["replay", "--json", second.to_str().unwrap()]);
    assert_eq!(
        ended(&replayed),
        repaired_as_recorded(),
        "{}",
        replayed.stderr
    );
}

/// Starts `mend run` against a server that sends one line and stalls; Ctrl-C once the line is
/// shown. Returns the exit code.
fn cancelled_run(repo: &Path, record: &Path) -> i32 {
    let stalled = Server::start(script(vec![stalls_after("Let me look")]));
    let mut child = mend_command(&repo_root())
        .args(live_args("run", &stalled.base, repo, record))
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mend starts");
    let mut events = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in events.by_ref() {
        if line.unwrap().contains("\"type\":\"text_delta\"") {
            break;
        }
    }
    sigint(&child);
    events.for_each(drop);
    child.wait().unwrap().code().unwrap_or(-1)
}

#[test]
fn a_cancelled_run_resumes_from_its_cut_turn() {
    let (repo, _dir, first, second) = records();
    assert_eq!(cancelled_run(repo.path(), &first), 130);
    let old = read(&first);
    assert_eq!(old["messages"][0]["stop"]["reason"], "cancelled");

    let live = Server::start(script(vec![fix("c1"), say("Fixed.")]));
    let resumed = resume(&live.base, &first, &second, &[]);
    assert_eq!(
        ended(&resumed),
        repaired_as_recorded(),
        "{}",
        resumed.stderr
    );
    let new = read(&second);
    assert_eq!(
        (
            new["messages"][0].clone(),
            new["messages"].as_array().unwrap().len(),
            shape(&new["messages"][1])["stop"].clone(),
            new["messages"][1]["max_turns"].clone(),
        ),
        (
            old["messages"][0].clone(),
            2,
            json!("assistant_finished"),
            json!(8)
        )
    );
    // The cut turn's partial answer is not in the conversation: the request starts again from
    // the prompts.
    let bodies = live.chat_bodies();
    assert_eq!(
        rows(&bodies[0]),
        vec![row("system", None), row("user", None)]
    );
}

#[test]
fn a_run_cut_by_its_deadline_replays_and_resumes() {
    let (repo, _dir, first, second) = records();
    let stalled = Server::start(Script {
        models: vec![(MODEL, "0123456789abcdef")],
        chats: vec![Reply::Stream {
            writes: Vec::new(),
            ending: Ending::Stall(Duration::from_secs(50)),
        }],
    });
    let cut = run(&stalled.base, repo.path(), &first, &["--deadline", "1"]);
    assert_eq!(
        (cut.code, verdict(&cut).map(|v| v.2)),
        (1, Some(json!("deadline_exceeded")))
    );
    // The record says where the deadline landed; a replay stops there, however fast it runs.
    let replayed = mend(&["replay", "--json", first.to_str().unwrap()]);
    assert_eq!(
        ended(&replayed),
        (
            1,
            Some((json!(false), json!(true), json!("deadline_exceeded")))
        ),
        "{}",
        replayed.stderr
    );
    let live = Server::start(script(vec![fix("c1"), say("Fixed.")]));
    let resumed = resume(&live.base, &first, &second, &["--deadline", "60"]);
    assert_eq!(
        ended(&resumed),
        repaired_as_recorded(),
        "{}",
        resumed.stderr
    );
}

#[test]
fn a_fixture_in_the_first_run_format_resumes_into_a_new_format_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("resumed.json");
    let fixture = repo_root().join("fixtures/bounded.json");
    let old: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    let live = Server::start(script(vec![fix("c9"), say("Fixed.")]));
    // The fixture's budget is one turn; the resumed part gets two.
    let resumed = resume(&live.base, &fixture, &out, &["--max-turns", "2"]);
    assert_eq!(
        ended(&resumed),
        repaired_as_recorded(),
        "{}",
        resumed.stderr
    );
    let new = read(&out);
    let first = &new["messages"][0];
    assert_eq!(
        (
            &new["format"],
            &first["text"],
            &first["turns"],
            &first["tool_calls"],
            &first["stop"],
            new["messages"].as_array().unwrap().len(),
        ),
        (
            &json!("mend-record/2"),
            &old["task"],
            &old["turns"],
            &old["tool_calls"],
            &old["stop"],
            2,
        )
    );
}
