//! The witness holds a passing test's line back, to go with the next lines: a real pytest's run
//! of more passes than it holds at once is heard whole and in order, and a run killed while
//! passes are held is heard as stopped early, never as passing.

use std::collections::BTreeMap;

use super::phases_tests::witnessed;
use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::trust::untrusted::Untrusted;
use crate::verdict::trust::witness::Heard;

/// A module of `passes` passing tests, then `last`.
fn module(passes: usize, last: &str) -> String {
    let passing: String = (0..passes)
        .map(|index| format!("def test_pass_{index:03}():\n    pass\n\n\n"))
        .collect();
    format!("{passing}{last}")
}

#[test]
fn more_passes_than_are_held_at_once_are_all_heard_before_the_failure_after_them() {
    let tests = module(150, "def test_zz_fails():\n    assert 1 + 1 == 3\n");
    let (lines, printed) = witnessed("test_many.py", &tests, &[]);
    let heard = Heard::of(std::slice::from_ref(&lines))
        .unwrap_or_else(|reason| panic!("{reason:?}: {printed}"));
    let canaries: Vec<&String> = heard.canary_ids().collect();
    let own: BTreeMap<String, CaseOutcome> = heard
        .cases
        .iter()
        .filter(|(id, _)| !canaries.contains(id))
        .map(|(id, outcome)| (id.clone(), *outcome))
        .collect();
    let mut expected: BTreeMap<String, CaseOutcome> = (0..150)
        .map(|index| {
            let id = format!("test_many.py::test_pass_{index:03}");
            (id, CaseOutcome::Passed)
        })
        .collect();
    expected.insert(
        "test_many.py::test_zz_fails".to_owned(),
        CaseOutcome::Failed,
    );
    assert_eq!(own, expected);
}

#[test]
fn a_run_killed_while_passes_are_held_is_heard_as_stopped_early() {
    let tests = module(
        10,
        "def test_zz_dies():\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    );
    let (lines, printed) = witnessed("test_killed.py", &tests, &[]);
    assert_eq!(
        Heard::of(std::slice::from_ref(&lines)).err(),
        Some(Untrusted::StoppedEarly),
        "{printed}"
    );
}
