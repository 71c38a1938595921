//! A process between mend and each command it runs that ends every process the command left
//! behind, wherever it went.
//!
//! A command runs in its own process group, killed when it ends; but a process that left the
//! group (`setsid`, a server a test started with `start_new_session=True`, a daemon) outlived it
//! and could write on into the copy, so a used copy could not be handed to the next attempt
//! without bubblewrap, whose process namespace ends everything with it. Here the process std
//! forks for the command forks once more: the inner process runs the command, and the outer
//! one, made a child subreaper (`PR_SET_CHILD_SUBREAPER`), adopts every orphan of the command's
//! tree whatever its group or session. When the command ends, the outer process kills each
//! child it has (its own `children` file in `/proc` names them), reaps them, does the same for
//! the orphans that killing made, and exits as the command did. It leaves the command's group
//! and ignores the terminal's signals, so that mend killing the group (a timeout, Ctrl-C) ends
//! the command and not the reaper, which then ends the rest.
//!
//! What it catches is an honest leftover. A hostile command can kill the reaper first (it runs as
//! the same user); under `--sandbox none` such a command can already write into the original.
//!
//! The outer process runs between `fork` and `exec` of a program with threads: it calls only
//! async-signal-safe functions (raw system calls), allocates nothing, and never returns.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::OnceLock;

/// Kills and reaps this many rounds of orphans at most (each round's kills may orphan the next
/// generation), so a process that forks as fast as it is killed cannot hold the reaper forever.
const MAX_ROUNDS: usize = 10_000;

/// Whether this kernel can name a process's children (`/proc/PID/task/TID/children`), which
/// the reaper reads to find what is left.
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let pid = std::process::id();
        std::path::Path::new(&format!("/proc/{pid}/task/{pid}/children")).exists()
    })
}

/// Makes `command` run under a reaper (see the module's text), where the kernel allows it.
pub(crate) fn reap_after(command: &mut Command) {
    if !available() {
        return;
    }
    // SAFETY: getpgrp only reads this process's group.
    let mend_group = unsafe { libc::getpgrp() };
    // SAFETY: the closure runs in the forked child before exec and calls only async-signal-safe
    // system calls (see `split`), allocating nothing.
    unsafe {
        command.pre_exec(move || split(mend_group));
    }
}

/// In the forked child: forks the command's process, which returns to exec the command; the
/// other becomes the reaper and never returns.
fn split(mend_group: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: each call is a plain system call on this process; see the module's text.
    unsafe {
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let command = libc::fork();
        if command < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if command == 0 {
            // The command's own process (fork does not pass the subreaper's mark on).
            return Ok(());
        }
        reap(command, mend_group)
    }
}

/// The reaper: waits for `command`, ends what it left, and exits as it did.
///
/// # Safety
/// Only in the child std forked, before exec: it never returns.
unsafe fn reap(command: libc::pid_t, mend_group: libc::pid_t) -> ! {
    // Every descriptor closed: std learns that the command's exec succeeded when the last copy
    // of its error pipe is closed, and the output pipe ends when the command's processes end.
    if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
        for fd in 0..4096 {
            libc::close(fd);
        }
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        libc::signal(signal, libc::SIG_IGN);
    }
    // Out of the command's group, into mend's: mend kills the group, and the reaper goes on.
    libc::setpgid(0, mend_group);
    let mut status = 0;
    while libc::waitpid(command, &mut status, 0) < 0 {
        if errno() != libc::EINTR {
            libc::_exit(127);
        }
    }
    end_children();
    exit_as(status)
}

/// Kills every child of this process and reaps it, round after round, until none is left.
unsafe fn end_children() {
    let mut path = [0u8; 64];
    children_path(&mut path);
    for _ in 0..MAX_ROUNDS {
        kill_listed(&path);
        let mut status = 0;
        if libc::waitpid(-1, &mut status, 0) < 0 && errno() == libc::ECHILD {
            return;
        }
    }
}

/// `/proc/PID/task/PID/children` of this (single-threaded) process, NUL-terminated.
unsafe fn children_path(path: &mut [u8; 64]) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut pid = libc::getpid().unsigned_abs();
    loop {
        start -= 1;
        digits[start] = b'0' + (pid % 10) as u8;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    let number = &digits[start..];
    let parts: [&[u8]; 5] = [b"/proc/", number, b"/task/", number, b"/children\0"];
    for (at, byte) in parts.iter().flat_map(|part| part.iter()).enumerate() {
        path[at] = *byte;
    }
}

/// Sends SIGKILL to each pid the children file lists.
unsafe fn kill_listed(path: &[u8; 64]) {
    let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return;
    }
    let mut buffer = [0u8; 4096];
    let mut pid: libc::pid_t = 0;
    loop {
        let read = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
        if read <= 0 {
            break;
        }
        for byte in &buffer[..read as usize] {
            if byte.is_ascii_digit() {
                pid = pid * 10 + libc::pid_t::from(byte - b'0');
            } else if pid > 0 {
                libc::kill(pid, libc::SIGKILL);
                pid = 0;
            }
        }
    }
    if pid > 0 {
        libc::kill(pid, libc::SIGKILL);
    }
    libc::close(fd);
}

/// The last system call's error number (a read of `errno`, async-signal-safe).
fn errno() -> libc::c_int {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or_default()
}

/// Ends this process as `status` says the command ended: its exit code, or its signal.
unsafe fn exit_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut unblocked: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut unblocked);
        libc::sigaddset(&mut unblocked, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &unblocked, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(libc::WEXITSTATUS(status))
}

#[cfg(test)]
mod tests;
