//! The witness's code compiled once per interpreter instead of on every run. Compiling its body
//! cost a pytest run more than all of its checks together (84 M instructions, a tenth of a
//! one-test run), so mend compiles it with the interpreter once, outside any test run (`-I -S`:
//! nothing of the project's, no `.pth`, no environment), keeps the result beside the bytecode
//! mirrors (`$XDG_CACHE_HOME/mend/witness`, else `~/.cache/mend/witness`, a folder bubblewrap
//! hides from the tests) and hands it to each run in the run's own folder. The file starts with
//! the interpreter's cache tag and version: the loader runs the code only in the very interpreter
//! that made it, compiling the body itself otherwise (another interpreter on the test command's
//! `PATH`). Pythons 3.6 and 3.7 have no `CodeType.replace` to rename the code to the loader's
//! file; the loader makes each code object anew there, which costs far less than the compile.
//!
//! A cache entry is named by the body's digest and the interpreter's real file, size and time,
//! so a new mend or a reinstalled Python makes a new one. Without a sandbox the tests can write
//! the cache as they can write the venv; the run compares the entry after the tests with what it
//! handed them, and an entry they changed is removed ([`Compiled::keep_or_drop`]).

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::UNIX_EPOCH;

use camino::{Utf8Path, Utf8PathBuf};

use crate::atomic::{sha256_hex, write_file};

/// The file the loader looks for beside itself.
pub(crate) const WITNESS_CODE_FILE: &str = "mend_witness.code";

/// Run with `-c`: the body from standard input compiled, after a first line naming the
/// interpreter (the same words the loader compares, loader.py `_cached_code`).
const COMPILE: &str = "import marshal, sys
source = sys.stdin.buffer.read()
tag = '%s %x' % (sys.implementation.cache_tag, sys.hexversion)
sys.stdout.buffer.write(tag.encode() + b'\\n' + marshal.dumps(compile(source, '<mend witness>', 'exec')))
";

/// The compiled witness for one run: its bytes and where they are kept.
pub(crate) struct Compiled {
    pub bytes: Vec<u8>,
    entry: Utf8PathBuf,
}

impl Compiled {
    /// The witness's `body` compiled by `python`, from the cache or compiled now; `None` when
    /// there is no cache folder or `python` cannot compile it (the loader then compiles).
    pub(crate) fn of(python: &Utf8Path, body: &str) -> Option<Compiled> {
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
        let key = sha256_hex(format!("{body}\0{real}\0{}\0{time}", metadata.len()).as_bytes());
        let entry = folder.join(key);
        if let Ok(bytes) = fs::read(&entry) {
            return Some(Compiled { bytes, entry });
        }
        let bytes = compile(&real, body)?;
        // A cache that cannot be written costs the next run a compile, nothing more.
        let _ = fs::create_dir_all(&folder)
            .and_then(|()| write_file(&entry, |file| file.write_all(&bytes)));
        Some(Compiled { bytes, entry })
    }

    /// After the run: an entry that no longer holds what was handed over (the tests wrote it,
    /// with no sandbox to stop them) is removed, so no later run gets their code.
    pub(crate) fn keep_or_drop(&self) {
        if fs::read(&self.entry).ok().as_ref() != Some(&self.bytes) {
            let _ = fs::remove_file(&self.entry);
        }
    }
}

fn compile(python: &Utf8Path, body: &str) -> Option<Vec<u8>> {
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", COMPILE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Written whole before the output is read: the script reads all of its input first.
    let written = child.stdin.take()?.write_all(body.as_bytes());
    let output = child.wait_with_output().ok()?;
    (written.is_ok() && output.status.success() && !output.stdout.is_empty())
        .then_some(output.stdout)
}

#[cfg(test)]
mod tests;
