use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

use super::{usable, Chain};

fn write(path: &Utf8Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "bytecode").unwrap();
}

/// A mirror of `/opt/py/lib/python3.11` and `/home/u/venv/lib/python3.11` as `mirror` makes it.
fn mirror_of_two_folders(root: &Utf8Path) -> (Utf8PathBuf, Vec<Utf8PathBuf>) {
    let folders = vec![
        Utf8PathBuf::from("/opt/py/lib/python3.11"),
        Utf8PathBuf::from("/home/u/venv/lib/python3.11"),
    ];
    let mirror = root.join("mirror");
    fs::create_dir_all(&mirror).unwrap();
    fs::write(mirror.join("made-from"), "stamp").unwrap();
    write(&mirror.join("opt/py/lib/python3.11/json/decoder.cpython-311.pyc"));
    write(&mirror.join("home/u/venv/lib/python3.11/site-packages/_pytest/python.cpython-311.pyc"));
    (mirror, folders)
}

#[test]
fn a_mirror_of_the_installation_alone_holds_no_strangers() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, folders) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    let chain = Chain::of(&mirror, &folders);
    assert_eq!(chain.strangers(), Vec::<String>::new());
    assert!(chain.holds_only_its_own());
}

#[test]
fn bytecode_off_the_way_to_the_installation_is_a_stranger_and_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, folders) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    // A test module of a copy in /tmp, one beside the venv, and a file at the root.
    write(&mirror.join("tmp/copy/tests/test_totals.cpython-311-pytest-9.2.0.pyc"));
    write(&mirror.join("home/u/copy/tests/test_totals.cpython-311.pyc"));
    write(&mirror.join("home/u/venv/lib/stray.cpython-311.pyc"));
    fs::write(mirror.join("notes"), "").unwrap();
    let chain = Chain::of(&mirror, &folders);
    assert_eq!(
        chain.strangers(),
        [
            "/home/u/copy",
            "/home/u/venv/lib/stray.cpython-311.pyc",
            "/notes",
            "/tmp"
        ]
    );
    chain.remove_strangers();
    assert_eq!(chain.strangers(), Vec::<String>::new());
    // The installation's own bytecode stays.
    assert!(mirror
        .join("opt/py/lib/python3.11/json/decoder.cpython-311.pyc")
        .is_file());
    assert!(mirror.join("made-from").is_file());
}

#[test]
fn the_stamps_name_what_a_run_wrote_into_the_chain_even_when_it_removed_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, folders) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    let untouched = Chain::of(&mirror, &folders).stamps();
    // Bytecode inside a mirrored folder is the installation's: no write into the chain.
    write(&mirror.join("opt/py/lib/python3.11/json/scanner.cpython-311.pyc"));
    assert_eq!(untouched.written_since(), Vec::<String>::new());

    let left = Chain::of(&mirror, &folders).stamps();
    write(&mirror.join("tmp/copy/tests/test_totals.cpython-311.pyc"));
    assert_eq!(left.written_since(), ["/tmp"]);
    fs::remove_dir_all(mirror.join("tmp")).unwrap();

    let removed = Chain::of(&mirror, &folders).stamps();
    // The change time has a clock tick's grain: a write in the same tick would read unchanged.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&mirror.join("home/u/copy/test_totals.cpython-311.pyc"));
    fs::remove_dir_all(mirror.join("home/u/copy")).unwrap();
    assert_eq!(
        removed.written_since(),
        ["/home/u (written and removed again)"]
    );
}

#[test]
fn the_mirror_is_read_unshielded_only_where_the_user_may_write_the_installation_and_the_copy_lies_outside(
) {
    let folders = [
        Utf8PathBuf::from("/opt/py/lib/python3.11"),
        Utf8PathBuf::from("/home/u/venv/lib/python3.11"),
    ];
    let copy = Utf8Path::new("/tmp/mend-copy");
    let all = |_: &Utf8Path| true;
    assert!(usable(
        &folders,
        (copy, Some(Utf8Path::new("/home/u/project"))),
        all
    ));
    // The interpreter's own library is root's: its mirror would be the one part the user could write.
    let not_the_system = |folder: &Utf8Path| !folder.starts_with("/opt");
    assert!(!usable(&folders, (copy, None), not_the_system));
    let inside = Utf8Path::new("/opt/py/lib/python3.11/site-packages/copy");
    assert!(!usable(&folders, (inside, None), all));
    assert!(!usable(&folders, (copy, Some(inside)), all));
    assert!(!usable(&[], (copy, None), all));
}
