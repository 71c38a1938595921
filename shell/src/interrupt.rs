//! Ctrl-C: the first one asks the run to stop cleanly, the second ends the process at once.
//!
//! The handler only touches atomics and `_exit`, both safe in a signal handler. Everything else
//! happens in the driver, which polls [`requested`] between stream items and while tools run.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::Instant;

static PRESSES: AtomicUsize = AtomicUsize::new(0);
/// Whether `mend chat` waits at its prompt: a Ctrl-C there asks nothing to stop, it gives a
/// fresh prompt (the terminal has already dropped the half-typed line).
static AT_PROMPT: AtomicBool = AtomicBool::new(false);

/// The prompt of `mend chat`, on stderr.
pub const PROMPT: &str = "mend> ";
/// What a Ctrl-C at the prompt writes: the next line, and the prompt again.
const FRESH_PROMPT: &[u8] = b"\nmend> ";
/// The process group of the child running now (0: none), killed by the second Ctrl-C so that
/// exiting at once leaves nothing running.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);

/// The conventional exit code of a process ended by SIGINT (128 + 2).
pub const INTERRUPTED_EXIT: u8 = 130;

extern "C" fn on_sigint(_signal: libc::c_int) {
    if AT_PROMPT.load(Ordering::SeqCst) {
        // SAFETY: write(2) is async-signal-safe; the buffer is a static.
        unsafe {
            libc::write(2, FRESH_PROMPT.as_ptr().cast(), FRESH_PROMPT.len());
        }
        return;
    }
    if PRESSES.fetch_add(1, Ordering::SeqCst) >= 1 {
        let group = CHILD_GROUP.load(Ordering::SeqCst);
        // SAFETY: killpg and _exit are async-signal-safe; no destructor or buffer is touched.
        unsafe {
            if group > 0 {
                libc::killpg(group, libc::SIGKILL);
            }
            libc::_exit(i32::from(INTERRUPTED_EXIT));
        }
    }
}

/// Installs the handler for the rest of the process.
pub fn install() {
    let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler is async-signal-safe (atomics and _exit only).
    unsafe {
        libc::signal(libc::SIGINT, handler);
    }
}

/// Registers the process group of the child that runs now (`None` once it is gone).
pub fn set_child_group(group: Option<i32>) {
    CHILD_GROUP.store(group.unwrap_or(0), Ordering::SeqCst);
}

/// Marks `mend chat` as waiting at its prompt (`true`) or working (`false`).
pub fn at_prompt(waiting: bool) {
    AT_PROMPT.store(waiting, Ordering::SeqCst);
}

/// Forgets earlier presses: in `mend chat` a Ctrl-C ends one turn, and the next turn starts
/// fresh.
pub fn reset() {
    PRESSES.store(0, Ordering::SeqCst);
}

/// Whether the user has asked the run to stop.
pub fn requested() -> bool {
    PRESSES.load(Ordering::SeqCst) > 0
}

/// How often a blocking wait (a stalled stream, a running test process) looks at its watch:
/// short enough that Ctrl-C feels immediate, long enough to cost nothing.
pub const WATCH_TICK: std::time::Duration = std::time::Duration::from_millis(20);

/// When a blocking wait must give up early: a Ctrl-C, or the run's deadline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Watch {
    /// When the run's `--deadline` passes, if it has one.
    pub deadline: Option<Instant>,
    /// Whether Ctrl-C ends the wait (the loop) or not (the final independent check).
    pub on_interrupt: bool,
}

/// Why a wait was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The user pressed Ctrl-C.
    Interrupted,
    /// The run's `--deadline` passed.
    DeadlinePassed,
}

impl Watch {
    /// Waits nowhere: no deadline, Ctrl-C ignored.
    pub const NONE: Watch = Watch {
        deadline: None,
        on_interrupt: false,
    };

    /// Whether to give up now, and why; `None` to keep waiting.
    pub fn check(&self) -> Option<Cut> {
        if self.on_interrupt && requested() {
            return Some(Cut::Interrupted);
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Some(Cut::DeadlinePassed),
            _ => None,
        }
    }
}
