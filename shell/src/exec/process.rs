//! Runs a child process in its own process group with a timeout, capturing a bounded tail of its
//! output. When the child ends, or the time is up, the whole group is killed, and the child's
//! reaper (`exec::reaper`) ends what left the group, so no grandchild outlives the run.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::exec::reaper;
use crate::interrupt::{self, Cut, Watch, WATCH_TICK};

/// How much of each output stream is kept in memory; older bytes are dropped and counted.
const CAPTURE_CAP_BYTES: usize = 1 << 20;
/// How long to wait for the output pipes to close after the group was killed. A process that
/// escaped the group (setsid) could hold them open forever; its output is then abandoned.
const PIPE_DRAIN_GRACE: Duration = Duration::from_secs(2);

pub struct Finished {
    /// `None` when the run was killed (timeout or cut).
    pub status: Option<ExitStatus>,
    /// Set when the watch cut the run short (Ctrl-C or the run's deadline).
    pub cut: Option<Cut>,
    /// Standard output and standard error in the order the child wrote them (one pipe, as
    /// `2>&1` gives), decoded lossily.
    pub output: String,
    /// The output was longer than mend keeps: `output` is its end, the beginning was dropped.
    pub head_dropped: bool,
    pub elapsed: Duration,
}

impl Finished {
    pub fn timed_out(&self) -> bool {
        self.status.is_none() && self.cut.is_none()
    }
}

pub(crate) fn run_bounded(
    mut command: Command,
    timeout: Duration,
    watch: Watch,
) -> io::Result<Finished> {
    let (reader, writer) = pipe()?;
    command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    reaper::reap_after(&mut command);
    let started = Instant::now();
    let spawned = command.spawn();
    // The command holds this process's copies of the pipe's writing end: until they are closed,
    // reading would never see the end of the output.
    drop(command);
    let mut child = spawned?;
    let group = i32::try_from(child.id()).map_err(io::Error::other)?;
    interrupt::set_child_group(Some(group));
    let output = Some(capture(File::from(reader)));
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        let _receiver_gone = done_tx.send(child.wait());
    });
    let give_up = started + timeout;
    let mut cut = None;
    let status = loop {
        let now = Instant::now();
        if now >= give_up {
            break None;
        }
        match done_rx.recv_timeout(WATCH_TICK.min(give_up - now)) {
            Ok(status) => break Some(status?),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                cut = watch.check();
                if cut.is_some() {
                    break None;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
        }
    };
    kill_group(group);
    interrupt::set_child_group(None);
    if status.is_none() {
        // Reap the killed child so it does not linger as a zombie.
        let _ = done_rx.recv_timeout(PIPE_DRAIN_GRACE);
    }
    let elapsed = started.elapsed();
    let (output, head_dropped) = collect(output);
    Ok(Finished {
        status,
        cut,
        output,
        head_dropped,
        elapsed,
    })
}

/// A pipe whose two ends are closed in the child's programs (close-on-exec): the child gets the
/// writing end as its stdout and stderr through `Stdio`, which duplicates it.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes; on success both are open and
    // owned by nobody else, so each is handed to one OwnedFd.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

fn kill_group(group: i32) {
    // SAFETY: killpg only sends a signal; a group that is already gone yields ESRCH, ignored.
    unsafe {
        libc::killpg(group, libc::SIGKILL);
    }
}

/// The bytes kept, and whether older ones were dropped.
type Capture = mpsc::Receiver<(Vec<u8>, bool)>;

fn capture(mut pipe: impl Read + Send + 'static) -> Capture {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut dropped = false;
        let mut buffer = [0u8; 8192];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    kept.extend_from_slice(&buffer[..n]);
                    if kept.len() > CAPTURE_CAP_BYTES {
                        let excess = kept.len() - CAPTURE_CAP_BYTES;
                        kept.drain(..excess);
                        dropped = true;
                    }
                }
            }
        }
        let _receiver_gone = tx.send((kept, dropped));
    });
    rx
}

fn collect(capture: Option<Capture>) -> (String, bool) {
    let (bytes, dropped) = capture
        .and_then(|rx| rx.recv_timeout(PIPE_DRAIN_GRACE).ok())
        .unwrap_or_default();
    (String::from_utf8_lossy(&bytes).into_owned(), dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::alive;

    #[test]
    fn a_timeout_kills_the_whole_group_grandchildren_included() {
        let pid_file = tempfile::NamedTempFile::new().unwrap();
        let mut command = Command::new("/bin/sh");
        command.arg("-c").arg(format!(
            "sleep 60 & echo $! > {}; wait",
            pid_file.path().display()
        ));
        let finished = run_bounded(command, Duration::from_millis(300), Watch::NONE).unwrap();
        assert!(finished.timed_out());
        let grandchild: i32 = std::fs::read_to_string(pid_file.path())
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The killed grandchild may linger briefly as a zombie until init reaps it.
        let gone = (0..50).any(|_| {
            let stat =
                std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
            let zombie_or_gone = stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z");
            if !zombie_or_gone {
                thread::sleep(Duration::from_millis(20));
            }
            zombie_or_gone || !alive(grandchild)
        });
        assert!(gone, "the grandchild {grandchild} survived the timeout");
    }

    #[test]
    fn output_is_captured_in_the_order_written_and_the_status_kept() {
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg("echo out; echo err >&2; echo out again; echo err again >&2; exit 3");
        let finished = run_bounded(command, Duration::from_secs(10), Watch::NONE).unwrap();
        assert_eq!(
            (
                finished.status.and_then(|s| s.code()),
                finished.output.as_str()
            ),
            (Some(3), "out\nerr\nout again\nerr again\n")
        );
    }
}
