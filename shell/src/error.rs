//! Failures that end a mend command, each with its documented exit code.

use std::fmt;

/// The exit codes of every command (also in `--help` and the README).
pub mod exit {
    /// The run or replay matched and the final tests pass.
    pub const PASS: u8 = 0;
    /// Everything ran, but the independent final tests fail.
    pub const TESTS_FAIL: u8 = 1;
    /// Bad flags or arguments (clap uses 2 as well).
    pub const USAGE: u8 = 2;
    /// A replay produced something other than what its record says.
    pub const DIVERGED: u8 = 3;
    /// The input cannot be used: a record that does not parse, a sample that changed since the
    /// record was made.
    pub const REFUSED: u8 = 4;
    /// The model server failed: unreachable, unknown model, HTTP error, broken stream.
    pub const MODEL: u8 = 5;
    /// mend itself could not do its job: Python or pytest missing, a file it could not write.
    pub const HARNESS: u8 = 6;
    /// The user pressed Ctrl-C (128 + SIGINT).
    pub const INTERRUPTED: u8 = crate::interrupt::INTERRUPTED_EXIT;
}

/// Every code with its name, in order; the `--help` text must document each one.
#[cfg(test)]
pub const ALL_EXIT_CODES: [(u8, &str); 8] = [
    (exit::PASS, "pass"),
    (exit::TESTS_FAIL, "tests fail"),
    (exit::USAGE, "usage"),
    (exit::DIVERGED, "diverged"),
    (exit::REFUSED, "refused"),
    (exit::MODEL, "model"),
    (exit::HARNESS, "harness"),
    (exit::INTERRUPTED, "interrupted"),
];

/// An error a command stops with: what to tell the user, and the exit code that classes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MendError {
    /// The process's exit code (see [`exit`]).
    pub exit_code: u8,
    /// One message naming what went wrong and the fix.
    pub message: String,
}

impl MendError {
    /// The task's rules or the user's input forbid what was asked (a protected file, a bad task file).
    pub fn refused(message: impl Into<String>) -> Self {
        MendError {
            exit_code: exit::REFUSED,
            message: message.into(),
        }
    }

    /// mend itself or its surroundings failed (a server, the disk, a sandbox), not the user's input.
    pub fn harness(message: impl Into<String>) -> Self {
        MendError {
            exit_code: exit::HARNESS,
            message: message.into(),
        }
    }

    /// The user pressed Ctrl-C and the command stopped cleanly, saying what it left.
    pub fn interrupted(message: impl Into<String>) -> Self {
        MendError {
            exit_code: exit::INTERRUPTED,
            message: message.into(),
        }
    }

    /// The command line was wrong: a flag, a missing argument, a file that is not there.
    pub fn usage(message: impl Into<String>) -> Self {
        MendError {
            exit_code: exit::USAGE,
            message: message.into(),
        }
    }
}

impl fmt::Display for MendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MendError {}
