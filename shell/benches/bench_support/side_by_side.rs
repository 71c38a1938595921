//! Two runs at the same time, each on a core of its own where the machine has two (swapped each
//! round), each one's CPU time read as it is reaped. A shared machine's load moves a run's CPU
//! time by several percent from one run to the next; it falls on both runs of a pair alike, so
//! their ratio moves far less than either does. Measured here on pytest's 1,000 generated
//! tests: one run after another, the middle half of the rounds' ratios spans about ±2 %; side
//! by side, pytest alone against itself spans ±0.3 %. (The longer run finishes alone, without
//! the other's share of the cache: that favours it by the share times the difference, a few
//! hundredths of a point at most. A busy process on the same machine lands on one core, not
//! both: the rounds' spread, which the rows give, then shows it.)

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// The CPU time (user and system, ms) of `first` and of `second`, run at the same time. `round`
/// picks which core each gets, so that neither always has the same one.
pub fn cpu_ms_side_by_side(first: &mut Command, second: &mut Command, round: usize) -> [f64; 2] {
    if let Some(cores) = two_cores() {
        let (one, other) = if round % 2 == 0 {
            (cores[0], cores[1])
        } else {
            (cores[1], cores[0])
        };
        pin(first, one);
        pin(second, other);
    }
    let first = first.spawn().unwrap();
    let second = second.spawn().unwrap();
    [cpu_ms_of(first), cpu_ms_of(second)]
}

/// The first two cores this process may run on, if it may run on two.
fn two_cores() -> Option<[usize; 2]> {
    // SAFETY: sched_getaffinity writes into the zeroed set it is given, of the size it is told.
    let allowed = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if libc::sched_getaffinity(0, size, &mut set) != 0 {
            return None;
        }
        set
    };
    let mut cores = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads one bit of the set, within its size.
        .filter(|&core| unsafe { libc::CPU_ISSET(core, &allowed) });
    Some([cores.next()?, cores.next()?])
}

/// Runs `command`'s process on `core` alone.
fn pin(command: &mut Command, core: usize) {
    // SAFETY: the closure runs in the child between fork and exec; it builds a set on its own
    // stack and calls sched_setaffinity, which is async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Waits for `child` and returns its own CPU time (ms); it must have exited, not been killed.
fn cpu_ms_of(child: Child) -> f64 {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes the status and the usage into the values it is given; the child is
    // ours and not yet reaped (std reaps only when asked to wait).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    assert!(libc::WIFEXITED(status), "the run was killed: {status}");
    let ms = |time: libc::timeval| time.tv_sec as f64 * 1000.0 + time.tv_usec as f64 / 1000.0;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}
