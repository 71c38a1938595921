//! Running the real `mend` binary from the repository root, and fingerprinting directories.
// Every area's binary compiles all of common and uses a part of it: what one area leaves unused
// another uses.
#![allow(dead_code)]

pub mod browser;
pub mod otlp;
pub mod server;
pub mod turns;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The record fixtures/NAME.json, parsed.
pub fn fixture(name: &str) -> Value {
    let path = repo_root().join(format!("fixtures/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What `shell/tests/interop/atif_check.py` read of each ATIF file, once the `atif` package's
/// models validated it (a refusal fails the test with their words).
pub fn atif_checked(files: &[PathBuf]) -> Vec<Value> {
    let mut command = Command::new(python());
    command
        .arg(repo_root().join("shell/tests/interop/atif_check.py"))
        .args(files);
    let checked = Outcome::from(command.output().unwrap());
    assert_eq!(
        checked.code, 0,
        "the atif models refused a trajectory:\n{}",
        checked.stderr
    );
    serde_json::from_str(&checked.stdout).unwrap()
}

/// The interpreter with pytest: `MEND_PYTHON` (the Makefile sets it), else the project venv.
/// A missing interpreter fails the test with the fix, never skips it.
pub fn python() -> PathBuf {
    let python = std::env::var_os("MEND_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python with pytest at {} — run `make venv` (or `make test`)",
        python.display()
    );
    python
}

/// A `python` in `dir` that runs the test interpreter with `site` first on its import path: a
/// stand-in for an interpreter whose standard library or pytest is not what mend expects.
pub fn python_with_first(dir: &Path, site: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("python");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nPYTHONPATH=\"{}${{PYTHONPATH:+:$PYTHONPATH}}\" exec \"{}\" \"$@\"\n",
            site.display(),
            python().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// What mend's witness must name as the grading of a run by `python()`: its pytest's, pluggy's
/// and Python's versions, asked of the interpreter itself.
pub fn installed_runner() -> Value {
    let output = Command::new(python())
        .args([
            "-c",
            "import json, sys, pytest, pluggy; print(json.dumps({'pytest': pytest.__version__, \
             'pluggy': pluggy.__version__, 'python': '%d.%d.%d' % sys.version_info[:3]}))",
        ])
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Outcome {
    fn from(output: Output) -> Outcome {
        Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Outcome {
    /// The `run` of the `tests_after` event of a `--json` run; a run without one fails with its
    /// output.
    pub fn tests_after(&self) -> Value {
        self.events()
            .into_iter()
            .find(|event| event["type"] == "tests_after")
            .map(|event| event["run"].clone())
            .unwrap_or_else(|| panic!("no tests_after event:\n{}\n{}", self.stdout, self.stderr))
    }

    /// The JSONL events of a `--json` run, every line parsed (a line that is not JSON fails).
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|err| panic!("not a JSON event ({err}): {line}"))
            })
            .collect()
    }
}

pub fn mend(args: &[&str]) -> Outcome {
    mend_in(&repo_root(), args)
}

pub fn mend_in(dir: &Path, args: &[&str]) -> Outcome {
    mend_with_env(dir, args, &[])
}

/// This process's umask, which a mend it starts inherits, as Linux reports it (umask(2) would
/// change it for every other test thread to read it).
pub fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("Umask:"))
        .unwrap();
    u32::from_str_radix(line.trim(), 8).unwrap()
}

/// Runs mend with extra variables in its own environment.
pub fn mend_with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let output = mend_command(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the mend binary runs");
    Outcome::from(output)
}

/// The mend binary as a command to start in `dir` with the test interpreter, for a test that
/// talks to it while it runs.
pub fn mend_command(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mend"));
    command.current_dir(dir).env("MEND_PYTHON", python());
    command
}

/// The arguments of `mend COMMAND` (`run` or `chat`) on `repo` against the loopback server at
/// `base`, recorded to `record`, in the sandbox the task file names (or the default).
pub fn args_against<'a>(
    command: &'a str,
    base: &'a str,
    repo: &'a Path,
    record: &'a Path,
) -> Vec<&'a str> {
    vec![
        command,
        "--host",
        base,
        "--repo",
        repo.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ]
}

/// `args_against`, without a sandbox.
pub fn live_args<'a>(
    command: &'a str,
    base: &'a str,
    repo: &'a Path,
    record: &'a Path,
) -> Vec<&'a str> {
    [
        args_against(command, base, repo, record).as_slice(),
        &["--sandbox", "none"],
    ]
    .concat()
}

/// `mend run` as `live_args` says, with `extra` arguments, to its end.
pub fn live_run(base: &str, repo: &Path, record: &Path, extra: &[&str]) -> Outcome {
    mend(&[live_args("run", base, repo, record).as_slice(), extra].concat())
}

/// `mend run --json` as `args_against` says, in bubblewrap, with `extra` arguments, to its end.
pub fn bwrap_run(base: &str, repo: &Path, record: &Path, extra: &[&str]) -> Outcome {
    let bwrap = ["--json", "--sandbox", "bwrap"];
    mend(
        &[
            args_against("run", base, repo, record).as_slice(),
            &bwrap,
            extra,
        ]
        .concat(),
    )
}

/// `mend ARGS` (a chat) with `input` typed on its stdin, to its end.
pub fn typed_into(args: &[&str], input: &str) -> Outcome {
    let mut child = mend_command(&repo_root())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mend binary runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    // Closing stdin is the end of the input, as Ctrl-D is at a terminal.
    drop(stdin);
    Outcome::from(child.wait_with_output().unwrap())
}

/// Waits (bounded) until `ready` holds; the bound only keeps a broken test from hanging.
pub fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < give_up, "gave up waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ctrl-C for a mend the test started.
pub fn sigint(child: &Child) {
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill only sends a signal, to our own child.
    unsafe { libc::kill(pid, libc::SIGINT) };
}

/// Every file below `root` (relative path → SHA-256 of its bytes, or of a link's target).
pub fn tree_digest(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            walk(root, &path, files);
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            files.insert(relative, format!("link:{}", target.display()));
        } else {
            let digest = Sha256::digest(std::fs::read(&path).unwrap());
            files.insert(
                relative,
                digest.iter().map(|byte| format!("{byte:02x}")).collect(),
            );
        }
    }
}

/// A throwaway copy of the sample to tamper with.
pub fn sample_copy() -> tempfile::TempDir {
    copy_of(&repo_root().join("sample-repo"))
}

/// A throwaway copy of any folder.
pub fn copy_of(folder: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(folder, dir.path());
    dir
}

/// A throwaway copy of any folder inside `parent` (e.g. outside /tmp, which bubblewrap hides
/// anyway, to see what the sandbox itself hides).
pub fn copy_of_in(folder: &Path, parent: &Path) -> tempfile::TempDir {
    std::fs::create_dir_all(parent).unwrap();
    let dir = tempfile::tempdir_in(parent).unwrap();
    copy_dir(folder, dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            std::fs::create_dir(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
