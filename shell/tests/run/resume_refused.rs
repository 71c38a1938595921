//! `mend resume` refuses what cannot go on — a record that no longer replays, a changed
//! repository, a finished run without --message, an --out that is the record itself — and
//! continues an ended chat with a follow-up.

use std::process::Stdio;

use crate::common;
use crate::common::server::Server;
use crate::common::turns::{fix, say, script};
use crate::common::{live_args, mend_command, repo_root, sample_copy};
use crate::support::{cut_by_max_turns, ended, read, records, repaired_as_recorded, resume};
use serde_json::{json, Value};

#[test]
fn a_record_that_no_longer_replays_or_a_finished_run_is_refused() {
    let (repo, dir, first, _) = records();
    let (_server, cut) = cut_by_max_turns(repo.path(), &first);
    assert_eq!(cut.code, 1, "{}", cut.stderr);

    // A tool result that the repository no longer gives: the replay diverges, nothing goes live.
    let mut tampered = read(&first);
    tampered["messages"][0]["tool_calls"][0]["result"]["text"] = json!("something else\n");
    let tampered_path = dir.path().join("tampered.json");
    std::fs::write(&tampered_path, tampered.to_string()).unwrap();
    let live = Server::start(script(vec![say("never asked")]));
    let out = dir.path().join("out.json");
    let diverged = resume(&live.base, &tampered_path, &out, &[]);
    let divergence = diverged
        .events()
        .into_iter()
        .find(|event| event["type"] == "divergence")
        .map(|event| event["what"].clone());
    assert_eq!(
        (
            diverged.code,
            divergence,
            out.exists(),
            live.chat_bodies().len()
        ),
        (
            3,
            Some(json!("turn 1, tool call 0 (`read_file`)")),
            false,
            0
        ),
        "{}",
        diverged.stderr
    );
    assert!(
        diverged
            .stderr
            .contains("cannot be resumed; nothing was written"),
        "{}",
        diverged.stderr
    );

    // A changed repository is refused before anything runs.
    std::fs::write(repo.path().join("path_rules.py"), "changed = True\n").unwrap();
    let changed = resume(&live.base, &first, &out, &[]);
    assert_eq!(
        (changed.code, out.exists()),
        (4, false),
        "{}",
        changed.stderr
    );

    // A finished run goes on only with a follow-up; the record is never the output.
    let finished = dir.path().join("finished.json");
    let mut done = read(&first);
    done["messages"][0]["stop"] = json!({"reason": "assistant_finished"});
    std::fs::write(&finished, done.to_string()).unwrap();
    let refused = resume(&live.base, &finished, &out, &[]);
    let overwrite = resume(&live.base, &first, &first, &["--message", "go on"]);
    assert_eq!(
        [
            (refused.code, refused.stderr.trim_end().to_owned()),
            (overwrite.code, overwrite.stderr.trim_end().to_owned()),
        ],
        [
            (2, format!(
                "mend: error: {} stopped with `assistant_finished`: the session finished, so it goes on only with a follow-up — say what to do next with --message \"...\"",
                finished.display()
            )),
            (2, format!(
                "mend: error: --out {} is the record being resumed, which mend never overwrites; choose another path",
                first.display()
            )),
        ]
    );
}

#[test]
fn an_ended_chat_goes_on_with_a_follow_up() {
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let (chat, second) = (dir.path().join("chat.json"), dir.path().join("second.json"));
    let server = Server::start(script(vec![say("It drops backslash paths.")]));
    let mut child = mend_command(&repo_root())
        .args(live_args("chat", &server.base, repo.path(), &chat))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mend starts");
    // One message, then the end of input ends the chat.
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"what is wrong?\n").unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));

    let live = Server::start(script(vec![fix("c1"), say("Fixed.")]));
    let resumed = resume(&live.base, &chat, &second, &["--message", "fix it"]);
    assert_eq!(
        ended(&resumed),
        repaired_as_recorded(),
        "{}",
        resumed.stderr
    );
    let new = read(&second);
    let texts: Vec<Value> = new["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["text"].clone())
        .collect();
    assert_eq!(
        (texts, new["tests_before"].clone()),
        (vec![json!("what is wrong?"), json!("fix it")], Value::Null)
    );
    let body = &live.chat_bodies()[0];
    let said: Vec<(Value, Value)> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].clone(), m["content"].clone()))
        .collect();
    assert_eq!(
        said[1..],
        [
            (json!("user"), json!("what is wrong?")),
            (json!("assistant"), json!("It drops backslash paths.")),
            (json!("user"), json!("fix it")),
        ]
    );

    // Each message is announced, so a transcript says what each session was asked: the live
    // one as it starts, and every one when the new record is replayed.
    let messages = |events: Vec<Value>| -> Vec<Value> {
        events
            .into_iter()
            .filter(|event| event["type"] == "message")
            .collect()
    };
    let replayed = common::mend(&["replay", "--json", second.to_str().unwrap()]);
    assert_eq!(
        (messages(resumed.events()), messages(replayed.events())),
        (
            vec![json!({"type": "message", "number": 2, "text": "fix it", "live": true})],
            vec![
                json!({"type": "message", "number": 1, "text": "what is wrong?", "live": false}),
                json!({"type": "message", "number": 2, "text": "fix it", "live": false}),
            ]
        ),
        "{}",
        replayed.stderr
    );
}
