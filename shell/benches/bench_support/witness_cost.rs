//! What mend's witness costs a pytest run: the run with it (its archive on the path, its code
//! compiled and named as mend hands it over) against the same tests run by pytest alone, on the sample
//! and on a generated 1,000-test suite; and, to say where it goes, the witness without its
//! guards (the audit hook's judging, the per-test checks of pytest and pluggy, the canary
//! tests), which still reports every test over its socket. Each figure is a run's CPU time
//! (user + system, as `wait4` counts it); the runs compared are made side by side, one core each
//! ([`super::side_by_side`]), which holds the ratio of a round steady where one run after another
//! does not. The ratio is the median of the rounds' own ratios, given with the middle half of
//! them. Measured with mend's own pytest, then with each pytest line of the witness's matrix
//! ([`super::pytest_pythons`]).

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::process::{Command, Stdio};
use std::thread;

use camino::{Utf8Path, Utf8PathBuf};
use mend::verdict::read::test_run::witness_body;
use mend::verdict::read::witness_code::HandedOver;

use super::side_by_side::cpu_ms_side_by_side;
use super::{command, Row};

const ROUNDS: usize = 15;

/// The witness with its guards taken out: an audit hook that takes the witness's own hand-overs
/// and judges nothing else (the witness's hooks reach its core through it, and the core asks who
/// handed each over), no per-test check, no canaries.
fn unguarded() -> String {
    let cuts = [
        (
            "            heard(event, args)\n        elif event == \"mend_witness\"",
            "            pass\n        elif event == \"mend_witness\"",
        ),
        (
            "        check_hot()\n        check_hooks()\n        check_item(nodeid)\n        item = items.get(nodeid)\n        if item is not None:\n            setup(item)\n",
            "",
        ),
        (
            "        place_canaries(items)\n",
            "        send(event=\"canaries\", **{\"pass\": None, \"fail\": None, \"error\": None})\n",
        ),
    ];
    let mut text = witness_body();
    for (guard, without) in cuts {
        assert!(text.contains(guard), "the witness no longer has {guard:?}");
        text = text.replace(guard, without);
    }
    text
}

pub fn measure() -> Vec<Row> {
    let root = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    super::pytest_pythons(&root)
        .iter()
        .flat_map(|python| measure_with(&root, python))
        .collect()
}

/// The rows of one Python with pytest: the sample and the generated suite.
fn measure_with(root: &Utf8Path, python: &Utf8Path) -> Vec<Row> {
    let pytest = format!(
        "{} (Python {})",
        pytest_version(python),
        python_version(python)
    );
    let scratch = tempfile::tempdir().unwrap();
    let scratch = Utf8Path::from_path(scratch.path()).unwrap().to_owned();
    let generated = scratch.join("generated");
    generate_suite(&generated);
    let plugins = [("guarded", witness_body()), ("plain", unguarded())].map(|(name, text)| {
        let folder = scratch.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let handed = HandedOver::write(&folder, python, &text).unwrap();
        assert_eq!(handed.compiled_parts(), 2, "the witness compiles");
        Some(handed.import_path().to_owned())
    });
    // pytest alone, the witness, the witness without its guards.
    let runs = [None, plugins[0].clone(), plugins[1].clone()];
    let socket = scratch.join("witness.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            thread::spawn(move || BufReader::new(stream).lines().map_while(Result::ok).count());
        }
    });
    [
        ("the sample", root.join("sample-repo")),
        ("1,000 generated tests", generated),
    ]
    .into_iter()
    .map(|(name, repo)| {
        // Each round: pytest alone beside the witness, then the witness without its guards
        // beside the witness.
        let mut cpu = [Vec::new(), Vec::new(), Vec::new()];
        let (mut whole, mut guards) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let run = |plugin: Option<&Utf8Path>| pytest_run(python, &repo, plugin, &socket);
            let [alone, witness] =
                cpu_ms_side_by_side(&mut run(None), &mut run(runs[1].as_deref()), round);
            let [plain, guarded] = cpu_ms_side_by_side(
                &mut run(runs[2].as_deref()),
                &mut run(runs[1].as_deref()),
                round,
            );
            whole.push(witness / alone);
            guards.push(guarded / plain);
            cpu[0].push(alone);
            cpu[1].push(witness);
            cpu[2].push(plain);
        }
        let [low, ratio, high] = quartiles(whole);
        let guards = median(guards);
        let [alone, witness, plain] = cpu.map(median);
        Row {
            figure: format!("mend's witness: a pytest {pytest} run of {name} with it ÷ pytest alone (CPU time, the two side by side; median of {ROUNDS} rounds' ratios)"),
            measured: format!("{ratio:.3}× (middle half of the rounds {low:.3}–{high:.3}×; medians {witness:.0} / {alone:.0} ms); its guards (the audit hook's judging, checks, canaries) {guards:.3}× the witness without them ({plain:.0} ms)"),
            target: "≤ 1.05×".to_owned(),
            command: command("witness"),
        }
    })
    .collect()
}

/// The pytest `python` has, as `pytest --version` would name it.
pub fn pytest_version(python: &Utf8Path) -> String {
    printed_by(python, "import pytest; print(pytest.__version__)")
}

/// The version of `python` itself.
pub fn python_version(python: &Utf8Path) -> String {
    printed_by(python, "import platform; print(platform.python_version())")
}

/// What `python` prints running `program`, trimmed.
fn printed_by(python: &Utf8Path, program: &str) -> String {
    let output = Command::new(python).args(["-c", program]).output().unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// 20 modules of 50 tests each.
pub fn generate_suite(repo: &Utf8Path) {
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    for module in 0..20 {
        let tests: String = (0..50)
            .map(|test| {
                format!(
                    "def test_{test}():\n    assert {test} + 1 == {}\n\n",
                    test + 1
                )
            })
            .collect();
        std::fs::write(repo.join(format!("tests/test_m{module}.py")), tests).unwrap();
    }
}

/// A pytest run of `repo`, with the witness in `plugin` or alone, quiet.
fn pytest_run(
    python: &Utf8Path,
    repo: &Utf8Path,
    plugin: Option<&Utf8Path>,
    socket: &Utf8Path,
) -> Command {
    let mut pytest = Command::new(python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(repo)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTEST_ADDOPTS")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(plugin) = plugin {
        // As mend runs it where pytest loads its installed plugins: the witness's archive on
        // the path, where pytest finds it as the first of them, the copy's folder named (the
        // checks of what pytest read from outside it, of what of it ran first or in place of
        // another module), and no JUnit report (the witness's account is the report).
        pytest
            .env("PYTHONPATH", plugin)
            .env("MEND_WITNESS", socket)
            .env("MEND_WITNESS_COPY", repo)
            .env("PYTEST_PLUGINS", "mend_witness");
    }
    pytest
}

/// The CPU time of every child waited for so far.
pub fn children_cpu_ms() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given and keeps no pointer to it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let ms = |time: libc::timeval| time.tv_sec as f64 * 1000.0 + time.tv_usec as f64 / 1000.0;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The first quartile, the median and the third quartile of `values`.
fn quartiles(mut values: Vec<f64>) -> [f64; 3] {
    values.sort_by(f64::total_cmp);
    let at = |share: usize| values[(values.len() - 1) * share / 4];
    [at(1), at(2), at(3)]
}
