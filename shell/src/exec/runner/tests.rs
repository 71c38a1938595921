//! Tests of `runner`.

use std::ffi::OsStr;

use camino::Utf8PathBuf;

use super::{Extra, TestRunner};
use crate::exec::sandbox::Sandbox;
use crate::exec::toolchain::Host;
use crate::task::PythonPath;

fn env_of(command: &std::process::Command) -> Vec<(String, String)> {
    command
        .get_envs()
        .map(|(key, value)| {
            (
                key.to_string_lossy().into_owned(),
                value.unwrap_or_default().to_string_lossy().into_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

#[test]
fn the_test_process_gets_only_what_python_needs() {
    let runner = TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed);
    let argv = ["python", "-m", "pytest", "-q"].map(str::to_owned);
    let workdir = tempfile::tempdir().unwrap();
    let workdir = Utf8PathBuf::from_path_buf(workdir.path().to_path_buf()).unwrap();
    let command = runner.command(&argv, &workdir, Extra::NONE).unwrap();
    // env_clear() drops everything inherited (API keys included); these are all that is set.
    assert_eq!(
        env_of(&command),
        pairs(&[
            ("HOME", workdir.as_str()),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("PATH", "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"),
            ("PYTEST_ADDOPTS", "-p no:cacheprovider"),
            ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
            ("PYTHONHASHSEED", "0"),
            ("PYTHONNOUSERSITE", "1"),
            ("PYTHONPATH", workdir.as_str()),
            ("PYTHONPYCACHEPREFIX", "/dev/null/mend-reads-no-bytecode"),
        ])
    );
    let args: Vec<&OsStr> = command.get_args().collect();
    assert_eq!(command.get_program(), OsStr::new("/opt/venv/bin/python"));
    assert_eq!(args, ["-m", "pytest", "-q"].map(OsStr::new));
}

#[test]
fn the_copys_src_comes_first_then_the_task_roots_and_variables() {
    let workdir = tempfile::tempdir().unwrap();
    let workdir = Utf8PathBuf::from_path_buf(workdir.path().to_path_buf()).unwrap();
    std::fs::create_dir(workdir.join("src")).unwrap();
    let guessed = TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed);
    let argv = ["python", "-m", "pytest"].map(str::to_owned);
    let command = guessed.command(&argv, &workdir, Extra::NONE).unwrap();
    let pythonpath = |command: &std::process::Command| {
        env_of(command)
            .into_iter()
            .find(|(key, _)| key == "PYTHONPATH")
            .map(|(_, value)| value)
    };
    assert_eq!(
        pythonpath(&command),
        Some(format!("{workdir}/src:{workdir}"))
    );

    let chosen = TestRunner {
        pythonpath: PythonPath::Roots(vec!["lib".into(), ".".into()]),
        env: pairs(&[("CI", "1"), ("LANG", "en_US.UTF-8")]),
        ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
    };
    let command = chosen.command(&argv, &workdir, Extra::NONE).unwrap();
    assert_eq!(
        pythonpath(&command),
        Some(format!("{workdir}/lib:{workdir}"))
    );
    let set: Vec<(String, String)> = env_of(&command)
        .into_iter()
        .filter(|(key, _)| key == "CI" || key == "LANG")
        .collect();
    // The task's value wins over mend's default.
    assert_eq!(set, pairs(&[("CI", "1"), ("LANG", "en_US.UTF-8")]));

    let none = TestRunner {
        pythonpath: PythonPath::Roots(Vec::new()),
        ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
    };
    assert_eq!(
        pythonpath(&none.command(&argv, &workdir, Extra::NONE).unwrap()),
        None
    );
}

#[test]
fn path_keeps_the_users_folders_the_sandbox_shows_after_the_toolchains() {
    let runner = TestRunner {
        host: Host {
            path: vec![
                "/root/.cargo/bin".into(),
                "/root/.pyenv/shims".into(),
                "/opt/go/bin".into(),
                "/usr/bin".into(),
            ],
            ..Host::default()
        },
        ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Bwrap)
    };
    let argv = ["/bin/sh".to_owned()];
    let command = runner
        .command(&argv, "/tmp/ws".into(), Extra::NONE)
        .unwrap();
    let path = env_of(&command)
        .into_iter()
        .find(|(key, _)| key == "PATH")
        .map(|(_, value)| value);
    // /root is hidden and nothing under it was shown; /opt is visible as it is.
    assert_eq!(
        path.as_deref(),
        Some("/bin:/opt/venv/bin:/opt/go/bin:/usr/bin:/usr/local/bin")
    );
}

#[test]
fn plugin_autoload_is_the_tasks_choice() {
    let autoload = |plugins: bool| {
        let runner = TestRunner {
            plugins,
            ..TestRunner::new("/opt/venv/bin/python".into(), Sandbox::Unsandboxed)
        };
        let command = runner
            .command(&["python".to_owned()], "/tmp/ws".into(), Extra::NONE)
            .unwrap();
        env_of(&command)
            .into_iter()
            .find(|(key, _)| key == "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
            .map(|(_, value)| value)
    };
    assert_eq!([autoload(true), autoload(false)], [None, Some("1".into())]);
}

/// What pytest reads in a process a wrapper started, for a run that loads mend's plugin with
/// `plugins` autoloading allowed, the task's `env` and `words` after the command:
/// `PYTEST_ADDOPTS` as shlex.split splits it, and `PYTEST_PLUGINS`.
fn read_by_pytest(plugins: bool, env: &[(&str, &str)], words: &[&str]) -> (Vec<String>, String) {
    let workdir = tempfile::tempdir().unwrap();
    let workdir = Utf8PathBuf::from_path_buf(workdir.path().to_path_buf()).unwrap();
    let script = "python -c 'import json, os, shlex; print(json.dumps([shlex.split(os.environ[\"PYTEST_ADDOPTS\"]), os.environ[\"PYTEST_PLUGINS\"]]))'";
    let runner = TestRunner {
        env: pairs(env),
        plugins,
        ..TestRunner::new(crate::test_support::python(), Sandbox::Unsandboxed)
    };
    // The words after the script are the wrapper's own arguments: what the command names.
    let argv: Vec<String> = ["sh", "-c", script, "sh"]
        .iter()
        .chain(words)
        .map(|word| (*word).to_owned())
        .collect();
    let extra = Extra {
        pytest_plugin: Some("mend_witness"),
        ..Extra::NONE
    };
    let output = runner
        .command(&argv, &workdir, extra)
        .unwrap()
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn mends_plugin_reaches_pytest_behind_a_wrapper_as_an_installed_one_unless_the_run_needs_a_p() {
    let seen = read_by_pytest;
    let told = |addopts: &[&str], plugins: &str| {
        (
            addopts
                .iter()
                .map(|word| (*word).to_owned())
                .collect::<Vec<_>>(),
            plugins.to_owned(),
        )
    };
    // mend's own options, then mend's plugin named with `-p`.
    let named = told(
        &["-p", "no:cacheprovider", "-p", "mend_witness"],
        "mend_witness",
    );
    assert_eq!(
        [
            seen(true, &[], &[]),
            seen(
                true,
                &[
                    ("PYTEST_ADDOPTS", "-x --tb='line'"),
                    ("PYTEST_PLUGINS", "a.b")
                ],
                &[]
            ),
            seen(true, &[], &["-p", "no:xdist", "-pno:randomly"]),
            seen(false, &[], &[]),
            seen(true, &[("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "true")], &[]),
            seen(true, &[], &["--disable-plugin-autoload"]),
            seen(
                true,
                &[("PYTEST_ADDOPTS", "-q --disable-plugin-autoload")],
                &[]
            ),
            seen(true, &[("PYTEST_ADDOPTS", "")], &["-p", "tests.plugin"]),
            seen(true, &[], &["-ptests.plugin"]),
        ],
        [
            told(&["-p", "no:cacheprovider"], "mend_witness"),
            told(&["-x", "--tb=line"], "a.b,mend_witness"),
            told(&["-p", "no:cacheprovider"], "mend_witness"),
            named.clone(),
            named.clone(),
            named.clone(),
            told(
                &["-q", "--disable-plugin-autoload", "-p", "mend_witness"],
                "mend_witness"
            ),
            told(&["-p", "mend_witness"], "mend_witness"),
            named.clone(),
        ]
    );
}

#[test]
fn the_folders_a_venvs_path_files_add_are_shown_but_never_the_originals() {
    // Under /tmp, which bubblewrap hides: the venv, the folder its `.pth` adds, the original.
    let dir = tempfile::tempdir().unwrap();
    let root = camino::Utf8Path::from_path(dir.path()).unwrap();
    let venv = root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    let shared = root.join("shared/site-packages");
    let original = root.join("original");
    for folder in [&venv.join("bin"), &site, &shared, &original.join("src")] {
        std::fs::create_dir_all(folder).unwrap();
    }
    std::fs::write(venv.join("bin/python"), "").unwrap();
    std::fs::write(
        site.join("links.pth"),
        format!("{shared}\n{original}/src\n"),
    )
    .unwrap();
    let runner = TestRunner {
        original: Some(original.clone()),
        ..TestRunner::new(venv.join("bin/python"), Sandbox::Bwrap)
    };
    let toolchain = crate::exec::toolchain::Toolchain {
        program: "/bin/sh".into(),
        folders: Vec::new(),
        bin: Vec::new(),
        env: Vec::new(),
    };
    let view = runner.view(&toolchain, &[]);
    assert_eq!(
        (view.read_only, view.hidden),
        (vec![venv, shared], vec![original])
    );
}
