//! One unpack per image per machine: whoever takes an image's lock file unpacks it, every other
//! attempt or `--jobs` worker waits for it and then finds the root made.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Held until dropped (the kernel releases it too when the process dies, even killed).
pub(super) struct Lock {
    _file: File,
}

impl Lock {
    pub(super) fn exclusive(path: &Path) -> io::Result<Lock> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        loop {
            // SAFETY: flock on a descriptor this function owns for the call's duration.
            let code = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if code == 0 {
                return Ok(Lock { _file: file });
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}
