//! The bytecode mirror where no sandbox shows it read-only (`--sandbox none`, a network
//! namespace alone), a mirror of its own beside those bubblewrap shows: the test run and the
//! model's commands can write the mirror as they can write everything the user can.
//!
//! Two writes would matter, and each is closed:
//! - Bytecode for a module of the installation (a planted `pytest` or `json`). Writing it there
//!   is no more than writing the installation itself, its sources or its own `__pycache__`, which
//!   the mirror copies: so the mirror is read only when every folder it mirrors is one the user
//!   may write ([`usable`]). An installation the user cannot write is read from source, as
//!   before, since its mirror would be the one part of it they could.
//! - Bytecode for a source of the copy's (a test module) or of the original's. Python looks up
//!   `/a/b/m.py`'s bytecode at `MIRROR/a/b/m.TAG.pyc`, so such bytecode lies under the copy's
//!   own place in the mirror (`MIRROR/tmp/…/copy`), off the installation's folders. Before each
//!   run that place is emptied and made anew as a folder of its own ([`RunPlaces`]); a final run
//!   stamps it and compares after ([`PlaceStamps`]): bytecode written there makes the run
//!   untrusted, and so does bytecode written and removed again once read, which still changed
//!   the folder it was written in. The copy's place is the run's own: what another run (another
//!   attempt, in its own copy) writes in its place neither reaches this one nor is blamed on it.
//!   (The original's place is shared by the runs of one repository: bytecode one of them plants
//!   there is blamed on each whose final run was under way.)

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

use crate::workspace::stamp::{settle, Stamp};

/// Whether the mirror of `folders` may be read by a run in `workdir` that no sandbox shields:
/// every folder is one `writable` says the user may write, and the copy (and the original, whose
/// files an editable install imports) lies outside all of them, so its bytecode lies in places
/// of its own ([`RunPlaces`]), never among the installation's.
pub(crate) fn usable(
    folders: &[Utf8PathBuf],
    (workdir, original): (&Utf8Path, Option<&Utf8Path>),
    writable: impl Fn(&Utf8Path) -> bool,
) -> bool {
    let inside = |place: &Utf8Path| folders.iter().any(|folder| place.starts_with(folder));
    !folders.is_empty()
        && folders.iter().all(|folder| writable(folder))
        && !inside(workdir)
        && !original.is_some_and(inside)
}

/// Whether this process may write `folder` (`access(2)`, which answers for root too).
pub(crate) fn user_may_write(folder: &Utf8Path) -> bool {
    let Ok(path) = std::ffi::CString::new(folder.as_str()) else {
        return false;
    };
    // SAFETY: `path` is a NUL-terminated string that lives through the call; `access` only reads it.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

/// The folders of a mirror where the bytecode of a run's own sources would be: those of the
/// copy and of the original (whose files an editable install imports).
pub(crate) struct RunPlaces {
    mirror: Utf8PathBuf,
    places: Vec<(Utf8PathBuf, Utf8PathBuf)>,
}

impl RunPlaces {
    /// The places in `mirror` of the sources under `workdir` and `original`, each emptied now:
    /// bytecode an earlier run or a command wrote there is gone, and the empty folder left in
    /// its place is this run's own, which no other run writes in. `None` when one cannot be
    /// made (then the run reads no mirror).
    pub(crate) fn emptied(
        mirror: &Utf8Path,
        (workdir, original): (&Utf8Path, Option<&Utf8Path>),
    ) -> Option<RunPlaces> {
        let mut places = Vec::new();
        // Each also by its real path, which Python names it by when it comes from the working
        // folder (`os.getcwd()` resolves links): a copy under a linked temporary folder.
        let real = |folder: &Utf8Path| folder.canonicalize_utf8().ok();
        let mut sources: Vec<Utf8PathBuf> = Vec::new();
        for folder in std::iter::once(workdir).chain(original) {
            for source in std::iter::once(folder.to_owned()).chain(real(folder)) {
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
        }
        prune_gone_copies(mirror, workdir, &sources);
        for source in &sources {
            let place = mirror.join(source.strip_prefix("/").unwrap_or(source));
            // An empty folder stays as it is: the final run stamps it before its command is made.
            let empty = place.is_dir() && !place.is_symlink() && is_empty(&place);
            if !empty && place.symlink_metadata().is_ok() {
                fs::remove_dir_all(&place)
                    .or_else(|_| fs::remove_file(&place))
                    .ok()?;
            }
            fs::create_dir_all(&place).ok()?;
            places.push((source.clone(), place));
        }
        Some(RunPlaces {
            mirror: mirror.to_owned(),
            places,
        })
    }

    /// Each place as it is now: a write in it, even one undone, changes its change time, which
    /// no one but root can set back. Then the clock is let move past those times (as after a
    /// copy's stamps), so that a write in the same tick as a place was emptied still reads as a
    /// change. It is waited for on a probe of this run's own beside the mirror, never by
    /// touching a place: the original's is shared by every run of the repository, and a touch
    /// there would read in a concurrent final run as bytecode written and removed again.
    pub(crate) fn stamps(self) -> PlaceStamps {
        let mirror = stamp(&self.mirror);
        let stamps = self.places.iter().map(|(_, place)| stamp(place)).collect();
        let beside = self.mirror.parent().unwrap_or(&self.mirror);
        if let Ok(probe) = tempfile::Builder::new()
            .prefix(".settle-")
            .tempfile_in(beside)
        {
            if let Some(path) = Utf8Path::from_path(probe.path()) {
                let _ = settle(path);
            }
        }
        PlaceStamps {
            places: self,
            mirror,
            stamps,
        }
    }
}

/// Removes the places of copies that are gone, beside `workdir`'s: each run leaves an empty
/// folder for its copy, and a long eval would leave thousands. A place goes only when nothing of
/// its name lies beside the copy: a copy still there (another attempt's, under way) keeps its
/// place, and the installation's own bytecode always has its sources. This run's own (`ours`)
/// are never taken, whether or not their sources exist.
fn prune_gone_copies(mirror: &Utf8Path, workdir: &Utf8Path, ours: &[Utf8PathBuf]) {
    let Some(parent) = workdir.parent().filter(|_| workdir.is_absolute()) else {
        return;
    };
    let beside = mirror.join(parent.strip_prefix("/").unwrap_or(parent));
    let Ok(entries) = beside.read_dir_utf8() else {
        return;
    };
    for entry in entries.flatten() {
        let source = parent.join(entry.file_name());
        let is_folder = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_folder && !ours.contains(&source) && source.symlink_metadata().is_err() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

fn is_empty(folder: &Utf8Path) -> bool {
    folder
        .read_dir_utf8()
        .is_ok_and(|mut entries| entries.next().is_none())
}

/// A folder's identity and change time; `None` when it cannot be read.
fn stamp(folder: &Utf8Path) -> Option<Stamp> {
    fs::symlink_metadata(folder)
        .ok()
        .map(|meta| Stamp::of(&meta))
}

/// A run's places in the mirror as they stood when it started.
pub(crate) struct PlaceStamps {
    places: RunPlaces,
    /// The mirror itself: another mend rebuilds it when the installation changes (a package
    /// installed meanwhile), and the places in it go with the old one.
    mirror: Option<Stamp>,
    stamps: Vec<Option<Stamp>>,
}

impl PlaceStamps {
    /// The mirror, when it is no longer the one the run started with: another mend rebuilt it
    /// (the installation changed while the tests ran), and what the tests wrote in the places
    /// that went with the old one cannot be told.
    pub(crate) fn rebuilt(&self) -> Option<&Utf8Path> {
        let same = fs::symlink_metadata(&self.places.mirror)
            .ok()
            .zip(self.mirror)
            .is_some_and(|(now, then)| then.same_entry(&now));
        (!same).then_some(self.places.mirror.as_path())
    }

    /// What was written in the places since the stamps were taken, as the sources whose
    /// bytecode it would be: what each holds now, else each that changed (a write undone);
    /// empty when nothing was.
    pub(crate) fn written_since(&self) -> Vec<String> {
        let mut written = Vec::new();
        for ((source, place), then) in self.places.places.iter().zip(&self.stamps) {
            let held: Vec<String> = place
                .read_dir_utf8()
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| source.join(entry.file_name()).to_string())
                .collect();
            if !held.is_empty() {
                written.extend(held);
            } else if stamp(place) != *then {
                written.push(format!("{source} (written and removed again)"));
            }
        }
        written.sort();
        written
    }
}

#[cfg(test)]
mod tests;
