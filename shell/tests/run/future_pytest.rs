//! A pytest mend does not know, where its witness cannot load: `mend run` stops before the loop
//! (before the model is asked anything) with one message naming the pytest, pluggy and Python it
//! met and what to do; the repository is untouched, and the run leaves its record, whole, saying
//! it ended so, and the copy the tests ran in, kept.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::server::Server;
use crate::common::turns::{say, script};
use crate::common::{
    installed_runner, live_run, mend, python_with_first, sample_copy, tree_digest, Outcome,
};

/// The test interpreter as a "pytest 10" would meet the witness: its `pytest.hookimpl` no longer
/// takes `trylast` from plugins outside pytest (its own moved with it, so they load as before).
/// A `sitecustomize`, in a folder named as installed packages' are, makes the change.
fn future_pytest(dir: &Path) -> PathBuf {
    let site = dir.join("lib/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("sitecustomize.py"),
        "import sys\n\nimport pytest\n\npytest.__version__ = \"10.0.0\"\n_hookimpl = pytest.hookimpl\n\n\n\
         def hookimpl(*args, **kwargs):\n    caller = sys._getframe(1).f_code.co_filename\n    \
         if \"trylast\" in kwargs and \"_pytest\" not in caller:\n        \
         raise TypeError(\"hookimpl() got an unexpected keyword argument 'trylast'\")\n    \
         return _hookimpl(*args, **kwargs)\n\n\npytest.hookimpl = hookimpl\n",
    )
    .unwrap();
    python_with_first(dir, &site)
}

/// What mend says of the witness under the "pytest 10" of `future_pytest`, and what to do.
fn why_and_fix() -> (String, &'static str) {
    let runner = installed_runner();
    let why = format!(
        "the test command `python -m pytest -q` gave no verdict: mend's pytest witness could not run under pytest 10.0.0, pluggy {}, Python {}: TypeError: hookimpl() got an unexpected keyword argument 'trylast'",
        runner["pluggy"].as_str().unwrap(),
        runner["python"].as_str().unwrap()
    );
    let fix = "this is mend's to fix, not the project's: please report it as an issue of mend, with this message. Until then, install a pytest mend is tested with (6.2 to 9.2: docs/pytest-versions.md) for the tests, or set test.report = \"junit\"";
    (why, fix)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The record of a run of the sample that reached its loop with the test interpreter: the
/// same settings, digests and files as any run with these flags made.
fn record_of_a_run_that_began(server: &Server) -> Value {
    let sample = sample_copy();
    let runs = tempfile::tempdir().unwrap();
    let record = runs.path().join("run.json");
    let outcome = live_run(&server.base, sample.path(), &record, &[]);
    assert_eq!(outcome.code, 1, "{}", outcome.stderr);
    read_json(&record)
}

/// What the record of the run that ended before its loop must hold, whole: a run that began,
/// without what only a begun run has (messages, tests, figures), its repository and
/// interpreter, and the harness error.
fn ended_before_loop(
    began: &Value,
    repo: &Path,
    python: &Path,
    message: &str,
    copy: &str,
) -> Value {
    let mut expected = began.clone();
    let fields = expected.as_object_mut().unwrap();
    for only_begun in ["tests_before", "ending", "metrics"] {
        fields.remove(only_begun);
    }
    fields.insert("messages".to_owned(), json!([]));
    fields.insert("repo".to_owned(), json!(repo.to_str().unwrap()));
    fields.insert("python".to_owned(), json!(python.to_str().unwrap()));
    fields.insert(
        "harness_error".to_owned(),
        json!({"at": "before_loop", "message": message, "copy": copy}),
    );
    expected
}

/// The record a run that ended before its loop wrote at `record`, what mend said and where the
/// copy is, after checking it said so in one message: what failed, with which pytest, and what
/// to do; then where the run's record and copy are.
fn ended_so(outcome: &Outcome, record: &Path) -> (Value, String, String) {
    let written = read_json(record);
    let copy = written["harness_error"]["copy"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let left = format!(
        "\nmend: the run ended before its loop: its record is {record} (`mend show {record}`), and the copy the tests ran in is kept at {copy}\n",
        record = record.display()
    );
    let message = outcome
        .stderr
        .split_once("mend: error: ")
        .and_then(|(_, rest)| rest.strip_suffix(&left))
        .unwrap_or_else(|| panic!("exit {}: {}", outcome.code, outcome.stderr));
    let (why, fix) = why_and_fix();
    assert!(
        outcome.code == 6 && message.starts_with(&why) && message.contains(fix),
        "exit {}: {}",
        outcome.code,
        outcome.stderr
    );
    assert!(Path::new(&copy).is_dir(), "no copy kept at {copy}");
    (written, message.to_owned(), copy)
}

#[test]
fn a_witness_that_cannot_load_before_the_loop_names_the_versions_and_what_to_do() {
    let interpreter = tempfile::tempdir().unwrap();
    let python = future_pytest(interpreter.path());
    let sample = sample_copy();
    let before = tree_digest(sample.path());
    let runs = tempfile::tempdir().unwrap();
    let record = runs.path().join("run.json");
    let server = Server::start(script(vec![say("I will look.")]));
    let outcome = live_run(
        &server.base,
        sample.path(),
        &record,
        &["--python", python.to_str().unwrap()],
    );
    assert_eq!(tree_digest(sample.path()), before, "the repository changed");
    let (written, message, copy) = ended_so(&outcome, &record);
    // The model was asked nothing: the server's one reply is still unsent.
    assert_eq!(server.chat_requests(), Vec::new());
    let began = record_of_a_run_that_began(&server);
    assert_eq!(
        written,
        ended_before_loop(&began, sample.path(), &python, &message, &copy)
    );
    // The copy is the sample as it was (the tests before wrote nothing that stays there).
    assert_eq!(tree_digest(Path::new(&copy)), before);
    std::fs::remove_dir_all(&copy).unwrap();

    assert_shown_and_refused(&record, &written);

    // Without --record, the record goes where every run's does: the repository's .mend/, the
    // only thing the run adds to it.
    let outcome = mend(&[
        "run",
        "--host",
        &server.base,
        "--repo",
        sample.path().to_str().unwrap(),
        "--sandbox",
        "none",
        "--python",
        python.to_str().unwrap(),
    ]);
    let mut after = tree_digest(sample.path());
    let names: Vec<String> = after
        .keys()
        .filter(|name| name.starts_with(".mend/"))
        .cloned()
        .collect();
    assert_eq!(outcome.code, 6, "{}", outcome.stderr);
    assert!(
        names.len() == 2 && names[0] == ".mend/.gitignore" && names[1].ends_with(".json"),
        "{names:?}"
    );
    let (at_home, message, copy) = ended_so(&outcome, &sample.path().join(&names[1]));
    let mut expected = written.clone();
    expected["harness_error"] = json!({"at": "before_loop", "message": message, "copy": copy});
    assert_eq!(at_home, expected);
    std::fs::remove_dir_all(&copy).unwrap();
    after.retain(|name, _| !name.starts_with(".mend/"));
    assert_eq!(after, before, "the repository changed");
}

/// `mend show` of the record says how the run ended, what mend said and where the copy is (its
/// page too); `mend replay` refuses it, saying why.
fn assert_shown_and_refused(record: &Path, written: &Value) {
    let path = record.to_str().unwrap();
    let end = &written["harness_error"];
    let message: String = end["message"]
        .as_str()
        .unwrap()
        .lines()
        .map(|line| format!("  {line}\n"))
        .collect();
    let digest = written["model_digest"].as_str().unwrap();
    let digest = &digest.strip_prefix("sha256:").unwrap_or(digest)[..12];
    let shown = mend(&["show", path]);
    assert_eq!(
        (shown.code, shown.stdout),
        (
            0,
            format!(
                "mend run of {} (ollama, digest {digest}) on {} — {path}\n\
                 Verdict: none (the run ended as a harness error before its loop; the model was asked nothing)\n\
                 Copy kept at: {}\nWhat mend said:\n{message}\
                 Time: model 0 ms · tools 0 ms · tests 0 ms · total 0 ms\n",
                written["model"].as_str().unwrap(),
                written["repo"].as_str().unwrap(),
                end["copy"].as_str().unwrap()
            )
        )
    );
    let page = mend(&["show", path, "--html", "-"]);
    assert!(
        page.code == 0
            && page.stdout.contains("No verdict: the run ended as a harness error before its loop; the model was asked nothing.")
            && page.stdout.contains("what mend said"),
        "{}",
        page.stderr
    );
    let replay = mend(&["replay", path]);
    assert_eq!(
        (replay.code, replay.stderr),
        (
            4,
            format!("mend: error: cannot replay {path}: the run ended as a harness error before its loop; the model was asked nothing. `mend show {path}` says why; start a new run once the cause is fixed\n")
        )
    );
}
