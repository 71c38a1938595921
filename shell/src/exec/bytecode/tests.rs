use std::collections::BTreeSet;

use super::*;

fn write(path: &Utf8Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// The names of the entries of `folder`, sorted.
fn entries(folder: &Utf8Path) -> Vec<String> {
    let mut names: Vec<String> = folder
        .read_dir_utf8()
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_owned())
        .collect();
    names.sort();
    names
}

/// Every file under `root`, relative to it, sorted.
fn files(root: &Utf8Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in folder.read_dir_utf8().unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.into_path());
            } else {
                found.insert(entry.path().strip_prefix(root).unwrap().to_string());
            }
        }
    }
    found
}

#[test]
fn the_mirror_holds_the_installations_bytecode_where_the_prefix_looks_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let venv = root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    write(&site.join("pluggy/__init__.py"), "");
    write(
        &site.join("pluggy/__pycache__/__init__.cpython-311.pyc"),
        "pluggy",
    );
    write(
        &site.join("_pytest/config/__pycache__/argparsing.cpython-311.pyc"),
        "argparsing",
    );
    write(
        &site.join("_pytest/config/__pycache__/notes.txt"),
        "not bytecode",
    );
    write(
        &venv.join("lib/python3.11/__pycache__/abc.cpython-311.opt-1.pyc"),
        "abc",
    );
    write(
        &venv.join("bin/__pycache__/tool.cpython-311.pyc"),
        "outside lib",
    );
    std::os::unix::fs::symlink(venv.join("lib"), venv.join("lib64")).unwrap();
    // A link out of the installation is not followed.
    write(
        &root.join("elsewhere/__pycache__/secret.cpython-311.pyc"),
        "secret",
    );
    std::os::unix::fs::symlink(root.join("elsewhere"), site.join("linked")).unwrap();

    let folders = library_folders(&[venv.clone(), root.join("no-such-prefix")]);
    assert_eq!(folders, [venv.join("lib/python3.11")]);
    let cache = root.join("cache");
    let mirror = mirror(&folders, &cache, None).unwrap();
    let inside = |path: &Utf8Path| path.strip_prefix("/").unwrap().to_string();
    let expected: BTreeSet<String> = [
        format!(
            "{}/abc.cpython-311.opt-1.pyc",
            inside(&venv.join("lib/python3.11"))
        ),
        format!("{}/pluggy/__init__.cpython-311.pyc", inside(&site)),
        format!(
            "{}/_pytest/config/argparsing.cpython-311.pyc",
            inside(&site)
        ),
        STAMP.to_owned(),
    ]
    .into();
    assert_eq!(files(&mirror), expected);
    assert_eq!(
        fs::read_to_string(
            mirror
                .join(inside(&site))
                .join("pluggy/__init__.cpython-311.pyc")
        )
        .unwrap(),
        "pluggy"
    );
    assert_eq!(
        files(&cache).len(),
        expected.len(),
        "no staging folder is left"
    );
}

#[test]
fn the_mirror_is_kept_until_a_package_is_installed_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let site = root.join("venv/lib/python3.12/site-packages");
    write(&site.join("a/__pycache__/m.cpython-312.pyc"), "a");
    let folders = library_folders(&[root.join("venv")]);
    let cache = root.join("cache");
    let first = mirror(&folders, &cache, None).unwrap();
    let planted = first.join("planted.pyc");
    fs::write(&planted, "kept while nothing changed").unwrap();
    assert_eq!(mirror(&folders, &cache, None), Some(first.clone()));
    assert!(planted.is_file());

    // A new package changes site-packages' time: the mirror is made again, from the folders.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&site.join("b/__pycache__/n.cpython-312.pyc"), "b");
    assert_eq!(mirror(&folders, &cache, None), Some(first.clone()));
    assert!(!planted.exists());
    let inside = site.strip_prefix("/").unwrap();
    assert!(first.join(inside).join("b/n.cpython-312.pyc").is_file());
}

#[test]
fn nothing_is_mirrored_without_a_library_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    assert_eq!(
        library_folders(&[root.join("bin")]),
        Vec::<Utf8PathBuf>::new()
    );
    assert_eq!(mirror(&[], &root.join("cache"), None), None);
    assert!(!root.join("cache").exists());
}

#[test]
fn making_a_mirror_removes_those_of_installations_that_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let cache = root.join("cache");
    let mut mirrors = Vec::new();
    for venv in ["kept", "deleted", "new"] {
        let site = root.join(venv).join("lib/python3.11/site-packages");
        write(&site.join("a/__pycache__/m.cpython-311.pyc"), venv);
        if venv == "new" {
            fs::remove_dir_all(root.join("deleted")).unwrap();
        }
        mirrors.push(mirror(&library_folders(&[root.join(venv)]), &cache, None).unwrap());
    }
    // A folder a .pth adds has no site-packages of its own: its mirror is no orphan.
    let added = root.join("added/src");
    write(&added.join("__pycache__/x.cpython-311.pyc"), "x");
    let with_added = mirror(&[root.join("kept/lib/python3.11"), added], &cache, None).unwrap();
    assert_eq!(
        mirror(&library_folders(&[root.join("new")]), &cache, None),
        Some(mirrors[2].clone())
    );
    assert!(with_added.is_dir());
    let left: Vec<bool> = mirrors.iter().map(|mirror| mirror.is_dir()).collect();
    assert_eq!(left, [true, false, true]);
}

#[test]
fn a_mirror_another_mend_put_in_place_meanwhile_serves_when_as_current_and_goes_when_older() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let cache = root.join("cache");
    let mirror = cache.join("0123456789abcdef");
    // What is under `mirror` afterwards, and whether the mirror just made is left anywhere but
    // there or in the trash.
    let placed = |there: &str| {
        let _ = fs::remove_dir_all(&cache);
        write(&mirror.join(STAMP), there);
        write(&mirror.join("usr/lib/m.cpython-311.pyc"), "theirs");
        let made = cache.join(".making-ours");
        write(&made.join(STAMP), "/usr/lib\t2\n");
        write(&made.join("usr/lib/m.cpython-311.pyc"), "ours");
        put_in_place(&made, &mirror, "/usr/lib\t2\n", &cache);
        sweep(&cache).join().unwrap();
        (
            fs::read_to_string(mirror.join("usr/lib/m.cpython-311.pyc")).unwrap(),
            entries(&cache),
        )
    };
    // As current as this one (made by a mend at the same time, maybe running tests on it): it
    // stays where it is, and this one goes.
    assert_eq!(
        placed("/usr/lib\t2\n"),
        ("theirs".to_owned(), vec!["0123456789abcdef".to_owned()])
    );
    // Older: it goes, and this one takes its place.
    assert_eq!(
        placed("/usr/lib\t1\n"),
        ("ours".to_owned(), vec!["0123456789abcdef".to_owned()])
    );
}

#[test]
fn a_discarded_mirror_leaves_its_name_at_once_and_the_sweep_deletes_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let cache = root.join("cache");
    let old = cache.join("0123456789abcdef");
    write(&old.join("usr/lib/m.cpython-311.pyc"), "old");
    write(&cache.join("kept/made-from"), "/usr/lib\t1\n");
    discard(&old, &cache);
    let moved = entries(&cache);
    assert_eq!(moved.len(), 2);
    assert!(
        moved[0].starts_with(TRASH) && moved[1] == "kept",
        "{moved:?}"
    );
    sweep(&cache).join().unwrap();
    assert_eq!(entries(&cache), ["kept"]);
}

#[test]
fn the_folders_a_path_file_adds_are_mirrored_too_and_import_lines_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let lib = root.join("venv/lib/python3.11");
    let shared = root.join("shared/lib/python3.11/site-packages");
    fs::create_dir_all(&shared).unwrap();
    fs::create_dir_all(root.join("project/src")).unwrap();
    write(
        &lib.join("site-packages/shared.pth"),
        &format!(
            "# the tools' venv\n{shared}\n\nimport os; os.getcwd()\n../../../../project/src\n"
        ),
    );
    write(
        &lib.join("site-packages/gone.pth"),
        &format!("{root}/no-such-folder\n"),
    );
    write(&lib.join("site-packages/inside.pth"), "pkg\n");
    fs::create_dir_all(lib.join("site-packages/pkg")).unwrap();
    let added = path_file_folders(std::slice::from_ref(&lib));
    assert_eq!(added, [root.join("project/src"), shared]);
}

#[test]
fn modules_installed_without_bytecode_are_compiled_into_the_mirror_and_not_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let site = root.join("venv/lib/python3.11/site-packages");
    // One package with its bytecode, as pip installs it; one without, as uv does.
    write(&site.join("kept/__init__.py"), "VALUE = 1\n");
    write(
        &site.join("kept/__pycache__/__init__.cpython-311.pyc"),
        "kept",
    );
    write(&site.join("bare/__init__.py"), "VALUE = 2\n");
    write(&site.join("bare/broken.py"), "def (:\n");
    let folders = library_folders(&[root.join("venv")]);
    let python = crate::test_support::python();
    let mirror = mirror(&folders, &root.join("cache"), Some(&python)).unwrap();

    let mut mirrored: Vec<String> = walk(&mirror)
        .into_iter()
        .filter_map(|path| {
            let inside = path.strip_prefix(&mirror).ok()?;
            let name = inside.file_name()?;
            // The tag names the interpreter that compiled: only which module it is matters here.
            let module = name.split('.').next()?;
            let package = inside.parent()?.file_name()?;
            name.ends_with(".pyc")
                .then(|| format!("{package}/{module}"))
        })
        .collect();
    mirrored.sort();
    assert_eq!(mirrored, ["bare/__init__", "kept/__init__"]);
    // Nothing is written beside the sources: the venv is the user's.
    assert!(!site.join("bare/__pycache__").exists());

    // A package installed later makes the mirror again; what was compiled is kept, not redone.
    let compiled = |mirror: &Utf8Path| {
        let folder = mirror.join(site.strip_prefix("/").unwrap()).join("bare");
        let file = walk(&folder).pop().unwrap();
        std::os::unix::fs::MetadataExt::ino(&fs::metadata(file).unwrap())
    };
    let before = compiled(&mirror);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&site.join("later/__init__.py"), "VALUE = 3\n");
    let again = super::mirror(&folders, &root.join("cache"), Some(&python)).unwrap();
    assert_eq!(compiled(&again), before);
}

/// Every file under `folder`.
fn walk(folder: &Utf8Path) -> Vec<Utf8PathBuf> {
    let mut files = Vec::new();
    for entry in folder.read_dir_utf8().unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            files.extend(walk(entry.path()));
        } else {
            files.push(entry.into_path());
        }
    }
    files
}

#[test]
fn an_interpreter_named_through_dot_dot_is_mirrored_under_the_names_python_looks_up() {
    // Python makes `sys.prefix` absolute and normal, and looks up bytecode under that name: a
    // mirror made under `shell/../.venv` held the venv's bytecode where no run looked.
    let python = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin/python"));
    assert!(python.exists(), "make test sets up {python}");
    let workdir = tempfile::tempdir().unwrap();
    let workdir = Utf8Path::from_path(workdir.path()).unwrap();
    let mirror = readable(&python, &Host::default(), &Sandbox::Bwrap, (workdir, None)).unwrap();
    let made = fs::read_to_string(mirror.path.join(STAMP)).unwrap();
    let venv = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv"));
    let plain = lexical(&venv);
    let named: Vec<&str> = made
        .lines()
        .filter_map(|line| line.split('\t').next())
        .filter(|folder| folder.contains(".venv"))
        .collect();
    assert!(!named.is_empty(), "{made}");
    assert!(
        named
            .iter()
            .all(|folder| folder.starts_with(plain.as_str())),
        "{made}"
    );
}
