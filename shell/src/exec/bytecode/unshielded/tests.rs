use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

use super::{usable, RunPlaces};

fn write(path: &Utf8Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "bytecode").unwrap();
}

/// The names under `folder`, relative to it, folders ending in `/`, sorted.
fn files(folder: &Utf8Path) -> Vec<String> {
    let mut found = walkdir(folder);
    found.sort();
    found
}

fn walkdir(folder: &Utf8Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in folder.read_dir_utf8().unwrap().flatten() {
        let name = entry.file_name().to_owned();
        if entry.file_type().unwrap().is_dir() {
            found.push(format!("{name}/"));
            found.extend(
                walkdir(entry.path())
                    .into_iter()
                    .map(|inner| format!("{name}/{inner}")),
            );
        } else {
            found.push(name);
        }
    }
    found
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
fn a_runs_places_are_emptied_before_it_and_the_installations_bytecode_stays() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, _) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    // What an earlier run of the same copy (the model's `run_tests`) planted for a test module.
    write(&mirror.join("tmp/copy/tests/test_totals.cpython-311-pytest-9.2.0.pyc"));
    write(&mirror.join("home/u/project/pkg/core.cpython-311.pyc"));
    let places = (
        Utf8Path::new("/tmp/copy"),
        Some(Utf8Path::new("/home/u/project")),
    );
    RunPlaces::emptied(&mirror, places).unwrap();
    assert_eq!(files(&mirror.join("tmp")), ["copy/"]);
    assert_eq!(files(&mirror.join("home/u/project")), Vec::<String>::new());
    assert!(mirror
        .join("opt/py/lib/python3.11/json/decoder.cpython-311.pyc")
        .is_file());
    // Another copy's place is not this run's to empty.
    write(&mirror.join("tmp/other/tests/test_a.cpython-311.pyc"));
    let stamps = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    assert!(mirror
        .join("tmp/other/tests/test_a.cpython-311.pyc")
        .is_file());
    assert_eq!(stamps.written_since(), Vec::<String>::new());
}

#[test]
fn the_stamps_name_what_a_run_wrote_in_its_places_even_when_it_removed_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, _) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    let places = (
        Utf8Path::new("/tmp/copy"),
        Some(Utf8Path::new("/home/u/project")),
    );
    let untouched = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    // Bytecode of the installation's, and another copy's: not this run's places.
    write(&mirror.join("opt/py/lib/python3.11/json/scanner.cpython-311.pyc"));
    write(&mirror.join("tmp/other/tests/test_a.cpython-311.pyc"));
    assert_eq!(untouched.written_since(), Vec::<String>::new());

    let left = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    write(&mirror.join("tmp/copy/tests/test_totals.cpython-311.pyc"));
    write(&mirror.join("home/u/project/pkg/core.cpython-311.pyc"));
    assert_eq!(
        left.written_since(),
        ["/home/u/project/pkg", "/tmp/copy/tests"]
    );

    // At once: the stamps wait for the clock to move past them, so that a write in the tick
    // the places were emptied in still changes their change time.
    let removed = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    write(&mirror.join("tmp/copy/tests/test_totals.cpython-311.pyc"));
    fs::remove_dir_all(mirror.join("tmp/copy/tests")).unwrap();
    fs::remove_dir_all(mirror.join("home/u/project")).unwrap();
    assert_eq!(
        removed.written_since(),
        [
            "/home/u/project (written and removed again)",
            "/tmp/copy (written and removed again)"
        ]
    );
}

#[test]
fn runs_of_one_repository_side_by_side_leave_each_others_stamps_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let (mirror, _) = mirror_of_two_folders(Utf8Path::from_path(dir.path()).unwrap());
    let original = Some(Utf8Path::new("/home/u/project"));
    let first = RunPlaces::emptied(&mirror, (Utf8Path::new("/tmp/copy-1"), original))
        .unwrap()
        .stamps();
    // Another attempt's final run starts while the first's runs: its places are made and
    // stamped, the original's among them, which the two share.
    let second = RunPlaces::emptied(&mirror, (Utf8Path::new("/tmp/copy-2"), original))
        .unwrap()
        .stamps();
    assert_eq!(
        (first.written_since(), second.written_since()),
        (Vec::<String>::new(), Vec::<String>::new())
    );
}

#[test]
fn a_mirror_rebuilt_under_a_run_is_told_as_such_not_as_bytecode_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    let places = (
        Utf8Path::new("/tmp/copy"),
        Some(Utf8Path::new("/home/u/project")),
    );
    let under_way = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    // Another mend puts a new mirror in place as the installation changed: the old one goes
    // aside (`discard`), the run's places with it.
    fs::rename(&mirror, root.join(".trash-old")).unwrap();
    mirror_of_two_folders(root);
    assert_eq!(under_way.rebuilt(), Some(mirror.as_path()));
    let untouched = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    write(&mirror.join("opt/py/lib/python3.11/json/scanner.cpython-311.pyc"));
    assert_eq!(untouched.rebuilt(), None);
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

#[test]
fn a_copy_reached_through_a_link_has_its_real_path_watched_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    let real = root.join("real/copy");
    fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("linked")).unwrap();
    let linked = root.join("linked/copy");
    let stamps = RunPlaces::emptied(&mirror, (&linked, None))
        .unwrap()
        .stamps();
    // pytest names the tests by the working folder, which `os.getcwd()` gives resolved.
    let real = real.canonicalize_utf8().unwrap();
    let at = mirror.join(real.strip_prefix("/").unwrap()).join("tests");
    write(&at.join("test_totals.cpython-311.pyc"));
    assert_eq!(stamps.written_since(), [real.join("tests").to_string()]);
}
