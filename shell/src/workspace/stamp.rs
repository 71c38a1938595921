//! Stamps that tell what changed in a copy since it was made: each entry's inode number and
//! status-change time (`ctime`), taken as the copy makes it. Nothing a test can do sets a
//! `ctime`: every write, truncation, `chmod`, `utime`, link or rename sets it to the clock's
//! present, and the copy waits until the clock has moved past every stamp before anything else
//! runs ([`settle`]). So a file rewritten with the same size and its old modification time put
//! back is seen, where comparing sizes and times would miss it.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::thread;
use std::time::{Duration, Instant};

use camino::Utf8Path;

/// An entry of the copy as it was made: which inode, last changed when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    inode: u64,
    changed: (i64, i64),
}

impl Stamp {
    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            inode: meta.ino(),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether `meta` is of the entry stamped (changed or not).
    pub(crate) fn same_entry(&self, meta: &fs::Metadata) -> bool {
        self.inode == meta.ino()
    }
}

/// Every entry of a copy by its path from the copy's root.
pub(super) type Stamps = HashMap<String, Stamp>;

/// How long [`settle`] waits for the clock to move on (it takes one tick, a few milliseconds).
const SETTLE_LIMIT: Duration = Duration::from_secs(2);

/// Waits until a change made now in `root` gets a later `ctime` than every stamp taken so far,
/// which are all at most the `ctime` of `root` changed last. Without it, a test that wrote a
/// file within the same clock tick as the copy could leave its stamp as it was. `false` when the
/// clock did not move within [`SETTLE_LIMIT`]: the copy is then never reused.
pub(crate) fn settle(root: &Utf8Path) -> io::Result<bool> {
    let touch = || -> io::Result<(i64, i64)> {
        // A chmod to the same mode changes nothing but the ctime.
        let meta = fs::symlink_metadata(root)?;
        fs::set_permissions(root, meta.permissions())?;
        let meta = fs::symlink_metadata(root)?;
        Ok((meta.ctime(), meta.ctime_nsec()))
    };
    let last = touch()?;
    let give_up = Instant::now() + SETTLE_LIMIT;
    while Instant::now() < give_up {
        if touch()? > last {
            return Ok(true);
        }
        thread::sleep(Duration::from_millis(1));
    }
    Ok(false)
}
