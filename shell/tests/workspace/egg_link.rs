//! An old-style editable install (fixtures/projects/egg-link: an egg-link and an
//! easy-install.pth line naming the checkout's lib/, as `setup.py develop` writes them): the
//! copy's lib/ is what the tests import, under bubblewrap (which hides the original) and
//! without a sandbox (where the original is in reach).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{copy_of_in, mend, python, repo_root};
use serde_json::json;

/// Outside /tmp, which bubblewrap hides wholesale: only mend's own hiding of the original is
/// tested.
fn visible_scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("egg-link")
}

fn python_says(python: &Path, code: &str) -> String {
    let output = Command::new(python).args(["-c", code]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A venv whose site-packages names `original/lib` as `setup.py develop` does, with mend's
/// pytest reachable through one more `.pth`.
fn developed_venv(venv: &Path, original: &Path) -> PathBuf {
    let made = Command::new(python())
        .args(["-m", "venv", "--without-pip", venv.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let venv_python = venv.join("bin/python");
    let site = PathBuf::from(python_says(
        &venv_python,
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ));
    let lib = original.join("lib");
    std::fs::write(site.join("quire.egg-link"), format!("{}\n.", lib.display())).unwrap();
    std::fs::write(
        site.join("easy-install.pth"),
        format!("{}\n", lib.display()),
    )
    .unwrap();
    let pytest_site = python_says(
        &python(),
        "import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))",
    );
    std::fs::write(site.join("mend-pytest.pth"), format!("{pytest_site}\n")).unwrap();
    venv_python
}

#[test]
fn an_egg_link_to_the_original_imports_the_copy_under_either_sandbox() {
    let scratch = visible_scratch();
    let original = copy_of_in(&repo_root().join("fixtures/projects/egg-link"), &scratch);
    let venv = tempfile::tempdir_in(&scratch).unwrap();
    let venv_python = developed_venv(venv.path(), original.path());
    // The venv imports the original, as a user's does.
    assert_eq!(
        python_says(
            &venv_python,
            "import quire, os; print(os.path.dirname(quire.__file__))"
        ),
        original
            .path()
            .join("lib/quire")
            .canonicalize()
            .unwrap()
            .to_string_lossy()
    );
    for sandbox in ["bwrap", "none"] {
        let outcome = mend(&[
            "verify",
            "--json",
            "--sandbox",
            sandbox,
            "--python",
            venv_python.to_str().unwrap(),
            "--repo",
            original.path().to_str().unwrap(),
        ]);
        let run = outcome.tests_after();
        assert_eq!(
            (outcome.code, run["summary"].clone()),
            (
                0,
                json!({"passed": 3, "failed": 0, "errors": 0, "skipped": 0})
            ),
            "{sandbox}: {}\n{}",
            run["output_tail"],
            outcome.stderr
        );
    }
}
