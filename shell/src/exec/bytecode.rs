//! The bytecode a sandboxed test run may read: the interpreter's own and its installed
//! packages', never the copy's.
//!
//! Python checks a `.pyc` against its source's size and time only, so one planted for a test file
//! would run in its place; a test run therefore reads no bytecode beside the copy's sources. But
//! reading none at all means compiling pytest, pluggy and every module of the standard library
//! from source on every run (two thirds of a small suite's time). So the run's
//! `PYTHONPYCACHEPREFIX` is a folder mend keeps (`$XDG_CACHE_HOME/mend/bytecode`, else
//! `~/.cache/mend/bytecode`) that mirrors the `__pycache__` files of the interpreter's installation
//! (`lib/python3.*` under the venv and under the interpreter's prefix, and the folders their
//! `.pth` files add, such as another venv's packages), with the installed packages' modules that
//! came without bytecode compiled into it once, and nothing else: Python
//! looks up the bytecode of `/a/b/m.py` at `PREFIX/a/b/m.TAG.pyc`, so a source in the copy finds
//! none there. Under bubblewrap the folder is shown read-only, so none can be planted; without
//! it, what the tests and the model's commands could write there is checked instead
//! ([`unshielded`]). The mirror is rebuilt
//! when a library folder's time changes (a package installed or removed); a stale `.pyc` is
//! harmless, as Python recompiles a source whose size or time it does not match.

use std::fs;
use std::time::UNIX_EPOCH;

use camino::{Utf8Path, Utf8PathBuf};

use crate::atomic::sha256_hex;
use crate::exec::sandbox::Sandbox;
use crate::exec::toolchain::{installation, Host};
use unshielded::RunPlaces;

pub(crate) mod unshielded;

/// The file in a mirror that says which library folders, at which times, it was made from.
const STAMP: &str = "made-from";
/// The folder of the cache that holds the mirrors read where no sandbox shields them.
const UNSHIELDED: &str = "unshielded";

/// The mirror a run reads.
pub(crate) struct Mirror {
    pub path: Utf8PathBuf,
    /// Where no sandbox shows it read-only, the run's own places in it, emptied (`unshielded`);
    /// `None` under bubblewrap.
    pub unshielded: Option<RunPlaces>,
}

/// The mirror of `python`'s own bytecode for a run in `workdir`: never for an interpreter
/// inside the copy, and never of the copy's or the original repository's folders (an editable
/// install's `.pth` names the original). Under bubblewrap it is shown read-only; elsewhere it is
/// read only on the terms of `unshielded` ([`unshielded::usable`]), the places where the
/// bytecode of the run's own sources would be emptied first.
pub(crate) fn readable(
    python: &Utf8Path,
    host: &Host,
    sandbox: &Sandbox,
    (workdir, original): (&Utf8Path, Option<&Utf8Path>),
) -> Option<Mirror> {
    // As Python names them (`sys.prefix` is made absolute and normal): an interpreter named
    // through `..` finds its bytecode under the folders' plain names.
    let installation: Vec<Utf8PathBuf> = installation(python, host)
        .iter()
        .map(|folder| lexical(folder))
        .collect();
    let outside = installation
        .iter()
        .all(|folder| !folder.starts_with(workdir));
    outside.then_some(())?;
    let mut folders = library_folders(&installation);
    let added = path_file_folders(&folders);
    let theirs = |folder: &Utf8PathBuf| {
        folder.starts_with(workdir) || original.is_some_and(|original| folder.starts_with(original))
    };
    folders.extend(added.into_iter().filter(|folder| !theirs(folder)));
    let cache = cache_folder()?;
    if *sandbox == Sandbox::Bwrap {
        let path = mirror(&folders, &cache, Some(python))?;
        return Some(Mirror {
            path,
            unshielded: None,
        });
    }
    let places = (workdir, original);
    unshielded::usable(&folders, places, unshielded::user_may_write).then_some(())?;
    // A mirror of its own: what the unshielded runs could write never reaches the mirror that
    // bubblewrap shows, nor is one pulled from under a sandboxed run as it is cleaned.
    let path = mirror(&folders, &cache.join(UNSHIELDED), Some(python))?;
    let own = RunPlaces::emptied(&path, places)?;
    Some(Mirror {
        path,
        unshielded: Some(own),
    })
}

/// The folders the `.pth` files of each library folder's `site-packages` put on the import path
/// (a venv reaching another's packages, an editable install), which hold bytecode Python reads
/// as it reads the installation's: each line that names an existing folder, `import` lines and
/// comments left out. Sorted, without those inside `folders`.
pub(crate) fn path_file_folders(folders: &[Utf8PathBuf]) -> Vec<Utf8PathBuf> {
    let mut added: Vec<Utf8PathBuf> = Vec::new();
    for site in folders.iter().map(|folder| folder.join("site-packages")) {
        let Ok(entries) = site.read_dir_utf8() else {
            continue;
        };
        for entry in entries.flatten() {
            if !entry.file_name().ends_with(".pth") {
                continue;
            }
            let text = fs::read_to_string(entry.path()).unwrap_or_default();
            for line in text.lines().map(str::trim) {
                if line.is_empty() || line.starts_with('#') || line.starts_with("import") {
                    continue;
                }
                let folder = lexical(&site.join(line));
                if folder.is_dir() && !folders.iter().any(|known| folder.starts_with(known)) {
                    added.push(folder);
                }
            }
        }
    }
    added.sort();
    added.dedup();
    added
}

/// The library folders of the interpreter installed in `installation` (a venv's folder, the
/// interpreter's prefix): each `lib/python3.*` (and `lib64/…`) folder, sorted.
pub(crate) fn library_folders(installation: &[Utf8PathBuf]) -> Vec<Utf8PathBuf> {
    let mut folders: Vec<Utf8PathBuf> = installation
        .iter()
        .flat_map(|folder| [folder.join("lib"), folder.join("lib64")])
        // A venv's `lib64` is a link to its `lib`: the same files, under a name Python does not use.
        .filter(|lib| !lib.is_symlink())
        .filter_map(|lib| lib.read_dir_utf8().ok())
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().starts_with("python3") && entry.path().is_dir())
        .map(|entry| entry.into_path())
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// The mirror of `folders`' bytecode under `cache`, made or refreshed now, with what `python`
/// (when given) compiles of the modules that have none; `None` when there is nothing to mirror
/// or it cannot be written (then the run reads no bytecode).
pub(crate) fn mirror(
    folders: &[Utf8PathBuf],
    cache: &Utf8Path,
    python: Option<&Utf8Path>,
) -> Option<Utf8PathBuf> {
    if folders.is_empty() {
        return None;
    }
    let stamp = stamp_of(folders);
    let names: Vec<&str> = folders.iter().map(|folder| folder.as_str()).collect();
    let mirror = cache.join(&sha256_hex(names.join("\n").as_bytes())[..16]);
    if fs::read_to_string(mirror.join(STAMP)).is_ok_and(|made| made == stamp) {
        // Nobody waits for the deleting: a run that ends first leaves the rest to the next one.
        drop(sweep(cache));
        return Some(mirror);
    }
    fs::create_dir_all(cache).ok()?;
    let staging = tempfile::Builder::new()
        .prefix(".making-")
        .tempdir_in(cache)
        .ok()?;
    let root = Utf8Path::from_path(staging.path())?;
    for folder in folders {
        copy_bytecode(folder, root);
    }
    if let Some(python) = python {
        // What an earlier mirror compiled stays: a stale one is recompiled (Python checks each
        // `.pyc` against its source), a current one need not be.
        adopt(&mirror, root);
        compile_missing(python, folders, root);
    }
    fs::write(root.join(STAMP), &stamp).ok()?;
    let made = Utf8PathBuf::from_path_buf(staging.keep()).ok()?;
    put_in_place(&made, &mirror, &stamp, cache);
    remove_orphans(cache);
    drop(sweep(cache));
    mirror.join(STAMP).is_file().then_some(mirror)
}

/// Puts the mirror just `made` (stamped `stamp`) at `mirror`. Another mend may have put one there
/// meanwhile: one as current as this serves, and this one goes, as that mend may already be
/// running tests on it (moving it aside pulled it from under that run's sandbox, whose bind of
/// it then failed); an older one goes, and this one takes its place.
fn put_in_place(made: &Utf8Path, mirror: &Utf8Path, stamp: &str, cache: &Utf8Path) {
    if fs::read_to_string(mirror.join(STAMP)).is_ok_and(|there| there == stamp) {
        discard(made, cache);
        return;
    }
    if mirror.exists() {
        discard(mirror, cache);
    }
    // Should yet another mend have put its own there since, that one serves.
    if fs::rename(made, mirror).is_err() {
        discard(made, cache);
    }
}

/// Compiles into `root`, the mirror being made, the modules of `folders` that have no bytecode
/// there: packages installed without it (uv compiles none unless asked; pip under
/// `PYTHONDONTWRITEBYTECODE` neither) were compiled from source by every sandboxed run, 2-3× the
/// tests' own time, while a run in place compiles them once. Done once per mirror, by the
/// interpreter the tests run with, isolated (`-I`) and outside the sandbox, where no test has run
/// yet; `pycache_prefix` makes it write into the mirror only, never beside the sources, and a
/// Python older than 3.8, which has no prefix, compiles nothing. Compiling runs no module's code;
/// a file that does not compile (a test fixture of bad syntax) is left to compile from source.
///
/// Only installed packages are compiled (each `site-packages`, and what `.pth` files add): an
/// interpreter's own library comes compiled, and checking its thousands of modules took
/// half a minute.
fn compile_missing(python: &Utf8Path, folders: &[Utf8PathBuf], root: &Utf8Path) {
    let packages: Vec<Utf8PathBuf> = folders
        .iter()
        .map(|folder| match folder.file_name() {
            Some(name) if name.starts_with("python3") => folder.join("site-packages"),
            _ => folder.clone(),
        })
        .filter(|folder| folder.is_dir())
        .collect();
    if packages.is_empty() {
        return;
    }
    const COMPILE: &str = "import sys, compileall\n\
        if getattr(sys, 'pycache_prefix', None):\n\
        \x20   for folder in sys.argv[1:]:\n\
        \x20       compileall.compile_dir(folder, quiet=2, workers=0)\n";
    // `-B`: the compiler's own imports write nothing; only what compileall writes comes in.
    let _ = std::process::Command::new(python)
        .args(["-I", "-B", "-X"])
        .arg(format!("pycache_prefix={root}"))
        .args(["-c", COMPILE])
        .args(&packages)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Every `.pyc` of the mirror `old` that `root` lacks, hard-linked into it.
fn adopt(old: &Utf8Path, root: &Utf8Path) {
    let Ok(entries) = old.read_dir_utf8() else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let to = root.join(entry.file_name());
        if kind.is_dir() {
            adopt(entry.path(), &to);
        } else if kind.is_file() && entry.file_name().ends_with(".pyc") && !to.exists() {
            let _ = fs::create_dir_all(root).and_then(|()| fs::hard_link(entry.path(), &to));
        }
    }
}

/// The names of the folders a mirror is moved to before it is deleted.
const TRASH: &str = ".trash-";

/// Moves `folder` aside at once, under a name `sweep` deletes. Deleting a mirror's thousands of
/// files took from seconds to minutes on a busy disk, all of it inside the test run's time; a
/// rename takes none. The rename replaces an empty folder made for it, so two mends never pick
/// the same name.
fn discard(folder: &Utf8Path, cache: &Utf8Path) {
    if let Ok(trash) = tempfile::Builder::new().prefix(TRASH).tempdir_in(cache) {
        let _ = fs::rename(folder, trash.keep());
    }
}

/// Deletes the folders `discard` moved aside, on a thread of its own.
fn sweep(cache: &Utf8Path) -> std::thread::JoinHandle<()> {
    let cache = cache.to_owned();
    std::thread::spawn(move || {
        let Ok(entries) = cache.read_dir_utf8() else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().starts_with(TRASH) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    })
}

/// Removes the mirrors of installations that are gone (a venv deleted, a temporary one), so the
/// cache does not grow with every venv ever used.
fn remove_orphans(cache: &Utf8Path) {
    let Ok(entries) = cache.read_dir_utf8() else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().starts_with(TRASH) {
            continue;
        }
        let Ok(made) = fs::read_to_string(entry.path().join(STAMP)) else {
            continue;
        };
        let gone = made
            .lines()
            .filter_map(|line| line.split('\t').next())
            .any(|folder| !Utf8Path::new(folder).exists());
        if gone {
            discard(entry.path(), cache);
        }
    }
}

/// Each folder mirrored and each `site-packages` in it, with its modification time: installing
/// or removing a package changes one of them.
fn stamp_of(folders: &[Utf8PathBuf]) -> String {
    let mut lines = Vec::new();
    for folder in folders {
        let site = Some(folder.join("site-packages")).filter(|site| site.is_dir());
        // Every line names a folder that exists: one that is gone makes the mirror an orphan.
        for watched in std::iter::once(folder.clone()).chain(site) {
            let time = fs::metadata(&watched)
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            lines.push(format!("{watched}\t{time}"));
        }
    }
    lines.join("\n") + "\n"
}

/// Every `D/__pycache__/NAME.pyc` under `folder` as `root/D/NAME.pyc`: hard-linked where the
/// cache shares the file system, else copied. A file that cannot be mirrored is left out (its
/// module compiles from source). Links are not followed, so nothing outside `folder` comes in.
fn copy_bytecode(folder: &Utf8Path, root: &Utf8Path) {
    let Ok(entries) = folder.read_dir_utf8() else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_dir() {
            continue;
        }
        if entry.file_name() != "__pycache__" {
            copy_bytecode(entry.path(), root);
            continue;
        }
        let target = root.join(folder.strip_prefix("/").unwrap_or(folder));
        let Ok(files) = entry.path().read_dir_utf8() else {
            continue;
        };
        let mut made = false;
        for file in files.flatten() {
            let is_file = file.file_type().is_ok_and(|kind| kind.is_file());
            if !is_file || !file.file_name().ends_with(".pyc") {
                continue;
            }
            if !made {
                made = fs::create_dir_all(&target).is_ok();
            }
            let to = target.join(file.file_name());
            if fs::hard_link(file.path(), &to).is_err() {
                let _ = fs::copy(file.path(), &to);
            }
        }
    }
}

/// `path` with its `.` and `..` parts resolved by name, as Python's `site` does to a `.pth` line.
fn lexical(path: &Utf8Path) -> Utf8PathBuf {
    let mut resolved = Utf8PathBuf::new();
    for part in path.components() {
        match part {
            camino::Utf8Component::CurDir => {}
            camino::Utf8Component::ParentDir => {
                resolved.pop();
            }
            other => resolved.push(other),
        }
    }
    resolved
}

/// Where mend keeps the mirrors: `$XDG_CACHE_HOME/mend/bytecode`, else `~/.cache/mend/bytecode`.
pub(crate) fn cache_folder() -> Option<Utf8PathBuf> {
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .filter(|value| value.starts_with('/'))
    };
    var("XDG_CACHE_HOME")
        .map(Utf8PathBuf::from)
        .or_else(|| var("HOME").map(|home| Utf8PathBuf::from(home).join(".cache")))
        .map(|cache| cache.join("mend/bytecode"))
}

#[cfg(test)]
mod tests;
