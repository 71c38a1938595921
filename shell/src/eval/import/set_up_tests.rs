use std::collections::BTreeSet;

use camino::Utf8Path;

use super::{
    plan, Planned, BUILD_WITH_PYPROJECT, BUILD_WITH_SETUP_PY, BUILT_IN_IMAGE, IMAGE_INSTALL, SYSTEM,
};
use crate::eval::import::specs::install::{covered, lookup};

/// A checkout holding `files` (name, text).
fn checkout(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

fn planned_for(repo: &str, version: &str, files: &[(&str, &str)]) -> Planned {
    let dir = checkout(files);
    let path = Utf8Path::from_path(dir.path()).expect("utf-8");
    plan(&lookup(repo, version).expect("in the table"), Some(path))
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| (*line).to_owned()).collect()
}

const SETUP_PY: (&str, &str) = ("setup.py", "from setuptools import setup\nsetup()\n");

#[test]
fn checkout_edits_and_the_build_run_while_the_system_lines_are_named() {
    assert_eq!(
        planned_for("pytest-dev/pytest", "6.3", &[SETUP_PY]),
        Planned {
            steps: owned(&["sed -i 's/>=>=/>=/' setup.cfg", BUILD_WITH_SETUP_PY]),
            env: Vec::new(),
            not_run: Vec::new(),
        }
    );
    assert_eq!(
        planned_for("django/django", "3.0", &[SETUP_PY]),
        Planned {
            steps: owned(&[BUILD_WITH_SETUP_PY]),
            env: owned(&[
                "LANG=en_US.UTF-8",
                "LANGUAGE=en_US:en",
                "LC_ALL=en_US.UTF-8"
            ]),
            not_run: vec![(
                "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen".to_owned(),
                SYSTEM
            )],
        }
    );
    let pyproject = (
        "pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n",
    );
    let matplotlib = planned_for("matplotlib/matplotlib", "3.8", &[pyproject]);
    assert_eq!(matplotlib.steps, [BUILD_WITH_PYPROJECT]);
    assert_eq!(matplotlib.not_run.len(), 7);
    let flit = (
        "pyproject.toml",
        "[build-system]\nrequires = [\"flit_core\"]\nbuild-backend = \"flit_core.buildapi\"\n",
    );
    let sphinx = planned_for("sphinx-doc/sphinx", "7.2", &[flit]);
    assert_eq!(sphinx.steps, ["sed -i 's/pytest/pytest -rA/' tox.ini"]);
    assert_eq!(
        sphinx
            .not_run
            .iter()
            .map(|(line, _)| line.as_str())
            .collect::<Vec<_>>(),
        [
            "apt-get update && apt-get install -y graphviz",
            "python -m pip install -e .[test]"
        ]
    );
    assert!(sphinx.not_run[1].1.contains("other than setuptools"));
}

#[test]
fn an_image_task_runs_none_of_the_harness_lines_but_keeps_its_variables() {
    let harness = lookup("django/django", "2.2").expect("in the table");
    let planned = plan(&harness, None);
    assert_eq!(
        planned,
        Planned {
            steps: Vec::new(),
            env: owned(&[
                "LANG=en_US.UTF-8",
                "LC_ALL=en_US.UTF-8",
                "PYTHONIOENCODING=utf8",
                "LANGUAGE=en_US:en"
            ]),
            not_run: vec![
                (
                    "apt-get update && apt-get install -y locales".to_owned(),
                    BUILT_IN_IMAGE
                ),
                (
                    "echo 'en_US UTF-8' > /etc/locale.gen".to_owned(),
                    BUILT_IN_IMAGE
                ),
                ("locale-gen en_US.UTF-8".to_owned(), BUILT_IN_IMAGE),
                ("python setup.py install".to_owned(), IMAGE_INSTALL),
            ],
        }
    );
}

/// Over the whole table: every install is one of the project itself, so a checkout with a
/// `setup.py` builds it; every line left out changes the system or needs the network.
#[test]
fn every_line_of_the_table_is_run_or_named_by_the_rule() {
    let dir = checkout(&[SETUP_PY]);
    let path = Utf8Path::from_path(dir.path()).expect("utf-8");
    let mut run = BTreeSet::new();
    let mut left_out = BTreeSet::new();
    for (repo, version) in covered() {
        let planned = plan(&lookup(repo, version).expect("covered"), Some(path));
        assert_eq!(
            planned.steps.last().map(String::as_str),
            Some(BUILD_WITH_SETUP_PY),
            "{repo} {version}"
        );
        for step in &planned.steps[..planned.steps.len() - 1] {
            run.insert(step.split(' ').next_back().unwrap_or("").to_owned());
        }
        for (line, why) in planned.not_run {
            assert_eq!(why, SYSTEM, "{line}");
            left_out.insert(line.split(['=', ' ']).next().unwrap_or("").to_owned());
        }
    }
    assert_eq!(
        run,
        BTreeSet::from(["pyproject.toml", "setup.cfg", "setup.py", "tox.ini"].map(str::to_owned))
    );
    assert_eq!(
        left_out,
        BTreeSet::from(
            [
                "QHULL_BUILD_DIR",
                "QHULL_TAR",
                "QHULL_URL",
                "apt-get",
                "echo",
                "locale-gen",
                "mkdir",
                "sed",
                "tar",
                "wget"
            ]
            .map(str::to_owned)
        )
    );
}

#[test]
fn shell_lines_split_into_commands_outside_quotes() {
    assert_eq!(
        super::commands(
            r#"grep -q 'a && b' setup.py && sed -i "s/'x',/'y'/" setup.py || sed -i 's/;/|/' setup.py; true"#
        ),
        [
            owned(&["grep", "-q", "a && b", "setup.py"]),
            owned(&["sed", "-i", "s/'x',/'y'/", "setup.py"]),
            owned(&["sed", "-i", "s/;/|/", "setup.py"]),
            owned(&["true"]),
        ]
    );
}

#[test]
fn an_eval_scripts_lines_run_by_the_same_rule_and_the_build_once() {
    let dir = checkout(&[SETUP_PY]);
    let path = Utf8Path::from_path(dir.path()).expect("utf-8");
    let lines = owned(&[
        "python -m pip install -e .",
        "sed -i 's/-rA/-rA -p no:cacheprovider/' tox.ini",
        "apt-get install -y graphviz",
        "pip install -e '.[test]'",
    ]);
    assert_eq!(
        super::plan_script(&lines, path),
        Planned {
            steps: owned(&[
                BUILD_WITH_SETUP_PY,
                "sed -i 's/-rA/-rA -p no:cacheprovider/' tox.ini"
            ]),
            env: Vec::new(),
            not_run: vec![("apt-get install -y graphviz".to_owned(), SYSTEM)],
        }
    );
}
