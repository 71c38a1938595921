//! Who loads before mend's witness. pytest loads it as the first installed plugin (its archive
//! declares one, on the path before the installed packages), or with `-p` where the task's
//! command names plugins of its own: a plugin of the project's that the command names then
//! comes after it, and what that plugin does as it loads is watched. A plugin the project's own
//! configuration names with `-p` comes before it (pytest reads those options first): what it
//! did as it loaded was not watched, and the verdict says so.

use serde_json::{json, Value};

use crate::common::{installed_runner, sample_copy};
use crate::old_python::{not_checked, verify};

/// A plugin of the project's that reads its caller's frame as it is imported: an alarm, when
/// the witness is there to hear it.
const EARLY_PLUGIN: &str = "import sys\n\n_CALLER = sys._getframe(1)\n";

/// What `mend verify --json` says of the sample's fresh copy with `early_plugin.py` beside
/// the code, named with `-p` by `pytest.ini` or by the task's command.
fn verified_with_plugin_named_by(place: &str) -> (i32, Value) {
    let sample = sample_copy();
    std::fs::write(sample.path().join("early_plugin.py"), EARLY_PLUGIN).unwrap();
    match place {
        "pytest.ini" => std::fs::write(
            sample.path().join("pytest.ini"),
            "[pytest]\naddopts = -p early_plugin\n",
        )
        .unwrap(),
        _ => {
            let task = sample.path().join("mend.toml");
            let text = std::fs::read_to_string(&task).unwrap();
            let command = "command = [\"python\", \"-m\", \"pytest\", \"-q\"]";
            assert!(text.contains(command), "{text}");
            let named =
                "command = [\"python\", \"-m\", \"pytest\", \"-q\", \"-p\", \"early_plugin\"]";
            std::fs::write(&task, text.replace(command, named)).unwrap();
        }
    }
    let python = crate::common::python();
    let outcome = verify(sample.path(), &python, true);
    let mut run = outcome.tests_after();
    let fields = run.as_object_mut().unwrap();
    fields.remove("duration_ms");
    fields.remove("output_tail");
    (outcome.code, run)
}

/// The sample's run as the verdict tells it, with `told` beside it and `unchecked` after the
/// check this Python does not let the witness make (none from 3.8 on).
fn sample_run(told: (&str, Value), unchecked: &[&str]) -> Value {
    let runner = installed_runner();
    let minor = runner["python"]
        .as_str()
        .and_then(|version| version.split('.').nth(1));
    let mut not_made: Vec<String> = match minor.and_then(|minor| minor.parse::<u32>().ok()) {
        Some(minor) if minor < 8 => vec![not_checked()],
        _ => Vec::new(),
    };
    not_made.extend(unchecked.iter().map(|what| (*what).to_owned()));
    let mut run = json!({
        "exit_code": 1,
        "summary": {"passed": 3, "failed": 1, "errors": 0, "skipped": 0},
        "failing": ["tests/test_path_rules.py::test_accepts_windows_separators"],
        "runner": runner,
    });
    let fields = run.as_object_mut().unwrap();
    if !told.0.is_empty() {
        fields.insert(told.0.to_owned(), told.1);
    }
    if !not_made.is_empty() {
        fields.insert("unchecked".to_owned(), json!(not_made));
    }
    run
}

#[test]
fn a_plugin_the_command_names_loads_after_the_witness_and_what_it_does_is_heard() {
    let read = "the code under test read the test run's frames: sys._getframe at early_plugin.py:3";
    assert_eq!(
        verified_with_plugin_named_by("the command"),
        (1, sample_run(("not_trusted", json!(read)), &[]))
    );
}

#[test]
fn a_plugin_the_projects_configuration_names_loads_first_and_the_verdict_says_so() {
    let not_watched = "what the project's plugin 'early_plugin' did as it loaded (it loaded before mend's witness, named with -p by the project's configuration or a wrapper's command)";
    assert_eq!(
        verified_with_plugin_named_by("pytest.ini"),
        (1, sample_run(("", Value::Null), &[not_watched]))
    );
}
