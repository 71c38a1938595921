//! The `shell` tool runs only in a sandbox; links inside the copy cannot carry a write to a
//! protected file.

use super::*;

/// The network-namespace sandbox, when `/bin/true` runs in it in `root`; `None` (said on
/// stderr) on a machine without namespaces, where only the refusal without a sandbox can be shown.
fn network_namespace(root: &camino::Utf8Path) -> Option<Sandbox> {
    let sandbox = Sandbox::NetworkNamespace { map_root: true };
    let runner = TestRunner::new("/bin/false".into(), sandbox.clone());
    let probe = runner
        .run_argv(
            &["/bin/true".to_owned()],
            std::time::Duration::from_secs(5),
            root,
            Watch::NONE,
        )
        .unwrap();
    if probe.status.is_none_or(|status| !status.success()) {
        eprintln!("skipped: unshare --net --map-root-user does not work here");
        return None;
    }
    Some(sandbox)
}

#[test]
fn shell_refuses_to_run_without_a_sandbox() {
    let (_dir, root) = general_workspace();
    assert_eq!(
        general(&root, "shell", json!({"command": "touch pwned"})),
        refused("the shell tool runs only inside a sandbox, and this run has none")
    );
    assert!(!root.join("pwned").exists());
}

#[test]
fn shell_runs_inside_the_sandbox_with_its_output_capped() {
    let (_dir, root) = general_workspace();
    let Some(sandbox) = network_namespace(&root) else {
        return;
    };
    let mut task = general_task();
    task.shell.output_chars = 10;
    assert_eq!(
        call_with(
            &task,
            sandbox,
            &root,
            "shell",
            json!({"command": "printf 'abcdefghijklmnop'; exit 3"})
        ),
        success(json!({"exit_code": 3, "output": "[… 6 characters cut …]\nghijklmnop"}))
    );
}

#[test]
fn a_link_inside_the_copy_cannot_carry_a_write_to_a_protected_file() {
    let (_dir, root) = general_workspace();
    std::os::unix::fs::symlink("../tests/test_core.py", root.join("src/evil.py")).unwrap();
    std::os::unix::fs::symlink("../tests", root.join("src/t")).unwrap();
    std::os::unix::fs::symlink("../README.md", root.join("src/readme.py")).unwrap();
    let cases = [
        (
            "write_file",
            json!({"path": "src/evil.py", "text": "def test_add(): pass\n"}),
            "`src/evil.py` is a link to `tests/test_core.py`, one of the task's test files, which no tool may change",
        ),
        (
            "replace_text",
            json!({"path": "src/evil.py", "old": "== 3", "new": "== -1"}),
            "`src/evil.py` is a link to `tests/test_core.py`, one of the task's test files, which no tool may change",
        ),
        (
            "write_file",
            json!({"path": "src/t/test_new.py", "text": "x"}),
            "`src/t/test_new.py` is a link to `tests/test_new.py`, one of the task's test files, which no tool may change",
        ),
        (
            "write_file",
            json!({"path": "src/readme.py", "text": "x"}),
            "`src/readme.py` is a link to `README.md`, which no tool may change",
        ),
    ];
    for (tool, arguments, message) in cases {
        assert_eq!(
            general(&root, tool, arguments.clone()),
            refused(message),
            "{arguments}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("tests/test_core.py")).unwrap(),
        "from app.core import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    );
    assert!(!root.join("tests/test_new.py").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("README.md")).unwrap(),
        "A tiny app; add() adds.\n"
    );
}

#[test]
fn a_link_to_another_editable_file_may_be_written() {
    let (_dir, root) = general_workspace();
    std::os::unix::fs::symlink("app/util.py", root.join("src/alias.py")).unwrap();
    assert_eq!(
        general(
            &root,
            "write_file",
            json!({"path": "src/alias.py", "text": "SEP = '|'\n"})
        ),
        success(json!({"path": "src/alias.py", "bytes": 10, "created": false}))
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/app/util.py")).unwrap(),
        "SEP = '|'\n"
    );
}

#[test]
fn shell_puts_back_the_test_files_and_configuration_a_command_changed() {
    let (_dir, root) = general_workspace();
    let Some(sandbox) = network_namespace(&root) else {
        return;
    };
    let command = "echo 'import os; os._exit(0)' > src/app/conftest.py; rm tests/test_core.py; \
                   echo 'SEP = 1' > src/app/util.py; echo done";
    assert_eq!(
        call_with(
            &general_task(),
            sandbox,
            &root,
            "shell",
            json!({"command": command})
        ),
        success(json!({
            "exit_code": 0,
            "output": "done\n",
            "protected": "the command changed `src/app/conftest.py`, test configuration (pytest runs it while collecting the tests); `tests/test_core.py`, one of the task's test files. No tool may change these: mend put them back as they were; change the code under test instead"
        }))
    );
    let read = |file: &str| std::fs::read_to_string(root.join(file)).ok();
    assert_eq!(
        [
            read("src/app/conftest.py"),
            read("tests/test_core.py"),
            read("src/app/util.py")
        ],
        [
            None,
            Some(
                "from app.core import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
                    .to_owned()
            ),
            Some("SEP = 1\n".to_owned())
        ]
    );
}
