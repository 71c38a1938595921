//! A broken call repaired under a grammar reads as a repair, not as a turn of the model's own:
//! in the terminal's lines of the live run and of its replay, and in `mend show`.

use crate::common::{live_run, mend, sample_copy};
use crate::text_calls::Repair;
use serde_json::json;

/// The lines from `first` to the first one starting with `last`, both included.
fn section(text: &str, first: &str, last: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|line| *line == first).unwrap();
    let end = start
        + lines[start..]
            .iter()
            .position(|line| line.starts_with(last))
            .unwrap();
    lines[start..=end]
        .iter()
        .map(|line| mask_ms(line))
        .collect()
}

/// Durations vary from run to run: every number right before ` ms` reads as `N`.
fn mask_ms(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(" ms") {
        let digits = rest[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .count();
        out.push_str(&rest[..at - digits]);
        out.push_str(if digits > 0 { "N ms" } else { " ms" });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

#[test]
fn a_repair_is_shown_as_a_repair_live_in_its_replay_and_in_show() {
    let Repair {
        arguments,
        broken,
        answer,
        server,
    } = Repair::scripted();
    let repo = sample_copy();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let live = live_run(&server.base, repo.path(), &record, &[]);
    let call = format!("replace_text {arguments}");
    let expected = vec![
        "── turn 1 ──".to_owned(),
        broken.clone(),
        "── turn 2 · repair: turn 1's call asked again under the tools' schema ──".to_owned(),
        answer,
        "(turn 1's call, repaired under the schema: replace_text)".to_owned(),
        format!("→ {call}"),
        "  ✓ replaced 1 occurrence".to_owned(),
        "── turn 3 ──".to_owned(),
        "Fixed.".to_owned(),
        "Stopped: assistant_finished".to_owned(),
    ];
    assert_eq!(
        (live.code, section(&live.stdout, "── turn 1 ──", "Stopped:")),
        (0, expected.clone()),
        "{}",
        live.stderr
    );
    // The replay reads the same lines through the same core: the same repair, shown the same.
    let replayed = mend(&["replay", record.to_str().unwrap()]);
    assert_eq!(
        (
            replayed.code,
            section(&replayed.stdout, "── turn 1 ──", "Stopped:")
        ),
        (0, expected),
        "{}",
        replayed.stderr
    );
    let shown = mend(&["show", record.to_str().unwrap()]);
    assert_eq!(
        section(&shown.stdout, "3 turn(s), 1 call(s): 1 ok, 0 failed, 0 refused", "Stop:"),
        vec![
            "3 turn(s), 1 call(s): 1 ok, 0 failed, 0 refused".to_owned(),
            "  turn 1: model N ms, first byte after N ms".to_owned(),
            "    prompt 900 tokens (estimated 624 of 16384) · output 60".to_owned(),
            "  turn 2 (repair of turn 1's call under the tools' schema): model N ms, first byte after N ms".to_owned(),
            "    prompt 900 tokens (estimated 1142 of 16384) · output 60".to_owned(),
            format!("    {call} — ok, N ms, repaired under the tools' schema"),
            "  turn 3: model N ms, first byte after N ms".to_owned(),
            "Stop: assistant_finished".to_owned(),
        ],
        "{}",
        shown.stderr
    );
    // A record whose turn 2 was the model's own, where the same lines replay as a repair, has
    // diverged, though the call and its result are the same.
    let mut unmarked: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let turn = unmarked["messages"][0]["turns"][1].as_object_mut().unwrap();
    assert_eq!(turn.remove("repair_of"), Some(json!(1)));
    let altered = dir.path().join("unmarked.json");
    std::fs::write(&altered, unmarked.to_string()).unwrap();
    let replayed = mend(&["replay", "--json", altered.to_str().unwrap()]);
    let divergence = replayed
        .events()
        .into_iter()
        .find(|event| event["type"] == "divergence");
    assert_eq!(
        (replayed.code, divergence),
        (
            3,
            Some(
                json!({"type": "divergence", "what": "turn 2: the turn whose call it repaired",
                        "expected": null, "got": 1})
            )
        ),
        "{}",
        replayed.stderr
    );
}
