//! A pytest mend does not know, where its witness cannot load: `mend run` stops before the loop
//! (before the model is asked anything) with one message naming the pytest, pluggy and Python it
//! met and what to do; the repository is untouched and no half-written record is left.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::server::Server;
use crate::common::turns::{say, script};
use crate::common::{installed_runner, live_run, python, sample_copy, tree_digest};

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
    let script = dir.join("python");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nPYTHONPATH=\"{}${{PYTHONPATH:+:$PYTHONPATH}}\" exec \"{}\" \"$@\"\n",
            site.display(),
            python().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
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
    let runner = installed_runner();
    let why = format!(
        "mend's pytest witness could not run under pytest 10.0.0, pluggy {}, Python {}: TypeError: hookimpl() got an unexpected keyword argument 'trylast'",
        runner["pluggy"].as_str().unwrap(),
        runner["python"].as_str().unwrap()
    );
    let fix = "this is mend's to fix, not the project's: please report it as an issue of mend, with this message. Until then, install a pytest mend is tested with (6.2 to 9.2: docs/pytest-versions.md) for the tests, or set test.report = \"junit\"";
    assert!(
        outcome.code == 6 && outcome.stderr.contains(&why) && outcome.stderr.contains(fix),
        "{}{}",
        outcome.stdout,
        outcome.stderr
    );
    assert_eq!(tree_digest(sample.path()), before, "the repository changed");
    // (A run that never reached the model writes no record yet: nothing half-written.)
    assert_eq!(
        std::fs::read_dir(runs.path()).unwrap().count(),
        0,
        "a record was left behind"
    );
}
