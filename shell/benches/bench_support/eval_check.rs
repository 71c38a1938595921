//! `mend eval check` on the shipped local suite (three Python tasks, each with a gold patch)
//! against the same test runs done alone: for each task, the check's three runs without a change
//! and three with the gold patch, as `python -m pytest -q` in place in plain copies. What is left
//! over is mend's: copies (put back after the first), set-up, sandbox, witness, reading. The
//! figure is CPU time (the children's `getrusage`: mend's whole process tree, or the runs'), the
//! median of each round's own ratio: on a shared 2-core machine wall time moved this row from
//! 1.33x to 1.44x between two runs of the same build; the wall ratio is shown beside it. And
//! `mend eval import` of 500 rows of SWE-bench's shape.

use std::fs;
use std::process::{Command, Stdio};
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};

use super::witness_cost::{children_cpu_ms, median};
use super::{command, Row};

/// Each side's runs per task, as the check makes them.
const RUNS: usize = 3;

/// Rounds of the whole comparison; the row gives the median of their ratios.
const ROUNDS: usize = 3;

/// What one side cost: wall and CPU milliseconds.
#[derive(Clone, Copy)]
struct Cost {
    wall: f64,
    cpu: f64,
}

/// What `work` gave, and what it cost in wall time and in its children's CPU time.
fn cost_of<T>(work: impl FnOnce() -> T) -> (T, Cost) {
    let (started, cpu) = (Instant::now(), children_cpu_ms());
    let given = work();
    let cost = Cost {
        wall: ms(started),
        cpu: children_cpu_ms() - cpu,
    };
    (given, cost)
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

fn copy_tree(from: &Utf8Path, to: &Utf8Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {from} {to}");
}

/// The suite's tasks: (folder in the checkout, gold patch name).
const TASKS: [(&str, &str); 3] = [
    ("sample-repo", "sample-repo"),
    ("fixtures/slugify-repo", "slugify-repo"),
    ("evals/local/paginate", "paginate"),
];

/// The six runs of each task alone: three of its tests as they are, three with the gold patch;
/// the copies and patching are not counted.
fn runs_alone(checkout: &Utf8Path, root: &Utf8Path, python: &Utf8Path) -> Cost {
    let mut total = Cost {
        wall: 0.0,
        cpu: 0.0,
    };
    for (folder, gold) in TASKS {
        let plain = root.join(format!("alone/{gold}"));
        let patched = root.join(format!("alone/{gold}-gold"));
        copy_tree(&checkout.join(folder), &plain);
        copy_tree(&checkout.join(folder), &patched);
        let patch = fs::read(checkout.join(format!("evals/local/gold/{gold}.patch"))).unwrap();
        let mut apply = Command::new("patch")
            .args(["-p1", "-s"])
            .current_dir(&patched)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(apply.stdin.as_mut().unwrap(), &patch).unwrap();
        assert!(apply.wait().unwrap().success(), "the gold patch applies");
        for tree in [&plain, &patched] {
            for _ in 0..RUNS {
                // Each task says `plugins = false`: mend's runs load no installed plugin either.
                let ((), run) = cost_of(|| {
                    Command::new(python)
                        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
                        .current_dir(tree)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .unwrap();
                });
                total.wall += run.wall;
                total.cpu += run.cpu;
            }
        }
    }
    total
}

pub fn measure() -> Vec<Row> {
    let checkout = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let python = std::env::var("MEND_PYTHON")
        .map(Utf8PathBuf::from)
        .unwrap_or_else(|_| checkout.join(".venv/bin/python"));
    // Outside /tmp, as a user's project is: bubblewrap hides /tmp.
    let scratch = checkout.join("target/bench-eval-check");
    fs::create_dir_all(&scratch).unwrap();
    let rounds: Vec<(Cost, Cost)> = (0..ROUNDS)
        .map(|_| one_round(&checkout, &scratch, &python))
        .collect();
    let ratio = |side: fn(&Cost) -> f64| {
        median(
            rounds
                .iter()
                .map(|(check, alone)| side(check) / side(alone))
                .collect(),
        )
    };
    let (cpu, wall) = (ratio(|cost| cost.cpu), ratio(|cost| cost.wall));
    let check_cpu = median(rounds.iter().map(|(check, _)| check.cpu).collect());
    let alone_cpu = median(rounds.iter().map(|(_, alone)| alone.cpu).collect());
    vec![Row {
        figure: format!("`mend eval check` (bwrap) of the local suite (3 tasks × {RUNS} runs without a change and {RUNS} with the gold patch) ÷ the same test runs alone (`python -m pytest -q` in place, no plugins autoloaded, as the tasks say); CPU time of each side's processes, median of {ROUNDS} rounds' ratios"),
        measured: format!(
            "{cpu:.2}× (medians {check_cpu:.0} ms vs {alone_cpu:.0} ms of CPU); wall {wall:.2}×"
        ),
        target: "≤ 1.3×".to_owned(),
        command: command("eval_check"),
    }]
}

/// One round: the check of a fresh copy of the suite, then the same runs alone.
fn one_round(checkout: &Utf8Path, scratch: &Utf8Path, python: &Utf8Path) -> (Cost, Cost) {
    let dir = tempfile::tempdir_in(scratch).unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    for path in [
        "evals/local/suite.toml",
        "evals/local/gold",
        "evals/local/paginate",
        "sample-repo",
        "fixtures/slugify-repo",
    ] {
        copy_tree(&checkout.join(path), &root.join(path));
    }
    let (output, check) = cost_of(|| {
        Command::new(env!("CARGO_BIN_EXE_mend"))
            .args([
                "eval",
                "check",
                "--sandbox",
                "bwrap",
                "--python",
                python.as_str(),
            ])
            .arg(root.join("evals/local/suite.toml"))
            .output()
            .unwrap()
    });
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (check, runs_alone(checkout, root, python))
}

/// One instance row of SWE-bench's shape.
fn instance(number: usize) -> String {
    let (repo, version) = [
        ("django/django", "3.0"),
        ("sympy/sympy", "1.12"),
        ("psf/requests", "2.4"),
    ][number % 3];
    let gold = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n";
    let test_patch = "diff --git a/test_calc.py b/test_calc.py\nnew file mode 100644\n--- /dev/null\n+++ b/test_calc.py\n@@ -0,0 +1,2 @@\n+def test_add():\n+    assert True\n";
    let row = serde_json::json!({
        "instance_id": format!("{}-{number}", repo.replace('/', "__")),
        "repo": repo,
        "base_commit": "0123456789abcdef",
        "patch": gold,
        "test_patch": test_patch,
        "problem_statement": "x".repeat(4000),
        "FAIL_TO_PASS": "[\"test_calc.py::test_add\"]",
        "PASS_TO_PASS": [],
        "version": version,
        "environment_setup_commit": "0123456789abcdef",
    });
    format!("{row}\n")
}

/// `mend eval import` of 500 rows (django's, sympy's and requests' repositories, each row's
/// image from the template, as SWE-bench's published rows are run), median of 3.
pub fn import_row() -> Row {
    let checkout = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let scratch = checkout.join("target/bench-eval-check");
    fs::create_dir_all(&scratch).unwrap();
    let dir = tempfile::tempdir_in(&scratch).unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let file = root.join("instances.jsonl");
    fs::write(&file, (0..500).map(instance).collect::<String>()).unwrap();
    let mut times: Vec<f64> = (0..3)
        .map(|round| {
            let started = Instant::now();
            let output = Command::new(env!("CARGO_BIN_EXE_mend"))
                .args(["eval", "import", file.as_str(), "--out"])
                .arg(root.join(format!("suite-{round}")))
                .args([
                    "--image-template",
                    "swebench/sweb.eval.x86_64.{docker_id}:latest",
                ])
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            ms(started)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Row {
        figure: "`mend eval import` of 500 SWE-bench rows (each row's image from a template), median of 3".to_owned(),
        measured: format!("{:.2} s", times[1] / 1e3),
        target: "≤ 10 s".to_owned(),
        command: command("eval_check"),
    }
}
