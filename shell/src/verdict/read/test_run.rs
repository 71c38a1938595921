//! The one door of a verdict's test run: the task's test command run once, and what came back
//! handed over as it is — the process's end, the JUnit file a task names (`test.report =
//! "junit"`), and, for pytest, what mend's witness plugin said over a socket as each test
//! finished. Reading and judging all of it is the verdict's job (`verdict::check`).
//!
//! The witness is a pytest plugin (`trust/witness/body/`) loaded from a folder of its own outside
//! the copy, as the first installed plugin pytest loads (or with `-p`; `exec::runner`): it connects to a socket mend listens on in that folder and sends
//! one sealed JSON line per event, which is pytest's report to mend (pytest is asked for no
//! JUnit file: what it would say, the witness has heard already, and writing it cost a run 5–7 %
//! on its own). The code under test runs in the same process, so nothing it does
//! is impossible to forge; the witness makes a forgery visible: its lines are sealed with a key
//! the code under test never sees, it says when pytest's session ended and with what exit, and
//! it hears mend's canary tests end as they must.

use std::fs;
use std::io::{self, BufRead, BufReader};
use std::net::Shutdown;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use tempfile::TempDir;

use crate::error::MendError;
use crate::exec::process::Finished;
use crate::exec::runner::{Extra, TestRunner};
use crate::interrupt::Watch;
use crate::task::{TestCommand, TestReport};

use super::witness_code::{HandedOver, WITNESS_MODULE};

/// The witness's code in parts, one question each, with the name of each part: joined in this
/// order they are the one file the loader runs ([`witness_body`]); `install.py` comes last, as
/// it calls what the others define.
pub const WITNESS_PARTS: [(&str, &str); 12] = [
    (
        "witness.py",
        include_str!("../trust/witness/body/witness.py"),
    ),
    ("places.py", include_str!("../trust/witness/body/places.py")),
    ("audit.py", include_str!("../trust/witness/body/audit.py")),
    (
        "holders.py",
        include_str!("../trust/witness/body/holders.py"),
    ),
    ("items.py", include_str!("../trust/witness/body/items.py")),
    (
        "plugins.py",
        include_str!("../trust/witness/body/plugins.py"),
    ),
    ("first.py", include_str!("../trust/witness/body/first.py")),
    (
        "canaries.py",
        include_str!("../trust/witness/body/canaries.py"),
    ),
    ("hooks.py", include_str!("../trust/witness/body/hooks.py")),
    (
        "helpers.py",
        include_str!("../trust/witness/body/helpers.py"),
    ),
    (
        "forward.py",
        include_str!("../trust/witness/body/forward.py"),
    ),
    (
        "install.py",
        include_str!("../trust/witness/body/install.py"),
    ),
];
/// The socket the witness reports to, in the run's report folder.
const WITNESS_SOCKET: &str = "witness.sock";
/// The variable that tells the witness where to connect; it removes it from its environment
/// once connected, so a pytest the tests start themselves does not report to mend too.
pub(crate) const WITNESS_VARIABLE: &str = "MEND_WITNESS";
/// mend's unittest watcher (`trust/unittest_watch/`), which Python's start-up runs as
/// `sitecustomize` before the project's code.
pub const UNITTEST_WATCHER: &str = include_str!("../trust/unittest_watch/sitecustomize.py");
/// The name the watcher is written under, first on the import path.
const UNITTEST_WATCHER_FILE: &str = "sitecustomize.py";
/// The variable that tells the unittest watcher where to connect; it takes it out of its
/// environment at start-up, so the processes the tests start do not connect too.
pub(crate) const UNITTEST_WATCHER_VARIABLE: &str = "MEND_UNITTEST";
/// The witness's code as the loader runs it: its parts joined in order.
pub fn witness_body() -> String {
    WITNESS_PARTS.iter().map(|(_, code)| *code).collect()
}

/// A JUnit file larger than this is not read (a huge suite's is a few MiB).
const REPORT_MAX_BYTES: u64 = 64 << 20;
/// How long the witness's connections may stay silent once the test process has ended (a
/// grandchild that escaped the process group could hold one open).
const WITNESS_DRAIN: Duration = Duration::from_secs(2);
/// At most this many witness lines are kept per connection (one per test phase and a few more).
const WITNESS_MAX_LINES: usize = 2_000_000;

/// What a test run handed over.
pub struct RanTests {
    /// How the process ended: its exit status, its output, whether it was cut short.
    pub finished: Finished,
    /// The report the task reads, as the command left it.
    pub report: ReportFile,
    /// What the witness (pytest's) or the watcher (unittest's) sent, one list of lines per
    /// connection made to its socket (empty when nothing connected, or nothing listened).
    pub witness: Vec<Vec<String>>,
    /// The report's path, as pytest may print it.
    pub report_path: Option<Utf8PathBuf>,
}

/// The report file after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportFile {
    /// The task reads the exit code alone.
    NotAsked,
    /// The task asked for a report and the command wrote none.
    Missing,
    /// There is one, but mend cannot read it: the reason.
    Unreadable(String),
    /// The report's text.
    Written(String),
}

impl TestRunner {
    /// Runs the task's tests once in `workdir` for a verdict, with the report its task reads.
    /// Not cut by the first Ctrl-C: a cancelled run still gets its verdict.
    pub fn run_tests(&self, test: &TestCommand, workdir: &Utf8Path) -> Result<RanTests, MendError> {
        match &test.report {
            // unittest's outcomes are printed, and told to mend by its watcher as well.
            TestReport::Output(reader) if reader.watched_by_unittest() => {
                self.run_watching_unittest(test, workdir)
            }
            // What the runner prints is the report: nothing to ask for.
            TestReport::ExitCode | TestReport::Output(_) => Ok(RanTests {
                finished: self.run(test, workdir, Watch::NONE)?,
                report: ReportFile::NotAsked,
                witness: Vec::new(),
                report_path: None,
            }),
            TestReport::Junit { path } => {
                let report_path = workdir.join(path);
                // A report left in the repository by an earlier run must not stand in for this one.
                match fs::remove_file(&report_path) {
                    Err(err) if err.kind() != io::ErrorKind::NotFound => {
                        return Err(MendError::harness(format!(
                            "cannot remove the old report {path} in the copy: {err}"
                        )))
                    }
                    _ => {}
                }
                let finished = self.run(test, workdir, Watch::NONE)?;
                Ok(RanTests {
                    finished,
                    report: read_report(&report_path),
                    witness: Vec::new(),
                    report_path: Some(report_path),
                })
            }
            TestReport::Pytest => self.run_pytest(test, workdir),
        }
    }

    fn run_pytest(&self, test: &TestCommand, workdir: &Utf8Path) -> Result<RanTests, MendError> {
        let folder = ReportFolder::new()?;
        let fs_error = |err: io::Error| {
            MendError::harness(format!(
                "cannot write mend's pytest plugin in {}: {err}",
                folder.path
            ))
        };
        // Compiled once per interpreter, where it can be (the loader compiles it otherwise).
        let handed =
            HandedOver::write(&folder.path, &self.python, &witness_body()).map_err(fs_error)?;
        let (witness, socket) = Witness::listen_in(&folder.path)?;
        // The project's own options stay theirs: a `--junitxml` in its addopts still writes
        // its report, in the family it asks for.
        let writable = [folder.path.clone()];
        let extra = Extra {
            writable: &writable,
            pytest_plugin: Some(WITNESS_MODULE),
            import_path: Some(handed.import_path()),
            startup_path: None,
            env: &[(WITNESS_VARIABLE, socket.as_str())],
        };
        let finished = self.run_reporting(test, workdir, extra);
        let heard = witness.stop();
        handed.keep_or_drop();
        let finished = finished?;
        Ok(RanTests {
            finished,
            report: ReportFile::NotAsked,
            witness: heard,
            report_path: None,
        })
    }
}

impl TestRunner {
    /// The tests run with mend's unittest watcher as the first `sitecustomize` on the import
    /// path: what it tells over its socket comes back beside the output, in `witness`.
    fn run_watching_unittest(
        &self,
        test: &TestCommand,
        workdir: &Utf8Path,
    ) -> Result<RanTests, MendError> {
        let folder = ReportFolder::new()?;
        fs::write(folder.path.join(UNITTEST_WATCHER_FILE), UNITTEST_WATCHER).map_err(|err| {
            MendError::harness(format!(
                "cannot write mend's unittest watcher in {}: {err}",
                folder.path
            ))
        })?;
        let (witness, socket) = Witness::listen_in(&folder.path)?;
        let writable = [folder.path.clone()];
        let extra = Extra {
            writable: &writable,
            startup_path: Some(&folder.path),
            env: &[(UNITTEST_WATCHER_VARIABLE, socket.as_str())],
            ..Extra::NONE
        };
        let finished = self.run_reporting(test, workdir, extra);
        let heard = witness.stop();
        Ok(RanTests {
            finished: finished?,
            report: ReportFile::NotAsked,
            witness: heard,
            report_path: None,
        })
    }
}

/// A temporary folder outside the copy for one run's witness or watcher: its code and socket.
struct ReportFolder {
    path: Utf8PathBuf,
    _kept_until_read: TempDir,
}

impl ReportFolder {
    fn new() -> Result<ReportFolder, MendError> {
        let dir = tempfile::Builder::new()
            .prefix("mend-report-")
            .tempdir()
            .map_err(|err| {
                MendError::harness(format!("cannot create a folder for the test report: {err}"))
            })?;
        let path = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).map_err(|path| {
            MendError::harness(format!(
                "the temporary folder {} is not UTF-8 — set TMPDIR to a plain path",
                path.display()
            ))
        })?;
        Ok(ReportFolder {
            path,
            _kept_until_read: dir,
        })
    }
}

/// The socket's listening side: a thread accepts every connection and a thread per connection
/// reads its lines, so a suite of any size never blocks on a full socket buffer.
struct Witness {
    socket: Utf8PathBuf,
    accepting: JoinHandle<Vec<Connection>>,
    done: Arc<Mutex<bool>>,
}

/// One connection: a handle on the socket to close it, the thread reading it, and word from
/// that thread when the other end closed (waited on, not polled: a run pays no tick for it).
struct Connection {
    socket: Option<UnixStream>,
    reader: JoinHandle<Vec<String>>,
    ended: mpsc::Receiver<()>,
}

impl Witness {
    /// Listens on the socket of the run's report `folder`; the socket's path is for the test
    /// process.
    fn listen_in(folder: &Utf8Path) -> Result<(Witness, Utf8PathBuf), MendError> {
        let socket = folder.join(WITNESS_SOCKET);
        let listener = UnixListener::bind(&socket).map_err(|err| {
            MendError::harness(format!(
                "cannot listen on {socket} for the test results: {err}"
            ))
        })?;
        Ok((Witness::listen(listener, socket.clone()), socket))
    }

    fn listen(listener: UnixListener, socket: Utf8PathBuf) -> Witness {
        let done = Arc::new(Mutex::new(false));
        let stop = Arc::clone(&done);
        let accepting = thread::spawn(move || {
            let mut readers = Vec::new();
            for stream in listener.incoming() {
                if let Ok(stream) = stream {
                    readers.push(Connection::reading(stream));
                }
                if stop.lock().map(|done| *done).unwrap_or(true) {
                    // pytest may have connected just before it ended, its connection still
                    // queued behind the one that woke this thread: every queued one is kept.
                    if listener.set_nonblocking(true).is_ok() {
                        while let Ok((stream, _)) = listener.accept() {
                            readers.push(Connection::reading(stream));
                        }
                    }
                    break;
                }
            }
            readers
        });
        Witness {
            socket,
            accepting,
            done,
        }
    }

    /// Stops accepting (the test process has ended) and returns what each connection sent.
    fn stop(self) -> Vec<Vec<String>> {
        if let Ok(mut done) = self.done.lock() {
            *done = true;
        }
        // Wakes the accepting thread, which then sees it is done.
        let woken = UnixStream::connect(&self.socket);
        let connections = self.accepting.join().unwrap_or_default();
        // The wake-up connection ends here, having said nothing.
        drop(woken);
        let give_up = Instant::now() + WITNESS_DRAIN;
        connections
            .into_iter()
            .map(|connection| {
                // The test process closed its end when it exited; a process that escaped its
                // group could hold it open, and is cut off after a grace.
                let _ended = connection
                    .ended
                    .recv_timeout(give_up.saturating_duration_since(Instant::now()));
                if let Some(socket) = &connection.socket {
                    let _closed = socket.shutdown(Shutdown::Read);
                }
                connection.reader.join().unwrap_or_default()
            })
            // A connection that said nothing tells nothing: the wake-up one. mend's plugin says
            // `start` as it connects, before any code under test runs.
            .filter(|lines| !lines.is_empty())
            .collect()
    }
}

impl Connection {
    fn reading(stream: UnixStream) -> Connection {
        let (ended_tx, ended) = mpsc::channel();
        Connection {
            socket: stream.try_clone().ok(),
            reader: thread::spawn(move || {
                let lines = read_lines(stream);
                let _listener_gone = ended_tx.send(());
                lines
            }),
            ended,
        }
    }
}

fn read_lines(stream: UnixStream) -> Vec<String> {
    BufReader::new(stream)
        .lines()
        .map_while(Result::ok)
        .take(WITNESS_MAX_LINES)
        .collect()
}

fn read_report(path: &Utf8Path) -> ReportFile {
    let size = match fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => metadata.len(),
        Ok(_) => return ReportFile::Unreadable("it is not a file".to_owned()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => return ReportFile::Missing,
        Err(err) => return ReportFile::Unreadable(err.to_string()),
    };
    if size > REPORT_MAX_BYTES {
        return ReportFile::Unreadable(format!(
            "it has {size} bytes, more than the {REPORT_MAX_BYTES} mend reads"
        ));
    }
    match fs::read(path).map(String::from_utf8) {
        Ok(Ok(text)) => ReportFile::Written(text),
        Ok(Err(_)) => ReportFile::Unreadable("it is not UTF-8".to_owned()),
        Err(err) => ReportFile::Unreadable(err.to_string()),
    }
}
