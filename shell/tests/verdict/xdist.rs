//! The verdict of a project whose tests run under pytest-xdist (`-n 2`): the workers place
//! mend's canaries, the controller's witness hears their reports, and the canaries show in no
//! count or id; a change that alters outcomes in the workers is caught by them.

use std::path::Path;

use serde_json::{json, Value};

use super::old_python::not_checked;
use super::projects::{
    counts, project, repaired_ledger, task_file_with, verdict, verify, LEDGER_FAILING,
};
use crate::common::{copy_of, installed_runner};

/// The ledger's tests in two xdist workers.
fn verify_in_two_workers(repo: &Path) -> (i32, Value) {
    verify_with_command(repo, r#"["python", "-m", "pytest", "-n", "2"]"#)
}

/// The ledger's tests run by `command` (TOML).
fn verify_with_command(repo: &Path, command: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let task_file = task_file_with(
        &project("ledger"),
        dir.path(),
        "command = [\"python\", \"-m\", \"pytest\"]\ntimeout_seconds = 60\n",
        // Two workers each start a pytest: under load (two busy loops per core) that took over
        // the project's 60 s. What is tested here is the verdict, not the time.
        &format!("command = {command}\ntimeout_seconds = 600\n"),
    );
    verdict(&verify(repo, &["--task-file", task_file.to_str().unwrap()]))
}

/// How the planted plugin treats mend's canaries.
#[derive(Clone, Copy)]
enum Canaries {
    /// It does not look for them.
    Unseen,
    /// It leaves out of the collection every test its module does not define.
    Dropped,
    /// It rebuilds their names from the seed a worker's `workerinput` holds, as the witness
    /// does, and leaves their failures alone.
    SparedBySeed,
}

/// The plugin's methods and the names it spares, for `canaries`.
fn canary_moves(canaries: Canaries) -> (&'static str, &'static str) {
    match canaries {
        Canaries::Unseen => ("", "set()"),
        Canaries::Dropped => (
            "
    @_pytest.hookimpl(hookwrapper=True)
    def pytest_collection_modifyitems(self, session, config, items):
        yield
        items[:] = [item for item in items if hasattr(item.module, item.originalname)]
",
            "set()",
        ),
        Canaries::SparedBySeed => ("", "_seeded(item.config)"),
    }
}

/// Names as the witness draws them from the seed a worker was handed, if it can read it.
const SEEDED_NAMES: &str = "
def _seeded(config):
    import random
    seed = getattr(config, \"workerinput\", {}).get(\"mend_canaries\")
    if seed is None:
        return set()
    chance = random.Random(seed)
    letters = \"abcdefghijklmnopqrstuvwxyz\"
    return {\"test_\" + \"\".join(chance.choice(letters) for _ in range(10)) for _ in range(3)}
";

/// The ledger whose package, at import, registers a plugin with pytest (found through the
/// assertion rewriter on `sys.meta_path`, no conftest) that turns every failed report into a
/// passed one, and treats the canaries as `canaries` says.
fn gamed_ledger(canaries: Canaries) -> tempfile::TempDir {
    let copy = copy_of(&project("ledger"));
    let (methods, spared) = canary_moves(canaries);
    let plugin = format!(
        "
import sys as _sys
import pytest as _pytest
{SEEDED_NAMES}

class _Tidy:
    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.failed and item.name not in {spared}:
            report.outcome = \"passed\"
            report.longrepr = None
{methods}

for _finder in _sys.meta_path:
    _config = getattr(_finder, \"config\", None)
    if _config is not None and not _config.pluginmanager.has_plugin(\"tidy\"):
        _config.pluginmanager.register(_Tidy(), \"tidy\")
"
    );
    let init = copy.path().join("ledger/__init__.py");
    let text = std::fs::read_to_string(&init).unwrap();
    std::fs::write(&init, format!("{text}{plugin}")).unwrap();
    copy
}

/// The run in two workers of `repo` is untrusted: a canary that must fail or error passed.
fn assert_a_canary_altered(repo: &Path) {
    let (code, run) = verify_in_two_workers(repo);
    // The canary named is whichever of the two altered ones comes first by its random id.
    let altered = |must: &str| {
        json!(format!(
            "the test outcomes were altered: a test mend placed among the project's, which must {must}, passed"
        ))
    };
    let reason = not_trusted(&run);
    assert!(
        code == 1 && (reason == altered("fail") || reason == altered("error")),
        "exit {code}: {reason}"
    );
}

/// `run` as the test interpreter's verdict gives it: on a Python without audit hooks (3.6, 3.7:
/// the matrix runs there) it names the check it could not make.
fn as_here(mut run: Value) -> Value {
    let runner = installed_runner();
    let version: Vec<u32> = runner["python"]
        .as_str()
        .unwrap()
        .split('.')
        .map(|part| part.parse().unwrap())
        .collect();
    if version[..2] < [3, 8][..] {
        run["unchecked"] = json!([not_checked()]);
    }
    run
}

/// Why the run is not trusted, in the words of its JSON.
fn not_trusted(run: &Value) -> Value {
    run.get("not_trusted")
        .unwrap_or_else(|| panic!("the run is trusted: {run}"))
        .clone()
}

#[test]
fn an_honest_run_in_two_workers_passes_with_the_projects_counts_and_ids() {
    assert_eq!(
        verify_in_two_workers(&project("ledger")),
        (
            1,
            as_here(json!({"exit_code": 1, "summary": counts(9, 2, 0), "failing": LEDGER_FAILING}))
        )
    );
    let repaired = repaired_ledger();
    assert_eq!(
        verify_in_two_workers(repaired.path()),
        (
            0,
            as_here(json!({"exit_code": 0, "summary": counts(11, 0, 0)}))
        )
    );
    // The failing canary stops neither a worker nor the controller (pytest 8 keeps a session's
    // stop once set), in two workers or in one process.
    for command in [
        r#"["python", "-m", "pytest", "-n", "2", "-x"]"#,
        r#"["python", "-m", "pytest", "-x"]"#,
    ] {
        assert_eq!(
            verify_with_command(repaired.path(), command),
            (
                0,
                as_here(json!({"exit_code": 0, "summary": counts(11, 0, 0)}))
            ),
            "{command}"
        );
    }
}

#[test]
fn failures_turned_into_passes_in_the_workers_are_caught_by_the_canaries() {
    let gamed = gamed_ledger(Canaries::Unseen);
    assert_a_canary_altered(gamed.path());
    // Without xdist the witness sees the plugin registered.
    let (code, run) = verdict(&verify(gamed.path(), &[]));
    assert_eq!(
        (code, not_trusted(&run)),
        (
            1,
            json!("a plugin was registered while the tests ran: the plugin 'tidy' registered after pytest was configured at ledger/__init__.py:36; pytest's hooks were altered: a new implementation of pytest_runtest_makereport (tidy) at ledger/__init__.py:24")
        )
    );
}

#[test]
fn a_run_in_two_workers_without_its_canaries_is_not_a_pass() {
    let gamed = gamed_ledger(Canaries::Dropped);
    let (code, run) = verify_in_two_workers(gamed.path());
    assert_eq!((code, not_trusted(&run)), (1, json!("the test outcomes were altered: the tests mend placed among the project's never ran, yet the session passed")));
}

/// The seed reaches the workers' witness alone: the project's code that reads it from xdist's
/// `workerinput` to spare the canaries finds none, and they catch the change.
#[test]
fn the_canaries_seed_is_gone_before_the_projects_code_can_read_it() {
    let gamed = gamed_ledger(Canaries::SparedBySeed);
    assert_a_canary_altered(gamed.path());
}
