//! The compiled witness: run by the loader in the interpreter that made it, under the loader's
//! own file name; the body compiled instead anywhere else; a cache entry changed by a run
//! removed.

use std::process::Command;

use camino::Utf8Path;

use super::{renamed, run, Compiled, HandedOver, COMPILE, LOADER_CODE_FILE};

/// The witness `body` compiled by `python`, as a cache entry holds it.
fn compile(python: &Utf8Path, body: &str) -> Option<Vec<u8>> {
    run(python, COMPILE, body)
}
use crate::test_support::python;
use crate::verdict::read::witness_code::{WITNESS_BODY_FILE, WITNESS_LOADER, WITNESS_STUB};

use super::WITNESS_CODE_FILE;

/// A "witness" that says which of its two forms ran, and whether its functions carry the
/// loader's file name (the witness tells its own frames by it).
const CACHED: &str = "def own():\n    def inner():\n        pass\n    return inner\n\
                      print('cached', own().__code__.co_filename == __file__)\n";
const SOURCE: &str = "print('compiled by the loader')\n";

/// What importing the loader from `folder`, which holds `code` as the compiled witness, prints.
fn loaded_with(folder: &Utf8Path, code: &[u8]) -> String {
    std::fs::write(folder.join("mend_witness.py"), WITNESS_LOADER).unwrap();
    std::fs::write(folder.join(WITNESS_BODY_FILE), SOURCE).unwrap();
    std::fs::write(folder.join(WITNESS_CODE_FILE), code).unwrap();
    imported(folder)
}

#[test]
fn the_loader_runs_the_code_its_own_interpreter_compiled_under_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let code = compile(&python(), CACHED).unwrap();
    // On every Python the witness meets (3.6 and 3.7 have no `CodeType.replace`), the nested
    // function included.
    assert_eq!(loaded_with(folder, &code), "cached True\n");
}

#[test]
fn code_another_interpreter_compiled_or_none_at_all_leaves_the_loader_compiling() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let code = compile(&python(), CACHED).unwrap();
    let (tag, rest) = code.split_at(code.iter().position(|byte| *byte == b'\n').unwrap());
    let other = [b"cpython-27 20712f0".as_slice(), rest].concat();
    assert_ne!(tag, b"cpython-27 20712f0");
    for handed in [other.as_slice(), b"", b"garbage"] {
        assert_eq!(loaded_with(folder, handed), "compiled by the loader\n");
    }
}

#[test]
fn a_cache_entry_the_run_changed_is_removed_and_one_it_left_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let entry = |name: &str, now: &[u8]| {
        let path = folder.join(name);
        std::fs::write(&path, now).unwrap();
        let compiled = Compiled {
            bytes: b"as handed over".to_vec(),
            entry: path.clone(),
        };
        compiled.keep_or_drop();
        path.exists()
    };
    assert_eq!(
        [
            entry("left", b"as handed over"),
            entry("changed", b"the tests' code")
        ],
        [true, false]
    );
}

/// The file names of every code object in `code` (marshal's data after the tag line), as the
/// interpreter reads them.
fn names_in(code: &[u8]) -> String {
    let data = &code[code.iter().position(|byte| *byte == b'\n').unwrap() + 1..];
    let program = "import marshal, sys, types\n\
                   def walk(code):\n    yield code.co_filename\n    for const in code.co_consts:\n        \
                   if isinstance(const, types.CodeType):\n            yield from walk(const)\n\
                   print(sorted(set(walk(marshal.loads(sys.stdin.buffer.read())))))";
    let mut child = Command::new(python())
        .args(["-c", program])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(data).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_code_is_handed_over_named_after_the_loader_every_nested_function_too() {
    let code = compile(&python(), CACHED).unwrap();
    // A short ASCII name, and one longer than marshal's short form that is not ASCII.
    let long = format!("/tmp/{}/mend_witness.py", "café-".repeat(60));
    for file in ["/tmp/run/mend_witness.py", long.as_str()] {
        let named = renamed(&code, file).unwrap();
        assert_eq!(names_in(&named), format!("['{file}']\n"));
    }
    // And the loader runs it as it is, its own name already on it.
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let compiled = Compiled {
        bytes: code,
        entry: folder.join("entry"),
    };
    let handed = compiled.named(folder.join("mend_witness.py").as_str());
    assert_eq!(loaded_with(folder, &handed), "cached True\n");
}

#[test]
fn a_name_found_more_than_once_is_left_for_the_loader_to_rename() {
    // The compiled name as a string of the body's own: two strings to choose from.
    let body = format!("{CACHED}label = '<mend witness>'\n");
    let code = compile(&python(), &body).unwrap();
    assert_eq!(renamed(&code, "/tmp/run/mend_witness.py"), None);
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let compiled = Compiled {
        bytes: code.clone(),
        entry: folder.join("entry"),
    };
    assert_eq!(compiled.named("/tmp/run/mend_witness.py"), code);
    assert_eq!(loaded_with(folder, &code), "cached True\n");
}

/// What `python -c program path` prints, its failure shown whole.
fn printed_by_python(options: &[&str], program: &str, path: &Utf8Path) -> String {
    let output = Command::new(python())
        .args(options)
        .args(["-c", program])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// What importing the witness module from `folder` (a path entry: a folder or an archive)
/// prints.
fn imported(folder: &Utf8Path) -> String {
    printed_by_python(
        &[],
        "import sys; sys.path.insert(0, sys.argv[1]); import mend_witness",
        folder,
    )
}

#[test]
fn the_loader_goes_compiled_behind_a_stub_and_any_other_interpreter_reads_its_source() {
    // The module is compiled from its source on every run: it is the stub, a fraction of the
    // loader's size.
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let handed = HandedOver::write(folder, &python(), CACHED).unwrap();
    assert_eq!(handed.compiled_parts(), 2);
    // The stub goes in an archive, which pytest does not rewrite.
    assert_eq!(handed.import_path(), folder.join("mend_witness.zip"));
    assert_eq!(archived(handed.import_path()), WITNESS_STUB);
    assert!(WITNESS_STUB.len() * 3 < WITNESS_LOADER.len());
    assert_eq!(imported(handed.import_path()), "cached True\n");
    // The loader another interpreter compiled (its tag is not this one's), or none readable:
    // the stub compiles the loader's source, and the witness runs all the same.
    let compiled = folder.join(LOADER_CODE_FILE);
    let bytes = std::fs::read(&compiled).unwrap();
    let rest = &bytes[bytes.iter().position(|byte| *byte == b'\n').unwrap()..];
    for handed in [
        [b"cpython-27 20712f0".as_slice(), rest].concat(),
        b"garbage".to_vec(),
    ] {
        std::fs::write(&compiled, handed).unwrap();
        assert_eq!(imported(&folder.join("mend_witness.zip")), "cached True\n");
    }
}

/// The module Python's `zipfile` reads in `archive`, after checking every entry's CRC and that
/// the archive holds it and the metadata of a distribution, nothing else.
fn archived(archive: &Utf8Path) -> String {
    let printed = printed_by_python(
        &[],
        "import json, sys, zipfile\n\
         with zipfile.ZipFile(sys.argv[1]) as archive:\n\
         \x20   assert archive.testzip() is None\n\
         \x20   print(json.dumps([archive.namelist(), archive.read('mend_witness.py').decode()]))",
        archive,
    );
    let (names, module): (Vec<String>, String) = serde_json::from_str(&printed).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let metadata = format!("mend_witness-{version}.dist-info");
    assert_eq!(
        names,
        [
            "mend_witness.py".to_owned(),
            format!("{metadata}/METADATA"),
            format!("{metadata}/entry_points.txt"),
        ]
    );
    module
}

#[test]
fn where_the_loader_cannot_be_compiled_the_archive_holds_it_as_the_module() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let handed = HandedOver::write(folder, &folder.join("no-python"), SOURCE).unwrap();
    assert_eq!(handed.compiled_parts(), 0);
    assert_eq!(handed.import_path(), folder.join("mend_witness.zip"));
    assert_eq!(archived(handed.import_path()), WITNESS_LOADER);
    // The loader, run from the archive, compiles the body beside it.
    assert_eq!(imported(handed.import_path()), "compiled by the loader\n");
}

#[test]
fn the_archive_declares_the_module_a_pytest_plugin_as_an_installed_distribution_would() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap();
    let handed = HandedOver::write(folder, &python(), CACHED).unwrap();
    // As pluggy finds the plugins pytest loads on its own: every distribution on the path,
    // each of its entry points in the `pytest11` group, loaded.
    let found = printed_by_python(
        &["-I"],
        "import importlib.metadata as m, sys\n\
         sys.path.insert(0, sys.argv[1])\n\
         for dist in m.distributions(path=[sys.argv[1]]):\n\
         \x20   for ep in dist.entry_points:\n\
         \x20       print(dist.metadata['Name'], ep.group, ep.name, ep.load().__name__)",
        handed.import_path(),
    );
    assert_eq!(
        found,
        "cached True\nmend-witness pytest11 mend_witness mend_witness\n"
    );
}
