//! Runs one hook command as the tests run: `/bin/sh -c COMMAND` in the copy, inside the sandbox,
//! in a scrubbed environment and its own process group, with the JSON on stdin and stdout and
//! stderr kept apart. The whole group is killed when the hook ends or its time is up.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use camino::Utf8Path;

use crate::exec::runner::{Extra, TestRunner};
use crate::hooks::answer::Ending;
use crate::interrupt::{self, Cut, Watch, WATCH_TICK};

/// How much of each stream is kept; a hook's answer is short.
const CAPTURE_CAP_BYTES: usize = 256 * 1024;
/// How long to wait for the pipes to close once the group is gone.
const PIPE_DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Exit codes above this are a shell's (or bubblewrap's) report of a signal: 128 + its number.
const SIGNALLED_BASE: i32 = 128;
const LAST_SIGNAL: i32 = 64;

/// A hook's run: how it ended (or the cut that stopped it) and how long it took.
pub(crate) struct Spawned {
    pub ending: Result<Ending, Cut>,
    pub elapsed: Duration,
}

/// What a hook runs in: the runner that runs the tests, the copy, and when to give up.
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
    pub runner: &'a TestRunner,
    pub root: &'a Utf8Path,
    pub watch: Watch,
}

pub(crate) fn run(place: Place, command: &str, stdin: Vec<u8>, timeout: Duration) -> Spawned {
    let started = Instant::now();
    let ending = spawn_and_wait(place, command, stdin, timeout);
    Spawned {
        ending,
        elapsed: started.elapsed(),
    }
}

fn spawn_and_wait(
    place: Place,
    command: &str,
    stdin: Vec<u8>,
    timeout: Duration,
) -> Result<Ending, Cut> {
    let argv = ["/bin/sh", "-c", command].map(str::to_owned);
    let root = place.root.as_str();
    let env = [("CLAUDE_PROJECT_DIR", root), ("MEND_PROJECT_DIR", root)];
    let extra = Extra {
        env: &env,
        ..Extra::NONE
    };
    let mut process = match place.runner.command(&argv, place.root, extra) {
        Ok(process) => process,
        Err(err) => return Ok(Ending::CannotStart(err.to_string())),
    };
    process
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match process.spawn() {
        Ok(child) => child,
        Err(err) => return Ok(Ending::CannotStart(err.to_string())),
    };
    let Ok(group) = i32::try_from(child.id()) else {
        return Ok(Ending::CannotStart("no process id".to_owned()));
    };
    interrupt::set_child_group(Some(group));
    feed(&mut child, stdin);
    let stdout = child.stdout.take().map(capture);
    let stderr = child.stderr.take().map(capture);
    let waited = wait(child, timeout, place.watch);
    kill_group(group);
    interrupt::set_child_group(None);
    let (stdout, stderr) = (collect(stdout), collect(stderr));
    match waited {
        Waited::Exited(status) => Ok(ending_of(status, stdout, stderr)),
        Waited::TimedOut => Ok(Ending::TimedOut {
            seconds: timeout.as_secs(),
        }),
        Waited::Cut(cut) => Err(cut),
    }
}

fn ending_of(status: std::process::ExitStatus, stdout: String, stderr: String) -> Ending {
    match (status.code(), status.signal()) {
        (_, Some(signal)) => Ending::Killed { signal, stderr },
        (Some(code), None) if code > SIGNALLED_BASE && code <= SIGNALLED_BASE + LAST_SIGNAL => {
            Ending::Killed {
                signal: code - SIGNALLED_BASE,
                stderr,
            }
        }
        (code, None) => Ending::Exited {
            code: code.unwrap_or(-1),
            stdout,
            stderr,
        },
    }
}

/// Writes the JSON on its own thread (a hook that never reads stdin must not stall mend) and
/// closes stdin, so a hook reading to the end sees it.
fn feed(child: &mut Child, bytes: Vec<u8>) {
    if let Some(mut pipe) = child.stdin.take() {
        thread::spawn(move || {
            // A hook that exits without reading closes the pipe: nothing to report.
            let _ignored = pipe.write_all(&bytes);
        });
    }
}

enum Waited {
    Exited(std::process::ExitStatus),
    TimedOut,
    Cut(Cut),
}

fn wait(mut child: Child, timeout: Duration, watch: Watch) -> Waited {
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        let _receiver_gone = done_tx.send(child.wait());
    });
    let give_up = Instant::now() + timeout;
    loop {
        let now = Instant::now();
        if now >= give_up {
            return Waited::TimedOut;
        }
        match done_rx.recv_timeout(WATCH_TICK.min(give_up - now)) {
            Ok(Ok(status)) => return Waited::Exited(status),
            Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => return Waited::TimedOut,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(cut) = watch.check() {
                    return Waited::Cut(cut);
                }
            }
        }
    }
}

fn kill_group(group: i32) {
    // SAFETY: killpg only sends a signal; a group that is already gone yields ESRCH, ignored.
    unsafe {
        libc::killpg(group, libc::SIGKILL);
    }
}

fn capture(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buffer = [0u8; 8192];
        while let Ok(n @ 1..) = pipe.read(&mut buffer) {
            if kept.len() < CAPTURE_CAP_BYTES {
                kept.extend_from_slice(&buffer[..n]);
            }
        }
        let _receiver_gone = tx.send(kept);
    });
    rx
}

fn collect(capture: Option<mpsc::Receiver<Vec<u8>>>) -> String {
    let bytes = capture
        .and_then(|rx| rx.recv_timeout(PIPE_DRAIN_GRACE).ok())
        .unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}
