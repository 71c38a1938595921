//! `mend verify` under each pytest line of the witness's matrix, next to the same tests run by
//! that pytest alone, in place, as a user runs them: what the whole verdict costs a pytest run —
//! the copy, the witness with its audit hook, checks and canaries, the AST reading of the tests
//! and of the change, reading no bytecode (the final run reads none it did not write), the
//! reports read — on the sample and on 1,000 generated tests. `mend verify` runs as the user
//! starts it (this build's binary, `--sandbox none`: bubblewrap's start is the verify rows'),
//! pytest alone with the same scrubbed environment and plugin autoload off, as both tasks set,
//! on copies in a scratch folder (pytest alone writes bytecode beside the sources; a first run
//! of each before the rounds writes it, and mend's mirror of the installation's).
//! A third run, that pytest alone on a copy with no bytecode of the project's own and writing
//! none (what mend's runs read: the installation's bytecode, none of the copy's), splits what
//! mend adds into compiling the project's sources and the rest. Rounds alternate; each figure
//! is the children's CPU time (`getrusage`), steadier than wall time on a shared machine; the
//! ratio is the median of each round's own ratio.

use std::process::{Command, Stdio};

use camino::{Utf8Path, Utf8PathBuf};

use super::witness_cost::{
    children_cpu_ms, generate_suite, median, pytest_version, python_version,
};
use super::{command, Row};

const ROUNDS: usize = 5;

pub fn measure() -> Vec<Row> {
    let root = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let scratch = tempfile::tempdir().unwrap();
    let generated = Utf8Path::from_path(scratch.path())
        .unwrap()
        .join("generated");
    generate_suite(&generated);
    std::fs::write(
        generated.join("mend.toml"),
        "[paths]\nreadable = [\"tests/*.py\"]\neditable = [\"tests/*.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 600\nfiles = [\"tests/*.py\"]\nplugins = false\n[tools]\nenabled = [\"run_tests\"]\n",
    )
    .unwrap();
    // A copy of the sample, as pytest alone writes its bytecode beside the sources it reads.
    let sample = Utf8Path::from_path(scratch.path()).unwrap().join("sample");
    copy_files(&root.join("sample-repo"), &sample);
    let projects = [("the sample", sample), ("1,000 generated tests", generated)];
    super::pytest_pythons(&root)
        .iter()
        .flat_map(|python| {
            let pytest = format!(
                "{} (Python {})",
                pytest_version(python),
                python_version(python)
            );
            projects
                .iter()
                .map(move |(name, repo)| row(&pytest, name, &measure_one(python, repo)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Median CPU times (ms) of pytest alone, pytest alone compiling the project's sources and
/// `mend verify`, and the median of the rounds' ratios of the last to the first.
struct Figures {
    alone: f64,
    compiling: f64,
    verify: f64,
    ratio: f64,
}

fn measure_one(python: &Utf8Path, repo: &Utf8Path) -> Figures {
    // A copy that never holds the project's bytecode, for the run that compiles its sources.
    let scratch = tempfile::tempdir().unwrap();
    let uncompiled = Utf8Path::from_path(scratch.path()).unwrap().join("repo");
    copy_files(repo, &uncompiled);
    // Before the rounds: pytest alone writes the project's bytecode, mend makes its mirror of
    // the installation's.
    cpu_ms(&mut pytest_alone(python, repo, false));
    cpu_ms(&mut mend_verify(python, repo));
    let mut runs: Vec<[f64; 3]> = Vec::new();
    for _ in 0..ROUNDS {
        runs.push([
            cpu_ms(&mut pytest_alone(python, repo, false)),
            cpu_ms(&mut pytest_alone(python, &uncompiled, true)),
            cpu_ms(&mut mend_verify(python, repo)),
        ]);
    }
    let column = |index: usize| median(runs.iter().map(|run| run[index]).collect());
    Figures {
        alone: column(0),
        compiling: column(1),
        verify: column(2),
        ratio: median(runs.iter().map(|run| run[2] / run[0]).collect()),
    }
}

fn row(pytest: &str, name: &str, figures: &Figures) -> Row {
    let extra = figures.verify - figures.alone;
    let compiling = figures.compiling - figures.alone;
    Row {
        figure: format!("`mend verify` (witness, AST reading, none of the copy's bytecode read; `--sandbox none`) ÷ pytest {pytest} alone in place, {name} (CPU time, median of {ROUNDS} rounds' ratios)"),
        measured: format!(
            "{:.2}× ({:.0} ms vs {:.0} ms): of the {extra:.0} ms added, compiling the project's sources {compiling:.0} ms ({:.2}× alone), the witness, AST reading and the rest of mend {:.0} ms ({:.3}× the run compiling them)",
            figures.ratio,
            figures.verify,
            figures.alone,
            figures.compiling / figures.alone,
            extra - compiling,
            figures.verify / figures.compiling,
        ),
        target: "≤ 1.05×".to_owned(),
        command: command("verify_per_line"),
    }
}

/// The task's command, `python -m pytest -q`, run by `python` in `repo` with the environment
/// mend gives the tests (and, when `write_none`, writing no bytecode, as mend's runs do).
fn pytest_alone(python: &Utf8Path, repo: &Utf8Path, write_none: bool) -> Command {
    let mut pytest = Command::new(python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(repo)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("LANG", "C.UTF-8")
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
    if write_none {
        pytest.env("PYTHONDONTWRITEBYTECODE", "1");
    }
    pytest
}

/// `mend verify` of `repo` with `python`, as a user starts it.
fn mend_verify(python: &Utf8Path, repo: &Utf8Path) -> Command {
    let mut verify = Command::new(env!("CARGO_BIN_EXE_mend"));
    verify.args([
        "verify",
        "--repo",
        repo.as_str(),
        "--python",
        python.as_str(),
        "--sandbox",
        "none",
    ]);
    verify
}

/// The version of `python`, as `python --version` names it.
/// The files under `from` (none of its bytecode) copied to `to`.
fn copy_files(from: &Utf8Path, to: &Utf8Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in from.read_dir_utf8().unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_files(entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `command` to its end, output dropped; the CPU time it and its children took, in ms.
fn cpu_ms(command: &mut Command) -> f64 {
    let before = children_cpu_ms();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // 0 or 1: a verdict (the sample has a failing test); anything else measured no test run.
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{command:?}: {status}"
    );
    children_cpu_ms() - before
}
