//! A closed standard output (`mend task | head -1`) ends a command as it ends any Unix tool:
//! quietly, by SIGPIPE (status 141 in a shell), with no panic message and no backtrace.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an error and `print!` panics on it. The
//! panic is kept quiet and unwinds (temporary copies are removed on the way), then `main` ends
//! the process by the signal a C tool would have died of.

use std::any::Any;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// The words of the panic `print!` raises when its write fails with a closed pipe.
const PRINT_FAILED: &str = "failed printing to std";

/// Keeps the panic of a print to a closed pipe silent; every other panic is reported as before.
pub fn quiet_closed_pipe_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_closed_pipe(info.payload()) {
            report(info);
        }
    }));
}

/// Whether a panic's payload is a print to a closed pipe.
pub fn is_closed_pipe(payload: &(dyn Any + Send)) -> bool {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.contains(PRINT_FAILED) && message.contains(&format!("(os error {})", libc::EPIPE))
}

/// Ends the process as a closed pipe ends a C tool: killed by SIGPIPE.
pub fn end_by_sigpipe() -> ! {
    // SAFETY: restoring the default action of one signal and raising it in this thread touch
    // no memory of this process; the default action ends it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    // Unreachable when the signal is delivered; the status a shell would show otherwise.
    std::process::exit(128 + libc::SIGPIPE)
}

/// Set when a write that goes on without its output (a run's events) met a closed pipe.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Notes a closed pipe met by a write that must not stop the work (a run still writes its
/// record); `main` ends by SIGPIPE once the command is done.
pub fn note_if_closed<T>(written: io::Result<T>) {
    if written.is_err_and(|err| err.kind() == io::ErrorKind::BrokenPipe) {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Whether a write of this process met a closed pipe and went on.
pub fn was_closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Ends quietly when `err` is a closed pipe, for writes that return their error.
pub fn end_if_closed(err: &io::Error) {
    if is_closed(err) {
        end_by_sigpipe();
    }
}

/// Whether `err` is a closed pipe, or wraps one: a serializer writing into the pipe hands its
/// own error back (`io::Error::other(serde_json::Error)`), whose kind is no longer the pipe's.
fn is_closed(err: &io::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(error) = cause {
        let kind = error
            .downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| {
                // serde_json's error hides the io::Error it carries from `source()`.
                error
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        if kind == Some(io::ErrorKind::BrokenPipe) {
            return true;
        }
        cause = error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            .map(|inner| inner as &(dyn std::error::Error + 'static))
            .or_else(|| error.source());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{is_closed, is_closed_pipe};

    #[test]
    fn a_closed_pipe_is_known_inside_the_errors_that_wrap_it() {
        let closed = || std::io::Error::from_raw_os_error(libc::EPIPE);
        let errors = [
            closed(),
            std::io::Error::other(serde_json::Error::io(closed())),
            std::io::Error::other(std::io::Error::other(closed())),
            std::io::Error::other(serde_json::Error::io(std::io::Error::from_raw_os_error(
                libc::ENOSPC,
            ))),
            std::io::Error::other("Broken pipe (os error 32)"),
        ];
        let closed: Vec<bool> = errors.iter().map(is_closed).collect();
        assert_eq!(closed, [true, true, true, false, false]);
    }

    #[test]
    fn only_a_print_to_a_closed_pipe_is_quiet() {
        let closed = std::io::Error::from_raw_os_error(libc::EPIPE);
        let other = std::io::Error::from_raw_os_error(libc::ENOSPC);
        let payloads: [Box<dyn std::any::Any + Send>; 4] = [
            Box::new(format!("failed printing to stdout: {closed}")),
            Box::new(format!("failed printing to stdout: {other}")),
            Box::new(format!("cannot read: {closed}")),
            Box::new("failed printing to stderr: Broken pipe (os error 32)"),
        ];
        let quiet: Vec<bool> = payloads
            .iter()
            .map(|p| is_closed_pipe(p.as_ref()))
            .collect();
        assert_eq!(quiet, [true, false, false, true]);
    }
}
