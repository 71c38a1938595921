//! `mend verify`'s own steps next to the same tests run in place, on generated projects whose
//! installed dependencies are big: a Python project with a 1,200-file venv, and node projects
//! with 6,000 and 60,000 files in `node_modules`. The steps are timed in-process (the task and
//! runner set up, the copy made, the sandbox started, the tests run, the copy deleted), the tests
//! in place as a plain process in the original.

use std::fs;
use std::process::{Command, Stdio};
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};
use mend::exec::runner::TestRunner;
use mend::exec::sandbox::{Sandbox, SandboxChoice};
use mend::task::Task;
use mend::verdict::check::independent_check;
use mend::workspace::Workspace;

use super::{command, Row};

const REPEATS: usize = 5;

/// One project's figures, medians of [`REPEATS`], in milliseconds.
struct Steps {
    setup: f64,
    copy: f64,
    sandbox_start: f64,
    tests: f64,
    cleanup: f64,
    in_place: f64,
}

impl Steps {
    fn total(&self) -> f64 {
        self.setup + self.copy + self.tests + self.cleanup
    }
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn measure_one(repo: &Utf8Path, python: &Utf8Path, in_place: &[&str]) -> Steps {
    let sandbox = Sandbox::resolve(SandboxChoice::Bwrap).unwrap();
    let mut runs: Vec<[f64; 6]> = Vec::new();
    for _ in 0..REPEATS {
        let started = Instant::now();
        let task = Task::locate(repo, None).unwrap();
        let runner =
            TestRunner::for_task(python.to_owned(), sandbox.clone(), &task, repo, None).unwrap();
        let setup = ms(started);
        let started = Instant::now();
        let workspace = Workspace::copy_of(repo, &task.exclude, &task.history).unwrap();
        let copy = ms(started);
        let started = Instant::now();
        let argv = ["true".to_owned()];
        let timeout = task.test.timeout;
        runner
            .run_argv(
                &argv,
                timeout,
                workspace.root(),
                mend::interrupt::Watch::NONE,
            )
            .unwrap();
        let sandbox_start = ms(started);
        let started = Instant::now();
        let run = independent_check(&runner, &task.test, workspace.root()).unwrap();
        let tests = ms(started);
        assert!(
            run.passed(),
            "the generated project's tests pass in the copy"
        );
        let cleanup = workspace.remove().unwrap().as_secs_f64() * 1e3;
        let started = Instant::now();
        let status = Command::new(in_place[0])
            .args(&in_place[1..])
            .current_dir(repo)
            // The environment mend gives the tests, whose size does not depend on the shell
            // the benchmark runs in (NODE_EXTRA_CA_CERTS alone adds ~150 ms to node's start).
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("LANG", "C.UTF-8")
            // What mend puts first on the import path of a project with `src/`.
            .env("PYTHONPATH", "src")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "the tests pass in place");
        runs.push([setup, copy, sandbox_start, tests, cleanup, ms(started)]);
    }
    let column = |index: usize| median(runs.iter().map(|run| run[index]).collect());
    Steps {
        setup: column(0),
        copy: column(1),
        sandbox_start: column(2),
        tests: column(3),
        cleanup: column(4),
        in_place: column(5),
    }
}

fn row(name: &str, steps: &Steps) -> Row {
    let total = steps.total();
    Row {
        figure: format!("`mend verify`'s steps (bwrap) ÷ the same tests in place (the same scrubbed environment), {name}, median of {REPEATS}"),
        measured: format!(
            "{:.2}× ({total:.0} ms vs {:.0} ms): setup {:.1} + copy {:.1} + tests {:.0} (of which sandbox start {:.0}) + cleanup {:.1} ms; outside the tests {:.1} %",
            total / steps.in_place,
            steps.in_place,
            steps.setup,
            steps.copy,
            steps.tests,
            steps.sandbox_start,
            steps.cleanup,
            (steps.setup + steps.copy + steps.cleanup) / total * 100.0,
        ),
        target: "≤ 1.3× or + 100 ms; outside ≤ 10 %".to_owned(),
        command: command("verify"),
    }
}

fn write(path: &Utf8Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A Python project with three tests and its own `.venv`: pytest reached through a `.pth` file
/// naming the venv `python` belongs to, and 1,200 generated modules in site-packages.
fn python_project(root: &Utf8Path, python: &Utf8Path) -> Utf8PathBuf {
    write(
        &root.join("src/calc/__init__.py"),
        "def add(a, b):\n    return a + b\n",
    );
    write(
        &root.join("tests/test_calc.py"),
        "from calc import add\n\n\ndef test_one():\n    assert add(1, 2) == 3\n\n\ndef test_two():\n    assert add(2, 2) == 4\n",
    );
    write(
        &root.join("mend.toml"),
        "[paths]\nreadable = [\"src/**/*.py\", \"tests/*.py\"]\neditable = [\"src/**/*.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\n[tools]\nenabled = [\"run_tests\"]\n",
    );
    let purelib = |python: &Utf8Path| {
        let output = Command::new(python)
            .args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ])
            .output()
            .unwrap();
        Utf8PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    };
    let venv = root.join(".venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", venv.as_str()])
        .status()
        .unwrap();
    assert!(made.success());
    let venv_python = venv.join("bin/python");
    let site = purelib(&venv_python);
    write(&site.join("mend-pytest.pth"), purelib(python).as_str());
    for package in 0..12 {
        for module in 0..100 {
            write(
                &site.join(format!("bulk{package}/m{module}.py")),
                &format!("VALUE = {module}\n"),
            );
        }
    }
    venv_python
}

/// A node project whose test loads five of its dependencies; `files` files in node_modules.
fn node_project(root: &Utf8Path, files: usize) {
    write(
        &root.join("test.js"),
        "const assert = require(\"assert\");\nfor (let i = 0; i < 5; i++) assert.strictEqual(require(\"dep-\" + i).value, i);\n",
    );
    write(
        &root.join("mend.toml"),
        "[paths]\nreadable = [\"*.js\"]\neditable = [\"*.js\"]\n[test]\ncommand = [\"node\", \"test.js\"]\ntimeout_seconds = 60\nreport = \"exit_code\"\n[tools]\nenabled = [\"run_tests\"]\n",
    );
    for package in 0..files / 100 {
        let folder = root.join(format!("node_modules/dep-{package}"));
        write(
            &folder.join("index.js"),
            &format!("module.exports = {{ value: {package} }};\n"),
        );
        for part in 0..99 {
            fs::write(folder.join(format!("part-{part}.js")), "").unwrap();
        }
    }
}

pub fn measure() -> Vec<Row> {
    let checkout = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let python = std::env::var("MEND_PYTHON")
        .map(Utf8PathBuf::from)
        .unwrap_or_else(|_| checkout.join(".venv/bin/python"));
    // Outside /tmp, as a user's project is: bubblewrap hides /tmp and shows the venv again.
    let scratch = checkout.join("target/bench-verify");
    fs::create_dir_all(&scratch).unwrap();
    let dir = tempfile::tempdir_in(&scratch).unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();

    let py = root.join("python");
    let venv_python = python_project(&py, &python);
    let python_steps = measure_one(
        &py,
        &venv_python,
        &[venv_python.as_str(), "-m", "pytest", "-q"],
    );
    let mut rows = vec![row("Python, 1,200-file venv", &python_steps)];
    let mut copies = Vec::new();
    for files in [6_000, 60_000] {
        let project = root.join(format!("node-{files}"));
        node_project(&project, files);
        let steps = measure_one(&project, &python, &["node", "test.js"]);
        rows.push(row(&format!("node, {files} files in node_modules"), &steps));
        copies.push(steps.setup + steps.copy + steps.cleanup);
    }
    rows.push(Row {
        figure: "setup + copy + cleanup with 60,000 files in node_modules − with 6,000".to_owned(),
        measured: format!(
            "{:+.1} ms ({:.1} vs {:.1} ms)",
            copies[1] - copies[0],
            copies[1],
            copies[0]
        ),
        target: "< 100 ms".to_owned(),
        command: command("verify"),
    });
    rows
}
