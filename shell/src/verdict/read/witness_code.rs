//! The witness's code compiled once per interpreter instead of on every run. Compiling its body
//! cost a pytest run more than all of its checks together (84 M instructions, a tenth of a
//! one-test run), so mend compiles it with the interpreter once, outside any test run (`-I -S`:
//! nothing of the project's, no `.pth`, no environment), keeps the result beside the bytecode
//! mirrors (`$XDG_CACHE_HOME/mend/witness`, else `~/.cache/mend/witness`, a folder bubblewrap
//! hides from the tests) and hands it to each run in the run's own folder. The file starts with
//! the interpreter's cache tag and version: the loader runs the code only in the very interpreter
//! that made it, compiling the body itself otherwise (another interpreter on the test command's
//! `PATH`). The code is compiled with docstrings left out (`optimize=2`: the witness reads none of
//! its own) and handed over named after the run's loader file ([`Compiled::named`]), which the
//! loader tells its own frames by; a code object named otherwise is renamed by the loader, which
//! makes every code object anew (a third of loading it).
//!
//! The loader is handed over compiled too, behind a stub (`stub.py`, the module pytest imports):
//! the module is compiled from its source on every run (pytest once rewrote its asserts too,
//! which cost a small suite a sixth of what the whole witness did), and the stub is a quarter of
//! the loader's size. The stub runs the compiled loader in the interpreter that made it and
//! compiles the loader's source (beside it) in any other, as the loader does with the body. (A
//! module without source, `mend_witness.pyc`, would spare even the stub's compiling, but any
//! other interpreter fails to import it: its magic number is that interpreter's own.) Where mend
//! cannot compile the loader, the loader itself is the module, as source.
//!
//! The module goes in a zip archive (`mend_witness.zip`, the path entry mend adds), beside the
//! metadata of a distribution that declares it a pytest plugin (its `pytest11` entry point), and
//! the loader and the body beside the archive. pytest loads it as the first of the installed
//! plugins it loads on its own (the archive is on the path before the installed packages): a
//! `-p` would make pytest read the metadata of every installed distribution once more, the
//! largest part of what the witness cost a small suite (7.7 M instructions on the sample under
//! Python 3.11, 18.7 M under 3.9, which caches none of it). Where pytest loads no installed
//! plugin on its own, or the command names plugins of its own with `-p`, mend names the witness
//! with `-p` after all (`exec::runner`). A lookup in an archive's list of names also costs less
//! than one in a folder, which stats it and joins a path for each suffix (every top-level import
//! looks there until the witness takes the entry off the path), and pytest rewrites no module an
//! archive holds.
//!
//! A cache entry is named by the source's digest and the interpreter's real file, size and time,
//! so a new mend or a reinstalled Python makes a new one. Without a sandbox the tests can write
//! the cache as they can write the venv; the run compares the entry after the tests with what it
//! handed them, and an entry they changed is removed ([`Compiled::keep_or_drop`]).

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::UNIX_EPOCH;

use camino::{Utf8Path, Utf8PathBuf};

use crate::atomic::{sha256_hex, write_file};

mod archive;

/// The file the loader looks for beside itself.
pub const WITNESS_CODE_FILE: &str = "mend_witness.code";

/// The module pytest imports (`-p mend_witness`): the stub, or the loader itself.
pub const WITNESS_MODULE: &str = "mend_witness";
/// The loader, which runs the witness's code in the module, read from a file beside it.
pub const WITNESS_LOADER: &str = include_str!("../trust/witness/loader.py");
/// The stub, which runs the loader in the module, compiled where it can be.
pub const WITNESS_STUB: &str = include_str!("../trust/witness/stub.py");
/// The files the stub reads the loader from, compiled and as source (names no `import` finds).
const LOADER_CODE_FILE: &str = "mend_witness.loader.code";
const LOADER_FILE: &str = "mend_witness.loader";
/// The file the loader runs the witness's code from (a name no `import` finds).
pub(crate) const WITNESS_BODY_FILE: &str = "mend_witness.body";
/// The archive the module is handed over in, with the metadata that makes it a pytest plugin.
const WITNESS_ARCHIVE: &str = "mend_witness.zip";
/// The distribution's metadata: a name and a version are all `importlib.metadata` needs (pytest
/// names it in its header, `plugins: mend-witness-…`).
const WITNESS_METADATA: &str = concat!(
    "Metadata-Version: 2.1\nName: mend-witness\nVersion: ",
    env!("CARGO_PKG_VERSION"),
    "\nSummary: mend's witness of a pytest run\n"
);
/// The entry point pytest loads its installed plugins by.
const WITNESS_ENTRY_POINTS: &str = "[pytest11]\nmend_witness = mend_witness\n";

/// Run with `-c`: the body from standard input compiled, after a first line naming the
/// interpreter (the same words the loader compares, loader.py `_cached_code`).
const COMPILE: &str = "import marshal, sys
source = sys.stdin.buffer.read()
tag = '%s %x' % (sys.implementation.cache_tag, sys.hexversion)
code = compile(source, '<mend witness>', 'exec', 0, True, 2)
sys.stdout.buffer.write(tag.encode() + b'\\n' + marshal.dumps(code))
";

/// The file name the code is compiled under, written once in the marshalled code: every later
/// code object refers back to it.
const COMPILED_NAME: &[u8] = b"<mend witness>";

/// The compiled witness for one run: its bytes and where they are kept.
pub(crate) struct Compiled {
    pub bytes: Vec<u8>,
    entry: Utf8PathBuf,
}

impl Compiled {
    /// The witness's `body` compiled by `python`, from the cache or compiled now; `None` when
    /// there is no cache folder or `python` cannot compile it (the loader then compiles).
    pub(crate) fn of(python: &Utf8Path, body: &str) -> Option<Compiled> {
        Self::by(python, COMPILE, body)
    }

    /// The loader compiled by `python`, as [`Compiled::of`].
    fn loader_of(python: &Utf8Path) -> Option<Compiled> {
        Self::by(python, COMPILE, WITNESS_LOADER)
    }

    fn by(python: &Utf8Path, script: &str, source: &str) -> Option<Compiled> {
        let folder = crate::exec::bytecode::cache_folder()?
            .parent()?
            .join("witness");
        let real = python.canonicalize_utf8().ok()?;
        let metadata = fs::metadata(&real).ok()?;
        let time = metadata
            .modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_nanos();
        let key = sha256_hex(
            format!("{script}\0{source}\0{real}\0{}\0{time}", metadata.len()).as_bytes(),
        );
        let entry = folder.join(key);
        if let Ok(bytes) = fs::read(&entry) {
            return Some(Compiled { bytes, entry });
        }
        let bytes = run(&real, script, source)?;
        // A cache that cannot be written costs the next run a compile, nothing more.
        let _ = fs::create_dir_all(&folder)
            .and_then(|()| write_file(&entry, |file| file.write_all(&bytes)));
        Some(Compiled { bytes, entry })
    }

    /// The code as the loader at `file` runs it: named after that file, the name written in the
    /// place of the one it was compiled under. marshal keeps no offsets (a later reference is
    /// the number of the object it names), so a string of another length takes its place; the
    /// bytes are handed over unchanged (the loader then renames) unless that name is found
    /// exactly once.
    pub(crate) fn named(&self, file: &str) -> Vec<u8> {
        renamed(&self.bytes, file).unwrap_or_else(|| self.bytes.clone())
    }

    /// After the run: an entry that no longer holds what was handed over (the tests wrote it,
    /// with no sandbox to stop them) is removed, so no later run gets their code.
    pub(crate) fn keep_or_drop(&self) {
        if fs::read(&self.entry).ok().as_ref() != Some(&self.bytes) {
            let _ = fs::remove_file(&self.entry);
        }
    }
}

/// What a pytest run gets of the witness, in its folder: the archive with the module pytest
/// imports (the stub, or the loader where `python` cannot compile it) and the metadata that
/// declares it a plugin, the body beside it and, where `python` can compile them, the loader
/// compiled and as source and the body's code; all code named after the module's file in the
/// archive, which the witness tells its own frames by.
pub struct HandedOver {
    compiled: Vec<Compiled>,
    import_path: Utf8PathBuf,
}

impl HandedOver {
    /// Writes the witness (`body`) for `python` into `folder`.
    pub fn write(folder: &Utf8Path, python: &Utf8Path, body: &str) -> std::io::Result<Self> {
        let import_path = folder.join(WITNESS_ARCHIVE);
        let module_name = format!("{WITNESS_MODULE}.py");
        // Inside the archive, the module's file is named as the import system names it.
        let module = import_path.join(&module_name);
        let loader_code = Compiled::loader_of(python);
        let module_source = match &loader_code {
            Some(code) => {
                fs::write(folder.join(LOADER_FILE), WITNESS_LOADER)?;
                fs::write(folder.join(LOADER_CODE_FILE), code.named(module.as_str()))?;
                WITNESS_STUB
            }
            None => WITNESS_LOADER,
        };
        let metadata = format!("{WITNESS_MODULE}-{}.dist-info", env!("CARGO_PKG_VERSION"));
        let files = [
            (module_name.as_str(), module_source.as_bytes()),
            (&format!("{metadata}/METADATA"), WITNESS_METADATA.as_bytes()),
            (
                &format!("{metadata}/entry_points.txt"),
                WITNESS_ENTRY_POINTS.as_bytes(),
            ),
        ];
        let archive = archive::stored(&files).ok_or_else(|| {
            std::io::Error::other("mend's witness is too large for a zip archive")
        })?;
        fs::write(&import_path, archive)?;
        fs::write(folder.join(WITNESS_BODY_FILE), body)?;
        let body_code = Compiled::of(python, body);
        if let Some(code) = &body_code {
            fs::write(folder.join(WITNESS_CODE_FILE), code.named(module.as_str()))?;
        }
        let compiled = loader_code.into_iter().chain(body_code).collect();
        Ok(HandedOver {
            compiled,
            import_path,
        })
    }

    /// How many of the loader and the body went compiled (0, 1 or 2).
    pub fn compiled_parts(&self) -> usize {
        self.compiled.len()
    }

    /// The path entry pytest imports the witness from: its archive.
    pub fn import_path(&self) -> &Utf8Path {
        &self.import_path
    }

    /// After the run: each cache entry the tests changed is removed ([`Compiled::keep_or_drop`]).
    pub fn keep_or_drop(&self) {
        self.compiled.iter().for_each(Compiled::keep_or_drop);
    }
}

/// `bytes` (the interpreter's tag, a newline, marshal's data) with the compiled name replaced by
/// `file`; `None` unless the name is there once, as a string of one of marshal's forms.
fn renamed(bytes: &[u8], file: &str) -> Option<Vec<u8>> {
    let data_start = bytes.iter().position(|byte| *byte == b'\n')? + 1;
    let length = u8::try_from(COMPILED_NAME.len()).ok()?;
    let long_length = u32::from(length).to_le_bytes();
    // Where each string of the name starts (its form's byte) and ends. marshal's string forms:
    // short ASCII (one length byte), ASCII and UTF-8 (four), each interned or not, each perhaps
    // flagged as referred to later (0x80).
    let found: Vec<(usize, usize)> = bytes[data_start..]
        .windows(COMPILED_NAME.len())
        .enumerate()
        .filter(|(_, window)| *window == COMPILED_NAME)
        .filter_map(|(at, _)| {
            let at = data_start + at;
            let form = |start: usize| bytes[start] & 0x7F;
            let start = if at >= 2 && bytes[at - 1] == length && matches!(form(at - 2), b'z' | b'Z')
            {
                at - 2
            } else if at >= 5
                && bytes[at - 4..at] == long_length
                && matches!(form(at - 5), b'a' | b'A' | b'u')
            {
                at - 5
            } else {
                return None;
            };
            Some((start, at + COMPILED_NAME.len()))
        })
        .collect();
    let [(start, end)] = found.as_slice() else {
        return None;
    };
    let mut named = Vec::with_capacity(bytes.len() + file.len());
    named.extend_from_slice(&bytes[..*start]);
    named.push(b'u' | (bytes[*start] & 0x80));
    named.extend_from_slice(&u32::try_from(file.len()).ok()?.to_le_bytes());
    named.extend_from_slice(file.as_bytes());
    named.extend_from_slice(&bytes[*end..]);
    Some(named)
}

/// What `script` prints given `source`, run by `python` with nothing of the project's.
fn run(python: &Utf8Path, script: &str, source: &str) -> Option<Vec<u8>> {
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Written whole before the output is read: the script reads all of its input first.
    let written = child.stdin.take()?.write_all(source.as_bytes());
    let output = child.wait_with_output().ok()?;
    (written.is_ok() && output.status.success() && !output.stdout.is_empty())
        .then_some(output.stdout)
}

#[cfg(test)]
mod tests;
