//! What an attempt spends on copies of a project with a big `target/`: the copy made once, and
//! put back for the final tests after the tests rebuilt a few outputs, against the second full
//! copy the final tests used to get. Generated projects of 2,000 and 20,000 files in `target/`
//! (1 KB each); the "tests" rewrite 10 incremental files and the crate's own output, as a
//! rebuild after a one-line change does.

use std::fs;
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};
use mend::exec::sandbox::Sandbox;
use mend::task::copy::Exclusion;
use mend::workspace::Workspace;

use super::{command, Row};

const REPEATS: usize = 3;

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn project(root: &Utf8Path, files: usize) {
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let block = vec![7u8; 1024];
    for dep in 0..files / 100 {
        let folder = root.join(format!("target/debug/deps/dep{dep}"));
        fs::create_dir_all(&folder).unwrap();
        for part in 0..100 {
            fs::write(folder.join(format!("part{part}.o")), &block).unwrap();
        }
    }
    fs::create_dir_all(root.join("target/debug/incremental")).unwrap();
}

/// What a test run that rebuilt the crate writes in the copy.
fn rebuild(copy: &Utf8Path) {
    for file in 0..10 {
        fs::write(copy.join(format!("target/debug/incremental/s{file}")), "x").unwrap();
    }
    fs::write(copy.join("target/debug/app"), "rebuilt").unwrap();
}

/// (copy, put back, second copy, its cleanup), medians in milliseconds.
fn measure_one(repo: &Utf8Path) -> [f64; 4] {
    let exclude = Exclusion::defaults();
    let mut runs: Vec<[f64; 4]> = Vec::new();
    for _ in 0..REPEATS {
        let started = Instant::now();
        let mut copy = Workspace::copy_of(repo, &exclude, &mend::task::History::None).unwrap();
        let made = ms(started);
        rebuild(copy.root());
        let started = Instant::now();
        let changed = copy.reset(repo, &exclude).unwrap();
        let put_back = ms(started);
        assert_eq!(changed.map(|paths| paths.len()), Some(11));
        let started = Instant::now();
        let second = Workspace::copy_of(repo, &exclude, &mend::task::History::None).unwrap();
        let second_copy = ms(started);
        let second_cleanup = second.remove().unwrap().as_secs_f64() * 1e3;
        copy.remove().unwrap();
        runs.push([made, put_back, second_copy, second_cleanup]);
    }
    std::array::from_fn(|index| median(runs.iter().map(|run| run[index]).collect()))
}

/// A source tree the size of sympy's or django's: 1,500 files in 30 packages, 60 MB in all (most
/// files 20 KB, one in ten 200 KB, as data and fixtures are).
fn source_tree(root: &Utf8Path) {
    for file in 0..1_500 {
        let folder = root.join(format!("pkg{}/sub{}", file % 30, file % 7));
        fs::create_dir_all(&folder).unwrap();
        let size = if file % 10 == 0 { 200_000 } else { 22_000 };
        let text: String = format!("# module {file}\n").repeat(size / 16);
        fs::write(folder.join(format!("m{file}.py")), text).unwrap();
    }
}

/// What an attempt leaves in its copy of the big tree: two modules edited, a few hundred
/// files of build and cache output added.
fn attempt_writes(copy: &Utf8Path) {
    for file in [0, 1] {
        let path = copy.join(format!("pkg{file}/sub{file}/m{file}.py"));
        fs::write(path, "# edited by the attempt\n").unwrap();
    }
    for package in 0..30 {
        let cache = copy.join(format!("pkg{package}/__pycache__"));
        fs::create_dir_all(&cache).unwrap();
        for module in 0..10 {
            fs::write(cache.join(format!("m{module}.cpython-311.pyc")), "bytecode").unwrap();
        }
    }
}

/// The copy an attempt of an eval gets of a big source tree: the first attempt's fresh copy,
/// and a later one's, which is the used copy put back ([`mend::setup::spares`]: under bubblewrap,
/// and without it behind mend's reaper); beside it the fresh copy a later attempt got before.
/// Medians in milliseconds.
fn big_tree_row(root: &Utf8Path, sandbox: Sandbox) -> Row {
    let repo = root.join(format!("source-1500-{sandbox:?}"));
    source_tree(&repo);
    let exclude = Exclusion::defaults();
    let history = mend::task::History::None;
    let under = match sandbox {
        Sandbox::Bwrap => "under bubblewrap",
        _ => "without a sandbox",
    };
    let runner = mend::exec::runner::TestRunner::new("python3".into(), sandbox);
    let mut runs: Vec<[f64; 3]> = Vec::new();
    for _ in 0..REPEATS {
        let spares = mend::setup::spares::Spares::for_runner(&runner);
        let started = Instant::now();
        let first = spares.take(&repo, (&exclude, &history), None).unwrap();
        let first_ms = ms(started);
        attempt_writes(first.root());
        assert!(
            spares.give_back(first).is_none(),
            "a used copy is handed on {under}"
        );
        let started = Instant::now();
        let later = spares.take(&repo, (&exclude, &history), None).unwrap();
        let later_ms = ms(started);
        let started = Instant::now();
        let fresh = Workspace::copy_of(&repo, &exclude, &history).unwrap();
        let fresh_ms = ms(started);
        later.remove().unwrap();
        fresh.remove().unwrap();
        runs.push([first_ms, later_ms, fresh_ms]);
    }
    let [first, later, fresh]: [f64; 3] =
        std::array::from_fn(|index| median(runs.iter().map(|run| run[index]).collect()));
    Row {
        figure: format!("an attempt's copy of a 1,500-file, 60 MB source tree (sympy's or django's size), {under}: an attempt after the first (the last attempt's copy put back after it edited 2 files and added 300), median of {REPEATS}"),
        measured: format!("{later:.0} ms (the first attempt's fresh copy {first:.0} ms; a fresh copy instead {fresh:.0} ms)"),
        target: "≤ 300 ms".to_owned(),
        command: command("copies"),
    }
}

pub fn measure() -> Vec<Row> {
    let checkout = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let scratch = checkout.join("target/bench-copies");
    fs::create_dir_all(&scratch).unwrap();
    let dir = tempfile::tempdir_in(&scratch).unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    [2_000, 20_000]
        .into_iter()
        .map(|files| {
            let repo = root.join(format!("target-{files}"));
            project(&repo, files);
            let [made, put_back, second_copy, second_cleanup] = measure_one(&repo);
            Row {
                figure: format!("an attempt's copies, {files} files in `target/`, the tests rewrote 11: the copy put back for the final tests ÷ the second copy (and its cleanup) it replaces, median of {REPEATS}"),
                measured: format!(
                    "{:.2}× (put back {put_back:.0} ms vs second copy {second_copy:.0} + cleanup {second_cleanup:.0} ms; the first copy {made:.0} ms)",
                    put_back / (second_copy + second_cleanup),
                ),
                target: "< 0.5×".to_owned(),
                command: command("copies"),
            }
        })
        .chain([Sandbox::Bwrap, Sandbox::Unsandboxed].map(|sandbox| big_tree_row(root, sandbox)))
        .collect()
}
