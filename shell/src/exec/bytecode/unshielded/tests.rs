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

/// Copies made in `root/copies` under `names`, as a run's copy exists while it runs: the
/// places of copies that are gone are removed as a run starts.
fn copies<const N: usize>(root: &Utf8Path, names: [&str; N]) -> [Utf8PathBuf; N] {
    names.map(|name| {
        let copy = root.join("copies").join(name);
        fs::create_dir_all(&copy).unwrap();
        copy
    })
}

/// Where `source`'s bytecode lies in `mirror`.
fn place(mirror: &Utf8Path, source: &Utf8Path) -> Utf8PathBuf {
    mirror.join(source.strip_prefix("/").unwrap())
}

#[test]
fn a_runs_places_are_emptied_before_it_and_the_installations_bytecode_stays() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    let [copy, other] = &copies(root, ["copy", "other"]);
    // What an earlier run of the same copy (the model's `run_tests`) planted for a test module.
    write(&place(&mirror, copy).join("tests/test_totals.cpython-311-pytest-9.2.0.pyc"));
    write(&mirror.join("home/u/project/pkg/core.cpython-311.pyc"));
    let places = (copy.as_path(), Some(Utf8Path::new("/home/u/project")));
    RunPlaces::emptied(&mirror, places).unwrap();
    assert_eq!(files(&place(&mirror, copy)), Vec::<String>::new());
    assert_eq!(files(&mirror.join("home/u/project")), Vec::<String>::new());
    assert!(mirror
        .join("opt/py/lib/python3.11/json/decoder.cpython-311.pyc")
        .is_file());
    // Another copy's place is not this run's to empty.
    write(&place(&mirror, other).join("tests/test_a.cpython-311.pyc"));
    let stamps = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    assert!(place(&mirror, other)
        .join("tests/test_a.cpython-311.pyc")
        .is_file());
    assert_eq!(stamps.written_since(), Vec::<String>::new());
}

#[test]
fn the_stamps_name_what_a_run_wrote_in_its_places_even_when_it_removed_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    let [copy, other] = &copies(root, ["copy", "other"]);
    let places = (copy.as_path(), Some(Utf8Path::new("/home/u/project")));
    let untouched = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    // Bytecode of the installation's, and another copy's: not this run's places.
    write(&mirror.join("opt/py/lib/python3.11/json/scanner.cpython-311.pyc"));
    write(&place(&mirror, other).join("tests/test_a.cpython-311.pyc"));
    assert_eq!(untouched.written_since(), Vec::<String>::new());

    let left = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    write(&place(&mirror, copy).join("tests/test_totals.cpython-311.pyc"));
    write(&mirror.join("home/u/project/pkg/core.cpython-311.pyc"));
    assert_eq!(
        left.written_since(),
        ["/home/u/project/pkg".to_owned(), format!("{copy}/tests")]
    );

    // At once: the stamps wait for the clock to move past them, so that a write in the tick
    // the places were emptied in still changes their change time.
    let removed = RunPlaces::emptied(&mirror, places).unwrap().stamps();
    write(&place(&mirror, copy).join("tests/test_totals.cpython-311.pyc"));
    fs::remove_dir_all(place(&mirror, copy).join("tests")).unwrap();
    fs::remove_dir_all(mirror.join("home/u/project")).unwrap();
    assert_eq!(
        removed.written_since(),
        [
            "/home/u/project (written and removed again)".to_owned(),
            format!("{copy} (written and removed again)")
        ]
    );
}

#[test]
fn runs_of_one_repository_side_by_side_leave_each_others_stamps_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    let [one, two] = &copies(root, ["copy-1", "copy-2"]);
    let original = Some(Utf8Path::new("/home/u/project"));
    let first = RunPlaces::emptied(&mirror, (one, original))
        .unwrap()
        .stamps();
    // Another attempt's final run starts while the first's runs: its places are made and
    // stamped, the original's among them, which the two share.
    let second = RunPlaces::emptied(&mirror, (two, original))
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
fn the_places_of_copies_that_are_gone_are_removed_and_the_others_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (mirror, _) = mirror_of_two_folders(root);
    // The folder the copies are made in, and the copies: one gone, one still under way.
    let copies = root.join("copies");
    fs::create_dir_all(copies.join("running")).unwrap();
    fs::create_dir_all(copies.join("this")).unwrap();
    let beside = mirror.join(copies.strip_prefix("/").unwrap());
    fs::create_dir_all(beside.join("gone/tests")).unwrap();
    fs::create_dir_all(beside.join("running")).unwrap();
    RunPlaces::emptied(&mirror, (&copies.join("this"), None)).unwrap();
    assert_eq!(files(&beside), ["running/", "this/"]);
    assert!(mirror
        .join("opt/py/lib/python3.11/json/decoder.cpython-311.pyc")
        .is_file());
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
