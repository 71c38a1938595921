//! Copies whose attempt is over, put back for the next attempt on the same original instead of
//! a fresh copy (`mend eval`, `mend eval check`). A fresh copy of a big tree costs a file
//! creation per file (a second or more for sympy's 1,500 files on a busy ext4); a copy put back
//! costs a walk and the files that changed.
//!
//! Putting back is [`Workspace::reset`]: every entry whose inode or `ctime` moved since it was
//! made is copied again and every entry added is removed, and no process can set a `ctime` back,
//! so the next attempt gets what a fresh copy holds whatever the last one's tools, shell
//! commands or tests did in it. A copy is handed on only once no process of its attempt can
//! still write: under bubblewrap, whose process namespace ends every process of a run with it,
//! and without it where each command runs under mend's reaper (`exec::reaper`), which ends every
//! process the command left behind, however it left the command's group. On a kernel that cannot
//! name a process's children there is no reaper, and each attempt gets a fresh copy without
//! bubblewrap, as before. Each attempt has its copy alone while it runs; the original is only
//! read.

use std::sync::Mutex;
use std::time::Instant;

use camino::Utf8Path;

use crate::error::MendError;
use crate::exec::reaper;
use crate::exec::runner::TestRunner;
use crate::exec::sandbox::Sandbox;
use crate::exec::set_up::SetUp;
use crate::task::copy::Exclusion;
use crate::task::History;
use crate::workspace::Workspace;

/// The spare copies of one original.
#[derive(Default)]
pub struct Spares {
    /// Whether copies are handed on at all (`false`: every copy is fresh, every used one deleted).
    recycle: bool,
    copies: Mutex<Vec<Workspace>>,
}

impl Spares {
    /// Spares for the attempts that `runner` runs: handed on where no process of an attempt
    /// outlives it (bubblewrap, or mend's reaper).
    pub fn for_runner(runner: &TestRunner) -> Spares {
        Spares {
            recycle: runner.sandbox == Sandbox::Bwrap || reaper::available(),
            copies: Mutex::new(Vec::new()),
        }
    }

    /// A copy of `original` as [`Workspace::copy_of`] makes it: a spare put back when there is
    /// one (its copy time is the put back's), else a fresh copy. The runner's `set_up` is told
    /// that the spare's folder is no longer set up, as putting it back removed what it wrote.
    pub fn take(
        &self,
        original: &Utf8Path,
        (exclude, history): (&Exclusion, &History),
        set_up: Option<&SetUp>,
    ) -> Result<Workspace, MendError> {
        while let Some(mut spare) = self.pop() {
            let started = Instant::now();
            // A spare that cannot be put back here (the clock stood still, the original lost a
            // folder) is deleted as it drops.
            if let Ok(Some(_)) = spare.reset(original, exclude) {
                if let Some(set_up) = set_up {
                    set_up.forget(spare.root());
                }
                spare.set_copy_time(started.elapsed());
                return Ok(spare);
            }
        }
        Workspace::copy_of(original, exclude, history)
    }

    /// Keeps `workspace` for the next attempt when copies are handed on (`None`); hands it
    /// back when they are not, for the caller to keep or delete.
    #[must_use]
    pub fn give_back(&self, workspace: Workspace) -> Option<Workspace> {
        if !self.recycle {
            return Some(workspace);
        }
        match self.copies.lock() {
            Ok(mut copies) => {
                copies.push(workspace);
                None
            }
            Err(_) => Some(workspace),
        }
    }

    fn pop(&self) -> Option<Workspace> {
        self.copies.lock().ok()?.pop()
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::MetadataExt;
    use std::time::Duration;

    use camino::Utf8Path;
    use serde_json::{json, Value};

    use super::Spares;
    use crate::exec::runner::TestRunner;
    use crate::exec::sandbox::Sandbox;
    use crate::interrupt::Watch;
    use crate::task::{History, Task};
    use crate::test_support::project;
    use crate::tools::{execute, ToolContext, ToolRun};

    /// Every entry below `root` with its time and mode (links by target), and each file's
    /// inode count and text: what a test could see of a tree.
    fn state(root: &Utf8Path) -> Vec<(String, String)> {
        let mut seen = crate::workspace::tests::entries(root);
        for (path, shown) in &mut seen {
            let full = root.join(&*path);
            let meta = fs::symlink_metadata(&full).unwrap();
            if meta.is_file() {
                let text = fs::read_to_string(&full).unwrap();
                shown.push_str(&format!(" links {} {text:?}", meta.nlink()));
            }
        }
        seen
    }

    /// The tested code: writes in place, truncates, chmods, sets a time back, adds a file and a
    /// hard link, and leaves processes behind that write a second later, one in its group and
    /// one that left it for a session of its own.
    const TESTS: &str =
        "echo tested >> src/app/util.py; : > README.md; chmod 600 src/app/core.py; \
        touch -d 2001-01-01 src/conftest.py; mkdir -p build && echo o > build/out.o; \
        ln src/app/util.py src/app/util_link.py; (sleep 1; echo late >> src/app/core.py) & \
        setsid sh -c 'sleep 1; echo later >> src/app/util.py' & exit 0";

    fn task() -> Task {
        Task::parse(
            Utf8Path::new("mend.toml"),
            &format!(
                r#"
[paths]
readable = ["**"]
editable = ["src/**/*.py"]
[test]
command = ["sh", "-c", "{TESTS}"]
report = "exit_code"
timeout_seconds = 20
files = ["tests/*.py"]
[tools]
enabled = ["write_file", "replace_text", "run_tests", "shell"]
"#
            ),
        )
        .unwrap()
    }

    fn call(context: &ToolContext, name: &str, arguments: Value) {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let ran = execute(context, name, &arguments).unwrap();
        assert!(
            matches!(
                ran,
                ToolRun::Finished(mend_core::ToolOutcome::Success { .. })
            ),
            "{name}: {ran:?}"
        );
    }

    #[test]
    fn a_copy_handed_on_in_bubblewrap_is_fresh_whatever_tools_shell_and_tests_did() {
        handed_on_fresh(Sandbox::Bwrap);
    }

    #[test]
    fn a_copy_handed_on_without_a_sandbox_is_fresh_whatever_tools_shell_and_tests_did() {
        handed_on_fresh(Sandbox::Unsandboxed);
    }

    /// A used copy is handed on fresh, and no other attempt's copy nor the original changed.
    fn handed_on_fresh(sandbox: Sandbox) {
        let (_dir, original) = project(&[
            ("src/app/core.py", "def add(a, b):\n    return a - b\n"),
            ("src/app/util.py", "SEP = ','\n"),
            ("src/conftest.py", "# fixtures\n"),
            ("tests/test_core.py", "def test_add():\n    pass\n"),
            ("README.md", "A tiny app.\n"),
        ]);
        let task = task();
        let runner = TestRunner::new("/bin/false".into(), sandbox);
        let spares = Spares::for_runner(&runner);
        let take = || {
            spares
                .take(&original, (&task.exclude, &History::None), None)
                .unwrap()
        };
        let original_before = state(&original);
        let used = take();
        // Another attempt, running at the same time as the one that writes.
        let other = take();
        let fresh = state(other.root());
        let context = ToolContext {
            root: used.root(),
            task: &task,
            runner: &runner,
            watch: Watch::NONE,
        };
        call(
            &context,
            "write_file",
            json!({"path": "src/app/core.py", "text": "def add(a, b):\n    return a + b\n"}),
        );
        call(
            &context,
            "replace_text",
            json!({"path": "src/app/util.py", "old": "','", "new": "';'"}),
        );
        // The shell tool runs only inside a sandbox.
        if runner.sandbox == Sandbox::Bwrap {
            call(
                &context,
                "shell",
                json!({"command": "echo shell >> src/conftest.py; echo new > src/app/new.py; chmod 700 src"}),
            );
        }
        call(&context, "run_tests", json!({}));
        assert_ne!(state(used.root()), fresh, "the attempt changed its copy");
        assert_eq!(state(other.root()), fresh, "another attempt's copy changed");
        assert_eq!(state(&original), original_before, "the original changed");

        let used_root = used.root().to_owned();
        assert!(spares.give_back(used).is_none());
        let next = take();
        assert_eq!(next.root(), used_root, "the used copy is handed on");
        // The processes the tests left behind would write now: bubblewrap or the reaper ended
        // them with the tests.
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(
            (state(next.root()), state(other.root()), state(&original)),
            (fresh.clone(), fresh, original_before)
        );
    }
}
